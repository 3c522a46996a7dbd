//! `--redfish DIR`: DMTF's public mockups (tests/fixtures/shared/redfish-public-*), every
//! slot, device and drive with exact values, and bad trees (malformed JSON, wrong types,
//! links out of the tree, limits).

use crate::common::{copy_tree, fixtures, laneplan, laneplan_wide, run};
use laneplan::host::redfish::{self, Limits};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn tower() -> PathBuf {
    fixtures().join("shared/redfish-public-tower")
}

fn cables() -> PathBuf {
    fixtures().join("shared/redfish-public-cables")
}

fn audit_json(dir: &Path) -> (i32, Value) {
    let (code, out, err) = run(laneplan().args(["audit", "--json", "--redfish"]).arg(dir));
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    (code, serde_json::from_str(&out).expect("JSON"))
}

fn s(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn tail(v: &Value) -> String {
    s(v).rsplit('/').next().unwrap().to_string()
}

fn link(v: &Value) -> String {
    if v.is_null() {
        return "-".into();
    }
    format!("Gen{} x{}", s(&v["gen"]), s(&v["width"]))
}

#[test]
fn tower_every_slot_device_and_drive() {
    let (code, a) = audit_json(&tower());
    // Three links run below their maximum: the exit code says so.
    assert_eq!(code, 1);
    assert_eq!(a["source"], format!("redfish:{}", tower().display()));
    assert_eq!(a["product"], "3500");
    assert_eq!(a["cpu_model"], "Intel(R) Xeon(R) Gold 5218 2.3GHz");
    assert_eq!(a["sockets"], 8);
    assert_eq!(a["functions"], serde_json::json!([]));
    let ch = &a["chassis"];
    assert_eq!(ch["memory_mib"], 1048576);
    assert_eq!(ch["dimms"], 8);
    assert_eq!(ch["cpus"].as_array().unwrap().len(), 8);

    let slots: Vec<String> = ch["slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            format!(
                "{} #{} {} Gen{} x{} {} [{}]",
                s(&x["label"]),
                s(&x["ordinal"]),
                s(&x["slot_type"]),
                s(&x["gen"]),
                s(&x["lanes"]),
                s(&x["state"]),
                x["devices"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(tail)
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            "Slot 1 #1 FullLength Gen3 x16 Enabled [Slot1]",
            "Slot 2 #2 FullLength Gen3 x16 Enabled [Slot2]",
            "Slot 3 #3 HalfLength Gen3 x4 Enabled [Slot3]",
            "Slot 4 #4 HalfLength Gen3 x4 Enabled [Slot4]",
            "Slot 5 #5 HalfLength Gen3 x4 Absent []",
            "Slot 6 #6 HalfLength Gen3 x4 Absent []",
        ]
    );

    let devices: Vec<String> = ch["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} | {} | {} | {} | {} of {} | {} | bus {}",
                tail(&d["id"]),
                s(&d["model"]),
                s(&d["slot"]),
                s(&d["device_type"]),
                link(&d["link"]),
                link(&d["link_max"]),
                s(&d["link_status"]),
                s(&d["bdf"]),
            )
        })
        .collect();
    assert_eq!(
        devices,
        [
            "Slot1 | PowerGraphics RX2070 | Slot 1 | SingleFunction | Gen3 x16 of Gen3 x16 | ok | bus -",
            "Slot2 | PowerGraphics RX2070 | Slot 2 | SingleFunction | Gen3 x16 of Gen3 x16 | ok | bus -",
            "Slot3 | SuperFC 5000 | Slot 3 | MultiFunction | Gen2 x2 of Gen3 x4 | downtrained | bus -",
            "Slot4 | SuperFC 5000 | Slot 4 | MultiFunction | Gen2 x2 of Gen3 x4 | downtrained | bus -",
            "IntegratedNIC | SuperNIC 2000 | - | MultiFunction | Gen2 x4 of Gen3 x4 | downtrained | bus -",
            "IntegratedNVMe1 | PowerSSD 1000 | - | MultiFunction | Gen3 x4 of Gen3 x4 | ok | bus -",
            "IntegratedNVMe2 | PowerSSD 1000 | - | MultiFunction | Gen3 x4 of Gen3 x4 | ok | bus -",
            "IntegratedRAID | PowerStore 1000 | - | SingleFunction | Gen3 x4 of Gen3 x4 | ok | bus -",
            "EmbeddedNVMeBridge | StoreBridge 5000 | - | SingleFunction | Gen3 x16 of Gen3 x16 | ok | bus -",
        ]
    );

    let drives: Vec<String> = ch["drives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {} {} {} {} {} bay {} in {}",
                tail(&d["id"]),
                s(&d["state"]),
                s(&d["protocol"]),
                s(&d["media"]),
                s(&d["capacity_bytes"]),
                s(&d["model"]),
                s(&d["bay"]),
                d["storage"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(tail)
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect();
    let mut want = vec![
        "M.2-1 Enabled NVMe SSD 1125899906842624 NVMe 1000 bay - in NVMeSWRAID".to_string(),
        "M.2-2 Enabled NVMe SSD 1125899906842624 NVMe 1000 bay - in NVMeSWRAID".to_string(),
    ];
    for i in 0..8 {
        want.push(if i < 4 {
            format!(
                "Disk-1-{i} Enabled SAS HDD 20266198323167230 SAS 18000 bay - in RAIDIntegrated"
            )
        } else {
            format!("Disk-1-{i} Absent - - - - bay - in RAIDIntegrated")
        });
    }
    for i in 0..8 {
        want.push(if i < 4 {
            format!("Disk-2-{i} Enabled NVMe SSD 1125899906842624 NVMe 1000 bay - in NVMeSecondary")
        } else {
            format!("Disk-2-{i} Absent - - - - bay - in NVMeSecondary")
        });
    }
    assert_eq!(drives, want);

    // The findings: one per link below its maximum, the note that no bus is known, and the
    // note that no platform lists the system's model.
    let codes: Vec<(String, String)> = a["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (s(&f["code"]), s(&f["location"]["node"])))
        .collect();
    assert_eq!(
        codes,
        [
            (
                "LP0340".into(),
                "/redfish/v1/Chassis/Tower/PCIeDevices/IntegratedNIC".into()
            ),
            (
                "LP0340".into(),
                "/redfish/v1/Chassis/Tower/PCIeDevices/Slot3".into()
            ),
            (
                "LP0340".into(),
                "/redfish/v1/Chassis/Tower/PCIeDevices/Slot4".into()
            ),
            ("LP0344".into(), tower().display().to_string()),
            // The system's Model `3500` (Manufacturer `Contoso`) is no platform's DMI name.
            ("LP0355".into(), "-".into()),
        ]
    );
}

/// An oracle: every PCIe device file of the tower, read here with serde_json alone, is in
/// the audit with its `PCIeInterface` as the file says.
#[test]
fn tower_devices_match_their_files() {
    let (_, a) = audit_json(&tower());
    let devs = a["chassis"]["devices"].as_array().unwrap();
    let dir = tower().join("Chassis/Tower/PCIeDevices");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        if !e.path().is_dir() {
            continue;
        }
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(e.path().join("index.json")).unwrap())
                .unwrap();
        let d = devs
            .iter()
            .find(|d| d["id"] == v["@odata.id"])
            .unwrap_or_else(|| panic!("{} missing", v["@odata.id"]));
        let i = &v["PCIeInterface"];
        let g = |k: &str| {
            i[k].as_str()
                .unwrap()
                .trim_start_matches("Gen")
                .parse::<u64>()
                .unwrap()
        };
        assert_eq!(d["link"]["gen"], g("PCIeType"));
        assert_eq!(d["link"]["width"], i["LanesInUse"]);
        assert_eq!(d["link_max"]["gen"], g("MaxPCIeType"));
        assert_eq!(d["link_max"]["width"], i["MaxLanes"]);
        assert_eq!(d["model"], v["Model"]);
        n += 1;
    }
    assert_eq!(n, 9);
    assert_eq!(devs.len(), 9);
}

