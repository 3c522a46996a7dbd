//! A platform of another vendor, with slot kinds of its own (`ocp-nic`, `m2-riser`), loads
//! from `--platform-dir`, checks a build, and draws with `show` and `bays`: platforms are
//! data, and no code names a vendor's slots.

use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/platforms")
}

fn laneplan(args: &[&str]) -> (i32, String, String) {
    let dir = fixtures().join("other-vendor");
    crate::common::run(
        crate::common::laneplan()
            .env("NO_COLOR", "1")
            .arg("--platform-dir")
            .arg(dir)
            .args(args),
    )
}

#[test]
fn the_library_loads_its_slot_kinds_in_declaration_order() {
    let cat = laneplan::platform::Catalog::with_dir(Some(&fixtures().join("other-vendor")))
        .expect("loads");
    let p = cat.platform("acme-g1u").expect("platform");
    let kinds: Vec<(&str, &str, Option<&str>, u16)> = p
        .slot_kinds
        .iter()
        .map(|k| (k.id.as_str(), k.label.as_str(), k.short.as_deref(), k.order))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("pcie", "PCIe", None, 0),
            ("ocp-nic", "OCP NIC", Some("OCP"), 1),
            ("m2-riser", "M.2 riser", Some("M.2 riser"), 2),
        ]
    );
    // Ids are lowercase; lookups ignore case.
    assert!(cat.platform("ACME-G1U").is_some());
}

#[test]
fn a_build_on_it_checks_clean() {
    let build = fixtures().join("other-vendor-build.toml");
    let (code, out, err) = laneplan(&["check", build.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("OCP NIC slot"), "{out}");
    assert!(out.contains("Acme OCP NIC 2 x 25GbE"), "{out}");
    assert!(out.contains("Boot M.2 riser"), "{out}");
    assert!(out.contains("Acme M.2 boot module"), "{out}");
    assert!(!out.contains("error["), "{out}");
}

#[test]
fn show_and_bays_draw_it() {
    let (code, out, err) = laneplan(&["show", "acme-g1u"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("OCP NIC slot [x8"), "{out}");
    assert!(out.contains("Bay 7"), "{out}");

    let build = fixtures().join("other-vendor-build.toml");
    let (code, out, err) = laneplan(&["bays", build.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // The chassis view names the slots by the kinds' `short`, in declaration order.
    let slot1 = out.find("Slot 1").expect("Slot 1 drawn");
    let ocp = out.find("OCP").expect("OCP slot drawn");
    let m2 = out.find("M.2 riser").expect("M.2 riser drawn");
    assert!(slot1 < ocp && ocp < m2, "{out}");

    let (code, out, err) = laneplan(&["bays", build.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let text = v.to_string();
    assert!(text.contains("\"kind\":\"ocp-nic\""), "{text}");
    assert!(text.contains("\"kind\":\"m2-riser\""), "{text}");
}

#[test]
fn a_card_in_a_slot_of_another_kind_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let build = dir.path().join("wrong.toml");
    std::fs::write(
        &build,
        "platform = \"acme-g1u\"\n\n[[slot]]\nslot = \"slot1\"\npart = \"acme-ocp-2x25g\"\n",
    )
    .unwrap();
    let (code, out, err) = laneplan(&["check", build.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("Acme OCP NIC 2 x 25GbE does not fit Slot 1 (a PCIe slot)"),
        "{out}"
    );
    assert!(out.contains("it fits: OCP NIC slots"), "{out}");
}