#[test]
fn tower_text() {
    let (code, out, err) = run(laneplan_wide()
        .args(["audit", "--redfish"])
        .arg("tests/fixtures/shared/redfish-public-tower"));
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("redfish-tower.txt", out);
}

#[test]
fn cables_slots_and_drive() {
    let (code, a) = audit_json(&cables());
    assert_eq!(code, 0);
    let ch = &a["chassis"];
    let slots: Vec<String> = ch["slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            format!(
                "{} {} Gen{} lanes {}",
                tail(&x["chassis"]),
                s(&x["label"]),
                s(&x["gen"]),
                s(&x["lanes"])
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            "chassis Slot 0 Gen4 lanes -",
            "chassis Slot 1 Gen4 lanes -",
            "chassis Slot 2 Gen4 lanes -",
            "hsbp Upstream Slot Gen4 lanes -",
        ]
    );
    let drives = ch["drives"].as_array().unwrap();
    assert_eq!(drives.len(), 1);
    assert_eq!(drives[0]["id"], "/redfish/v1/Chassis/hsbp/Drives/1");
    assert_eq!(drives[0]["protocol"], "SATA");
    assert_eq!(drives[0]["name"], "Drive Sample SATA");
    assert_eq!(drives[0]["bay"], Value::Null);
    assert_eq!(ch["devices"], serde_json::json!([]));
    assert_eq!(a["findings"], serde_json::json!([]));
}

/// The root may be the mockup root (with `redfish/v1/` below it) or the `v1` folder.
#[test]
fn mockup_root_or_v1_folder() {
    let t = tempfile::tempdir().unwrap();
    let v1 = t.path().join("redfish/v1");
    copy_tree(&cables(), &v1);
    let a = redfish::read(t.path()).unwrap();
    let b = redfish::read(&v1).unwrap();
    assert_eq!(a.chassis, b.chassis);
    assert_eq!(a.chassis.slots.len(), 4);
    let e = redfish::read(&t.path().join("redfish")).unwrap_err();
    assert!(e.message.contains("is no Redfish tree"), "{}", e.message);
}

fn copy_of(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("tree");
    copy_tree(src, &d);
    (t, d)
}

#[test]
fn malformed_json_is_located() {
    let (_t, d) = copy_of(&tower());
    let f = d.join("Chassis/Tower/PCIeDevices/Slot1/index.json");
    std::fs::write(&f, "{\n  \"Id\": \"Slot1\",\n  \"Model\": oops\n}\n").unwrap();
    let (code, _, err) = run(laneplan().args(["audit", "--redfish"]).arg(&d));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{}:3:", f.display())) && err.contains("malformed JSON"),
        "{err}"
    );
}

#[test]
fn wrong_type_names_the_json_pointer() {
    let (_t, d) = copy_of(&tower());
    let f = d.join("Chassis/Tower/PCIeSlots/index.json");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(
        &f,
        text.replacen("\"Lanes\": 4,", "\"Lanes\": \"four\",", 1),
    )
    .unwrap();
    let e = redfish::read(&d).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "{}: at JSON pointer /Slots/2/Lanes: expected a whole number, found a string (\"four\")",
            f.display()
        )
    );
}

/// Links out of the tree are not followed: another URI space, `..`, a symlink out.
#[test]
fn links_out_of_the_tree_are_notes() {
    let (t, d) = copy_of(&cables());
    let outside = t.path().join("outside");
    std::fs::create_dir_all(outside.join("x")).unwrap();
    std::fs::write(outside.join("x/index.json"), "{\"Id\": \"stolen\"}").unwrap();
    std::os::unix::fs::symlink(&outside, d.join("Chassis/escape")).unwrap();
    let f = d.join("Chassis/index.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let m = v["Members"].as_array_mut().unwrap();
    for u in [
        "https://bmc.example/redfish/v1/Chassis/x",
        "/redfish/v1/Chassis/../../../etc",
        "/redfish/v1/Chassis/escape/x",
        "/redfish/v1/Chassis/absent",
    ] {
        m.push(serde_json::json!({ "@odata.id": u }));
    }
    std::fs::write(&f, serde_json::to_string(&v).unwrap()).unwrap();
    let r = redfish::read(&d).unwrap();
    let notes: Vec<(&str, &str)> = r
        .findings
        .iter()
        .map(|f| (f.code.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                "LP0341",
                "/redfish/v1/Chassis/../../../etc: a link outside the tree, not followed"
            ),
            (
                "LP0341",
                "/redfish/v1/Chassis/escape/x: a link outside the tree, not followed"
            ),
            (
                "LP0341",
                "https://bmc.example/redfish/v1/Chassis/x: a link outside the tree, not followed"
            ),
            (
                "LP0342",
                "1 linked resource(s) not in the tree: /redfish/v1/Chassis/absent"
            ),
        ]
    );
    // What was read stays as before.
    assert_eq!(r.chassis.slots.len(), 4);
}

#[test]
fn limits_bound_the_read() {
    let e = redfish::read_with(
        &tower(),
        Limits {
            max_depth: 3,
            ..Limits::default()
        },
    )
    .unwrap_err();
    assert!(
        e.message.contains("links nest deeper than 3 levels"),
        "{}",
        e.message
    );
    let e = redfish::read_with(
        &tower(),
        Limits {
            max_resources: 20,
            ..Limits::default()
        },
    )
    .unwrap_err();
    assert!(
        e.message.contains("more than 20 resources"),
        "{}",
        e.message
    );
    // A huge file: over the size limit, refused before it is read.
    let (_t, d) = copy_of(&cables());
    let f = d.join("Chassis/chassis/index.json");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{}{}", " ".repeat(9 << 20), text)).unwrap();
    let (code, _, err) = run(laneplan().args(["audit", "--redfish"]).arg(&d));
    assert_eq!(code, 2);
    assert!(err.contains("the limit is 8388608 bytes"), "{err}");
    // Not a tree at all.
    let (code, _, err) = run(laneplan().args(["audit", "--redfish", "/nonexistent-tree"]));
    assert_eq!(code, 2);
    assert!(err.contains("is no Redfish tree"), "{err}");
}

/// `--prometheus`: per Redfish device the link in use, its maximum and the verdict.
#[test]
fn tower_prometheus() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("rf.prom");
    let (code, _, err) = run(laneplan()
        .args(["audit", "--redfish"])
        .arg(tower())
        .arg("--prometheus")
        .arg(&p));
    assert_eq!(code, 1, "{err}");
    let text = std::fs::read_to_string(&p).unwrap();
    let down: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("laneplan_chassis_link_downtrained{") && l.ends_with(" 1"))
        .collect();
    assert_eq!(
        down,
        [
            "laneplan_chassis_link_downtrained{redfish_id=\"/redfish/v1/Chassis/Tower/PCIeDevices/Slot3\",pci=\"\",slot=\"Slot 3\",model=\"SuperFC 5000\",serial=\"2M220100SL\"} 1",
            "laneplan_chassis_link_downtrained{redfish_id=\"/redfish/v1/Chassis/Tower/PCIeDevices/Slot4\",pci=\"\",slot=\"Slot 4\",model=\"SuperFC 5000\",serial=\"2M220100SM\"} 1",
            "laneplan_chassis_link_downtrained{redfish_id=\"/redfish/v1/Chassis/Tower/PCIeDevices/IntegratedNIC\",pci=\"\",slot=\"\",model=\"SuperNIC 2000\",serial=\"2M220100SL\"} 1",
        ]
    );
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("laneplan_chassis_link_downtrained{") && l.ends_with(" 0"))
            .count(),
        6
    );
    assert!(text.contains("laneplan_chassis_link_width{redfish_id=\"/redfish/v1/Chassis/Tower/PCIeDevices/Slot3\",pci=\"\",slot=\"Slot 3\",model=\"SuperFC 5000\",serial=\"2M220100SL\"} 2\n"));
    assert!(text.contains("laneplan_audit_findings{severity=\"error\"} 3\n"));
}

/// `learn --redfish` -> `check` exit 0 -> `audit --redfish --against` matches every slot.
fn round_trip(tree: &Path) -> (tempfile::TempDir, Value, Value) {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let (code, _, err) = run(laneplan()
        .args(["learn", "--json", "--redfish"])
        .arg(tree)
        .arg("-o")
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    let plat = out.join("platform");
    let (code, _, err) = run(laneplan()
        .arg("--platform-dir")
        .arg(&plat)
        .arg("check")
        .arg(out.join("build.toml")));
    assert_eq!(code, 0, "check: {err}");
    let (_, stdout, err) = run(laneplan()
        .arg("--platform-dir")
        .arg(&plat)
        .args(["audit", "--json", "--redfish"])
        .arg(tree)
        .arg("--against")
        .arg(out.join("build.toml")));
    let a: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    let platform = std::fs::read_to_string(
        std::fs::read_dir(&plat)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| !p.to_string_lossy().ends_with("-parts.toml"))
            .unwrap(),
    )
    .unwrap();
    let p: Value = serde_json::to_value(toml::from_str::<toml::Value>(&platform).unwrap()).unwrap();
    (t, a, p)
}

fn places(a: &Value) -> Vec<String> {
    a["bays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} {} {} -> {}",
                s(&e["place"]),
                s(&e["status"]),
                s(&e["expected"]),
                s(&e["found"])
            )
        })
        .collect()
}

#[test]
fn learn_round_trip_tower() {
    let (_t, a, p) = round_trip(&tower());
    let nvme = "ok NVMe 1000 -> NVMe 1000";
    let sas = "ok SAS 18000 -> SAS 18000";
    let mut want = vec![
        "Storage RAIDIntegrated ok Storage RAIDIntegrated -> Storage RAIDIntegrated".to_string(),
        "Slot 1 ok PowerGraphics RX2070 -> PowerGraphics RX2070".into(),
        "Slot 2 ok PowerGraphics RX2070 -> PowerGraphics RX2070".into(),
        "Slot 3 ok SuperFC 5000 -> SuperFC 5000".into(),
        "Slot 4 ok SuperFC 5000 -> SuperFC 5000".into(),
        "Slot 5 empty - -> -".into(),
        "Slot 6 empty - -> -".into(),
    ];
    // The 18 drives in the order their controllers list them (no PhysicalLocation):
    // NVMeSWRAID's two M.2 (bays 0-1), RAIDIntegrated's 4 SAS + 4 absent (2-9),
    // NVMeSecondary's 4 NVMe + 4 absent (10-17).
    for (n, what) in [
        (0, nvme),
        (1, nvme),
        (2, sas),
        (3, sas),
        (4, sas),
        (5, sas),
        (10, nvme),
        (11, nvme),
        (12, nvme),
        (13, nvme),
    ] {
        want.push(format!("Bay {n} {what}"));
    }
    for n in [6, 7, 8, 9, 14, 15, 16, 17] {
        want.push(format!("Bay {n} empty - -> -"));
    }
    let mut got = places(&a);
    let key = |x: &String| {
        x.strip_prefix("Bay ")
            .and_then(|r| r.split(' ').next()?.parse::<u32>().ok())
            .unwrap_or(0)
    };
    got.sort_by_key(|x| (x.starts_with("Bay "), key(x)));
    want.sort_by_key(|x| (x.starts_with("Bay "), key(x)));
    assert_eq!(got, want);
    // Slots matched by their ordinals (`slot_number` in the platform), bays by address
    // order (the order the controller lists the drives), the controller slot by its label.
    let methods: Vec<String> = a["bays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {}", s(&e["place"]), s(&e["method"])))
        .collect();
    assert!(methods.contains(&"Storage RAIDIntegrated none".to_string()));
    for n in 1..=6 {
        assert!(
            methods.contains(&format!("Slot {n} physical-slot")),
            "{methods:?}"
        );
    }
    for n in 0..18 {
        assert!(
            methods.contains(&format!("Bay {n} address-order")),
            "{methods:?}"
        );
    }
    // Bay groups: one per storage controller, NVMe cabled direct, SAS through the
    // controller's slot.
    let groups: Vec<String> = p["bays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            format!(
                "{} {} {} {}",
                s(&g["bays"]),
                g["interfaces"],
                s(&g["via"]),
                s(&g["to"])
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            "0-1 [\"nvme\"] direct rc-bays-storage-nvmeswraid",
            "2-9 [\"sas\",\"sata\"] controller ctrl-storage-raidintegrated",
            "10-17 [\"nvme\"] direct rc-bays-storage-nvmesecondary",
        ]
    );
    // The learned platform: eight sockets (the tree's eight CPUs), six labelled slots with
    // their ordinals, lanes and generation.
    assert_eq!(p["id"], "learned-3500");
    assert_eq!(p["socket"].as_array().unwrap().len(), 8);
    assert_eq!(p["socket"][0]["cpu"], "Intel(R) Xeon(R) Gold 5218 2.3GHz");
    let slots: Vec<String> = p["slot"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            format!(
                "{} {} #{} x{} Gen{}",
                s(&x["id"]),
                s(&x["label"]),
                s(&x["slot_number"]),
                s(&x["electrical"]),
                s(&x["gen"])
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            "slot-1 Slot 1 #1 x16 Gen3",
            "slot-2 Slot 2 #2 x16 Gen3",
            "slot-3 Slot 3 #3 x4 Gen3",
            "slot-4 Slot 4 #4 x4 Gen3",
            "slot-5 Slot 5 #5 x4 Gen3",
            "slot-6 Slot 6 #6 x4 Gen3",
            "ctrl-storage-raidintegrated Storage RAIDIntegrated #- x8 Gen3",
        ]
    );
    // The text: N of N.
    let (_, text, _) = run(laneplan()
        .arg("--platform-dir")
        .arg(_t.path().join("out/platform"))
        .args(["audit", "--redfish"])
        .arg(tower())
        .arg("--against")
        .arg(_t.path().join("out/build.toml")));
    assert!(text.contains("15 of 15 planned found"), "{text}");
}

#[test]
fn learn_round_trip_cables() {
    let (_t, a, p) = round_trip(&cables());
    // Four slots, all empty in the tree and in the plan: each matched by its label.
    // Four slots, all empty in the tree and in the plan, each matched by its label; the one
    // SATA drive (no model, no location, no Storage resource lists it) in bay 0 by address
    // order, behind a controller the tree does not name.
    assert_eq!(
        places(&a),
        [
            "Storage controller (not named by the tree) ok Storage controller (not named by the tree) -> Storage controller (not named by the tree)",
            "Slot 0 empty - -> -",
            "Slot 1 empty - -> -",
            "Slot 2 empty - -> -",
            "Upstream Slot empty - -> -",
            "Bay 0 ok Drive Sample SATA -> Drive Sample SATA",
        ]
    );
    assert_eq!(a["bays"][5]["method"], "address-order");
    assert_eq!(p["slot"].as_array().unwrap().len(), 5);
    assert_eq!(p["socket"].as_array().unwrap().len(), 1);
    assert_eq!(p["bays"][0]["bays"], "0");
    assert_eq!(p["bays"][0]["interfaces"], serde_json::json!(["sata"]));
    assert_eq!(p["bays"][0]["via"], "controller");
    let (_, text, _) = run(laneplan()
        .arg("--platform-dir")
        .arg(_t.path().join("out/platform"))
        .args(["audit", "--redfish"])
        .arg(cables())
        .arg("--against")
        .arg(_t.path().join("out/build.toml")));
    assert!(text.contains("2 of 2 planned found"), "{text}");
}

/// `--against` compares drives: a plan edited after learning shows each kind of difference.
#[test]
fn against_compares_drives() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let (code, _, err) = run(laneplan()
        .args(["learn", "--redfish"])
        .arg(tower())
        .arg("-o")
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    let build = out.join("build.toml");
    let text = std::fs::read_to_string(&build).unwrap();
    let sas = "part = \"redfish-drive-sas-18000\"";
    // Bay 2: another SAS model (a catalogue part); bay 3: no drive planned; bay 6 (absent in
    // the tree): a drive planned.
    let text = text
        .replacen(
            &format!("bays = \"2\"\n{sas}"),
            "bays = \"2\"\npart = \"seagate-exos-10e2400-2.4tb\"",
            1,
        )
        .replacen(&format!("[[bay]]\nbays = \"3\"\n{sas}\n"), "", 1)
        + &format!("\n[[bay]]\nbays = \"6\"\n{sas}\n");
    std::fs::write(&build, text).unwrap();
    let (code, stdout, err) = run(laneplan()
        .arg("--platform-dir")
        .arg(out.join("platform"))
        .args(["audit", "--json", "--redfish"])
        .arg(tower())
        .arg("--against")
        .arg(&build));
    assert_eq!(code, 1, "{err}");
    let a: Value = serde_json::from_str(&stdout).unwrap();
    let got: Vec<String> = a["bays"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| [2, 3, 4, 6, 7].contains(&e["bay"].as_u64().unwrap_or(99)))
        .map(|e| {
            format!(
                "{} {} {} -> {}: {}",
                s(&e["place"]),
                s(&e["status"]),
                s(&e["expected"]),
                s(&e["found"]),
                e["problems"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(s)
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "Bay 2 wrong-part Seagate Exos 10E2400 2.4 TB 10K SAS HDD -> SAS 18000: Seagate Exos 10E2400 2.4 TB 10K SAS HDD planned, SAS 18000 found",
            "Bay 3 unexpected - -> SAS 18000: holds SAS 18000, not planned",
            "Bay 4 ok SAS 18000 -> SAS 18000: ",
            "Bay 6 missing SAS 18000 -> -: SAS 18000 planned; the tree says the bay is empty (Absent)",
            "Bay 7 empty - -> -: ",
        ]
    );
    let codes: Vec<String> = a["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["message"].as_str().unwrap_or("").starts_with("Bay "))
        .map(|f| format!("{} {}", s(&f["code"]), s(&f["message"])))
        .collect();
    assert_eq!(
        codes,
        [
            "LP0324 Bay 2: Seagate Exos 10E2400 2.4 TB 10K SAS HDD planned, SAS 18000 found",
            "LP0321 Bay 3: holds SAS 18000, not planned",
            "LP0320 Bay 6: SAS 18000 planned; the tree says the bay is empty (Absent)",
        ]
    );
}

/// `learn --redfish` says where it placed drives by list order, and writes each drive model
/// once as a part (capacity in its source).
#[test]
fn learn_notes_address_order_and_drive_parts() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let (code, stdout, err) = run(laneplan()
        .args(["learn", "--json", "--redfish"])
        .arg(tower())
        .arg("-o")
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    let j: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        j["notes"],
        serde_json::json!([
            "bays 0-1 (Storage NVMeSWRAID): the tree gives no location for 2 drive(s); placed by address order, the order /redfish/v1/Systems/437XR1238R2/Storage/NVMeSWRAID lists them",
            "bays 2-9 (Storage RAIDIntegrated): the tree gives no location for 8 drive(s); placed by address order, the order /redfish/v1/Systems/437XR1238R2/Storage/RAIDIntegrated lists them",
            "bays 10-17 (Storage NVMeSecondary): the tree gives no location for 8 drive(s); placed by address order, the order /redfish/v1/Systems/437XR1238R2/Storage/NVMeSecondary lists them",
        ])
    );
    assert_eq!(j["summary"]["bays"], 18);
    assert_eq!(j["summary"]["parts_new"], 5);
    let parts = std::fs::read_to_string(out.join("platform/learned-3500-parts.toml")).unwrap();
    let parts: toml::Value = toml::from_str(&parts).unwrap();
    let got: Vec<String> = parts["part"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{} {} {} {}",
                p["id"].as_str().unwrap(),
                p["name"].as_str().unwrap(),
                p["class"].as_str().unwrap(),
                p.get("interface").and_then(|v| v.as_str()).unwrap_or("-")
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "redfish-powergraphics-rx2070 PowerGraphics RX2070 other -",
            "redfish-superfc-5000 SuperFC 5000 other -",
            "redfish-ctrl-storage-raidintegrated Storage RAIDIntegrated raid -",
            "redfish-drive-nvme-1000 NVMe 1000 nvme nvme",
            "redfish-drive-sas-18000 SAS 18000 sas-drive sas",
        ]
    );
    let sas = &parts["part"][4]["source"];
    assert_eq!(
        sas.as_str().unwrap(),
        "read off the BMC: /redfish/v1/Chassis/Tower/Drives/Disk-1-0 (Contoso, HDD, SAS, capacity 18.0 PiB (20266198323167230 bytes)); speeds not shown"
    );
}

/// `bays BUILD --redfish` draws the learned tower with what the BMC shows in each slot.
#[test]
fn bays_draws_the_tower() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let (code, _, err) = run(laneplan()
        .args(["learn", "--redfish"])
        .arg(tower())
        .arg("-o")
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    let (code, text, err) = run(laneplan_wide()
        .arg("--platform-dir")
        .arg(out.join("platform"))
        .arg("bays")
        .arg(out.join("build.toml"))
        .arg("--redfish")
        .arg(tower()));
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Host: 15 of 15 planned found"), "{text}");
    // The 18 bays: front panel numbers and each drive in its bay.
    assert!(text.contains("Front — 18 x 2.5\" bays"), "{text}");
    assert!(
        text.contains(
            "│ 2   ┆ SAS   ┆ SAS 18000 ┆ CPU 1  ┆ C   ┆ SAS 12 Gb/s           ┆ ok     │"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "│ 17  ┆ NVMe  ┆ -         ┆ CPU 1  ┆ B   ┆ -                     ┆ empty  │"
        ),
        "{text}"
    );
    for l in [
        "Slot 1",
        "Slot 6",
        "PowerGraphics RX2070",
        "SuperFC 5000",
        "NVMe 1000",
    ] {
        assert!(text.contains(l), "{l}: {text}");
    }
}

/// OEM blocks and drive locations. Synthetic: neither public mockup carries a Dell or HPE
/// block or a located drive, so this small tree is written here, shaped as iDRAC and iLO
/// write those properties (issue 20).
#[test]
fn oem_blocks_and_drive_locations() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("redfish/v1");
    let put = |uri: &str, v: Value| {
        let d = root.join(
            uri.trim_start_matches("/redfish/v1")
                .trim_start_matches('/'),
        );
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("index.json"),
            serde_json::to_string_pretty(&v).unwrap(),
        )
        .unwrap();
    };
    let l = |u: &str| serde_json::json!({ "@odata.id": u });
    put(
        "/redfish/v1",
        serde_json::json!({ "Chassis": l("/redfish/v1/Chassis"), "Oem": { "Contoso": { "x": 1 } } }),
    );
    put(
        "/redfish/v1/Chassis",
        serde_json::json!({ "Members": [l("/redfish/v1/Chassis/1")] }),
    );
    put(
        "/redfish/v1/Chassis/1",
        serde_json::json!({
            "@odata.id": "/redfish/v1/Chassis/1",
            "PCIeSlots": l("/redfish/v1/Chassis/1/PCIeSlots"),
            "PCIeDevices": l("/redfish/v1/Chassis/1/PCIeDevices"),
            "Drives": l("/redfish/v1/Chassis/1/Drives"),
        }),
    );
    put(
        "/redfish/v1/Chassis/1/PCIeSlots",
        serde_json::json!({ "Slots": [
            { "PCIeType": "Gen4", "Lanes": 16, "SlotType": "FullLength",
              "Location": { "PartLocation": { "ServiceLabel": "Slot 1", "LocationOrdinalValue": 1 } },
              "Links": { "PCIeDevice": [l("/redfish/v1/Chassis/1/PCIeDevices/102-0")] },
              "Oem": { "Dell": { "CPUAffinity": 2 } } },
            { "PCIeType": "Gen4", "Lanes": 4, "SlotType": "U2",
              "Location": { "PartLocation": { "ServiceLabel": "Bay 0", "LocationOrdinalValue": 0 } },
              "Oem": { "Dell": { "DellPCIeSlot": { "CPUAffinity": "CPU1" } } } },
        ]}),
    );
    put(
        "/redfish/v1/Chassis/1/PCIeDevices",
        serde_json::json!({ "Members": [
            l("/redfish/v1/Chassis/1/PCIeDevices/102-0"), l("/redfish/v1/Chassis/1/PCIeDevices/nic")
        ]}),
    );
    put(
        "/redfish/v1/Chassis/1/PCIeDevices/102-0",
        serde_json::json!({
            "Id": "102-0", "Model": "HBA355e",
            "PCIeInterface": { "PCIeType": "Gen4", "MaxPCIeType": "Gen4", "LanesInUse": 8, "MaxLanes": 8 },
            "Oem": { "Dell": { "@odata.type": "#DellOem.v1_0_0.DellOemResources" } },
        }),
    );
    put(
        "/redfish/v1/Chassis/1/PCIeDevices/nic",
        serde_json::json!({
            "Id": "nic", "Model": "NIC 2p",
            "PCIeInterface": { "PCIeType": "Gen3", "LanesInUse": 8 },
            "Oem": { "Hpe": { "BusNumber": 18, "DeviceNumber": 0, "FunctionNumber": 1 } },
        }),
    );
    put(
        "/redfish/v1/Chassis/1/Drives",
        serde_json::json!({ "Members": [
            l("/redfish/v1/Chassis/1/Drives/a"), l("/redfish/v1/Chassis/1/Drives/b")
        ]}),
    );
    put(
        "/redfish/v1/Chassis/1/Drives/a",
        serde_json::json!({
            "Model": "PM1733", "Protocol": "NVMe",
            "PhysicalLocation": { "PartLocation": { "ServiceLabel": "Bay 5", "LocationOrdinalValue": 5, "LocationType": "Bay" } },
            "Oem": { "Dell": { "DellPhysicalDisk": { "CPUAffinity": "1" } } },
        }),
    );
    put(
        "/redfish/v1/Chassis/1/Drives/b",
        serde_json::json!({
            "Model": "MZ7L3", "Protocol": "SATA",
            "PhysicalLocation": { "PartLocation": { "ServiceLabel": "Port=1I:Box=1:Bay=3" } },
        }),
    );
    let r = redfish::read(t.path()).unwrap();
    let ch = &r.chassis;
    let slots: Vec<(Option<&str>, Option<&str>, Option<u32>)> = ch
        .slots
        .iter()
        .map(|s| (s.label.as_deref(), s.slot_type.as_deref(), s.cpu))
        .collect();
    assert_eq!(
        slots,
        [
            (Some("Slot 1"), Some("FullLength"), Some(2)),
            (Some("Bay 0"), Some("U2"), Some(1))
        ]
    );
    let devs: Vec<(String, Option<String>, Option<u32>, &str)> = ch
        .devices
        .iter()
        .map(|d| {
            (
                d.id.rsplit('/').next().unwrap().to_string(),
                d.bdf.map(|b| b.to_string()),
                d.cpu,
                match d.link_status {
                    laneplan::host::audit::LinkStatus::Ok => "ok",
                    laneplan::host::audit::LinkStatus::Unknown => "unknown",
                    _ => "other",
                },
            )
        })
        .collect();
    assert_eq!(
        devs,
        [
            // Dell: `102-0` is bus 102 (0x66), device 0, in decimal; its slot's CPU.
            ("102-0".into(), Some("0000:66:00.0".into()), Some(2), "ok"),
            // HPE: bus 18 (0x12), function 1; no maximum in the tree: unknown.
            ("nic".into(), Some("0000:12:00.1".into()), None, "unknown"),
        ]
    );
    let drives: Vec<(Option<&str>, Option<u32>, Option<u32>)> = ch
        .drives
        .iter()
        .map(|d| (d.location.as_deref(), d.bay, d.cpu))
        .collect();
    assert_eq!(
        drives,
        [
            (Some("Bay 5"), Some(5), Some(1)),
            (Some("Port=1I:Box=1:Bay=3"), Some(3), None)
        ]
    );
    // Buses known: no LP0344; the unknown OEM block is ignored.
    assert!(
        r.findings.iter().all(|f| f.code != "LP0344"),
        "{:?}",
        r.findings
    );
    // learn round trip: the located drives at their locations (bay 3 from the HPE label,
    // bay 5 from LocationOrdinalValue), matched by them.
    let (_t2, a, p) = round_trip(t.path());
    let bays: Vec<String> = a["bays"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["bay"].is_number())
        .map(|e| {
            format!(
                "{} {} {} -> {} by {}",
                s(&e["place"]),
                s(&e["status"]),
                s(&e["expected"]),
                s(&e["found"]),
                s(&e["method"])
            )
        })
        .collect();
    assert_eq!(
        bays,
        [
            "Bay 3 ok MZ7L3 -> MZ7L3 by physical-slot",
            "Bay 5 ok PM1733 -> PM1733 by physical-slot",
        ]
    );
    let groups: Vec<String> = p["bays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("{} {} {}", s(&g["bays"]), s(&g["via"]), s(&g["source"])))
        .collect();
    assert_eq!(
        groups,
        [
            "3 controller read off the BMC: the drives of no Storage resource, numbered by their PhysicalLocation",
            "5 direct read off the BMC: the drives of no Storage resource, numbered by their PhysicalLocation",
        ]
    );
}
