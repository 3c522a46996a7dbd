//! `laneplan bays`: the view model, the terminal picture and the SVG, for every platform
//! option and every example build.

use laneplan::bays::{BayLayout, BayStatus, GroupKind};
use laneplan::plan::{self, Report};
use laneplan::platform::Catalog;
use laneplan::platform::schema::Interface;
use laneplan::render::bays_svg;
use laneplan::render::bays_text::{self, TextOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn catalog() -> Catalog {
    Catalog::builtin().expect("built-in catalogue loads")
}

/// Every choice of every option, the others at their defaults; each distinct configuration
/// once, named after the first choice that gives it.
fn platform_configs(cat: &Catalog) -> Vec<(String, Report)> {
    let mut out: Vec<(String, Report)> = Vec::new();
    let mut seen: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    for (id, p) in &cat.platforms {
        for o in &p.def.options {
            for c in &o.choices {
                let opts = vec![(o.key.get_ref().clone(), c.value.get_ref().clone())];
                let report = plan::plan_platform(cat, id, &opts).expect("platform plans");
                let key = (id.clone(), report.plan.options.clone());
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                let name = format!("{id}-{}-{}", o.key.get_ref(), c.value.get_ref());
                out.push((name, report));
            }
        }
    }
    out
}

fn example_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["examples", "examples/wrong"] {
        let mut v: Vec<PathBuf> =
            std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
                .expect("examples dir")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
        v.sort();
        out.extend(v);
    }
    out
}

/// Example builds that instantiate, named `example-<dir>-<stem>`.
fn example_configs(cat: &Catalog) -> Vec<(String, Report)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for path in example_files() {
        let rel = path.strip_prefix(root).unwrap_or(&path);
        // Findings name the file as given: keep it relative for stable snapshots.
        let Ok(report) = plan::check_build_file(cat, rel) else {
            continue;
        };
        let name = rel
            .with_extension("")
            .to_string_lossy()
            .replace(['/', '\\'], "-");
        out.push((name, report));
    }
    out
}

pub fn all_configs() -> Vec<(String, BayLayout)> {
    // Paths in findings are relative to the crate root.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("cd to the crate");
    let cat = catalog();
    platform_configs(&cat)
        .into_iter()
        .chain(example_configs(&cat))
        .map(|(n, r)| (n, BayLayout::from_report(&r, &cat)))
        .collect()
}

fn plain() -> TextOptions {
    TextOptions {
        ascii: false,
        color: false,
        width: 120,
        unlimited_tables: false,
    }
}

fn layout_of_example(name: &str) -> BayLayout {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("cd to the crate");
    let cat = catalog();
    let r = plan::check_build_file(&cat, Path::new(name)).expect("example plans");
    BayLayout::from_report(&r, &cat)
}

fn layout_of_platform(id: &str, opts: &[(&str, &str)]) -> BayLayout {
    let cat = catalog();
    let opts: Vec<(String, String)> = opts
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let r = plan::plan_platform(&cat, id, &opts).expect("platform plans");
    BayLayout::from_report(&r, &cat)
}

#[test]
fn every_option_and_every_example_is_covered() {
    let configs = all_configs();
    let cat = catalog();
    let choices: usize = cat
        .platforms
        .values()
        .map(|p| {
            let all: usize = p.def.options.iter().map(|o| o.choices.len()).sum();
            // Each option's default is the same configuration as the others' defaults.
            all - p.def.options.len().saturating_sub(1)
        })
        .sum();
    let examples = example_files().len();
    assert_eq!(
        configs.len(),
        choices + examples,
        "configs: {:?}",
        configs.iter().map(|c| &c.0).collect::<Vec<_>>()
    );
    assert!(
        examples >= 12,
        "expected the 12 example builds, found {examples}"
    );
}

#[test]
fn text_snapshots() {
    for (name, layout) in all_configs() {
        let text = bays_text::render(&layout, &plain());
        insta::assert_snapshot!(format!("text-{name}"), text);
    }
}

#[test]
fn svg_snapshots() {
    for (name, layout) in all_configs() {
        insta::assert_snapshot!(format!("svg-{name}"), bays_svg::render(&layout));
    }
}

#[test]
fn pictures_fit_120_columns_and_ascii_is_ascii() {
    for (name, layout) in all_configs() {
        for p in &layout.panels {
            let pic = bays_text::panel(&layout, p, &plain());
            for line in pic.lines() {
                assert!(
                    line.chars().count() <= 120,
                    "{name}: a panel line is {} columns: {line}",
                    line.chars().count()
                );
            }
            // Every bay of the panel is drawn with its number.
            for row in &p.rows {
                for b in row {
                    assert!(pic.contains(&b.to_string()), "{name}: bay {b} not drawn");
                }
            }
        }
        let ascii = |color: bool| {
            bays_text::render(
                &layout,
                &TextOptions {
                    ascii: true,
                    color,
                    width: 120,
                    unlimited_tables: false,
                },
            )
        };
        let plain = ascii(false);
        let bad: Vec<char> = plain.chars().filter(|c| !c.is_ascii()).collect();
        assert!(bad.is_empty(), "{name}: --ascii output has {bad:?}");
        assert!(
            !plain.contains('\x1b'),
            "{name}: uncoloured output has colour"
        );
        // Colour is independent of the character set (piped ASCII with --color always).
        let coloured = ascii(true);
        assert!(coloured.is_ascii() && coloured.contains("\x1b["), "{name}");
    }
}

#[test]
fn a_24_bay_front_is_one_row_within_120_columns() {
    let layout = layout_of_platform("r740xd", &[]);
    let front = &layout.panels[0];
    assert_eq!(front.rows.len(), 1);
    assert_eq!(front.rows[0], (0..24).collect::<Vec<u32>>());
    let pic = bays_text::panel(&layout, front, &plain());
    let widest = pic.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 120 && widest > 90, "widest line {widest}");
}

#[test]
fn chassis_geometry_follows_the_platform() {
    let lff = layout_of_platform("r740xd", &[("front", "12x3.5-sas")]);
    assert_eq!(
        lff.panels[0].rows,
        vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9, 10, 11]]
    );
    let r6525 = layout_of_platform("r6525", &[]);
    assert_eq!(r6525.form, "1U");
    assert_eq!(r6525.panels[0].rows, vec![(0..10).collect::<Vec<u32>>()]);
    let r6525_lff = layout_of_platform("r6525", &[("chassis", "4x3.5-sas")]);
    assert_eq!(r6525_lff.panels[0].rows, vec![vec![0, 1, 2, 3]]);
    let rear = layout_of_platform("r7415", &[("rear", "2x3.5-sas")]);
    assert_eq!(rear.panels.len(), 2);
    assert_eq!(rear.panels[1].rows, vec![vec![24, 25]]);
    let svg = bays_svg::render(&rear);
    assert!(svg.contains("Rear bays (2 x 3.5&quot;)"));
}

#[test]
fn a_layout_hint_in_a_platform_file_overrides_the_derivation() {
    let (_, text) = laneplan::platform::EMBEDDED
        .iter()
        .find(|(n, _)| n.ends_with("r740xd.toml"))
        .unwrap();
    let marker = "bays = \"0-11\"\nsize = \"3.5\"\n";
    assert!(text.contains(marker));
    // A copy under its own id: a user file never replaces a built-in platform.
    let hinted = text
        .replace(
            marker,
            &format!("{marker}rows = 4\norder = \"column-major\"\n"),
        )
        .replace("id = \"r740xd\"", "id = \"r740xd-hinted\"");
    let mut cat = catalog();
    cat.add_file(laneplan::source::SourceFile::new("hinted.toml", hinted))
        .expect("hinted platform loads");
    let opts = vec![("front".to_string(), "12x3.5-sas".to_string())];
    let r = plan::plan_platform(&cat, "r740xd-hinted", &opts).unwrap();
    let l = BayLayout::from_report(&r, &cat);
    assert_eq!(
        l.panels[0].rows,
        vec![vec![0, 4, 8], vec![1, 5, 9], vec![2, 6, 10], vec![3, 7, 11]]
    );
    // Unknown fields are still refused.
    let typo = text.replace(marker, &format!("{marker}rowz = 4\n"));
    let err = catalog()
        .add_file(laneplan::source::SourceFile::new("typo.toml", typo))
        .unwrap_err();
    assert!(format!("{err:?}").contains("rowz"), "{err:?}");
}

#[test]
fn r740xd_12_nvme_split_across_three_cards_and_the_perc() {
    let l = layout_of_example("examples/r740xd-12nvme-micron9300.toml");
    let expect = [
        (12..=15, "Slot 1", 0u8),
        (16..=19, "Slot 4", 1),
        (20..=23, "Slot 8", 1),
    ];
    for (range, slot, socket) in expect.clone() {
        let mut letters = Vec::new();
        for n in range.clone() {
            let b = l.bay(n).unwrap();
            assert_eq!(b.interface, Interface::Nvme, "bay {n}");
            assert_eq!(b.socket, Some(socket), "bay {n}");
            assert_eq!(b.status, BayStatus::Ok, "bay {n}");
            assert!(b.path.iter().any(|p| p == slot), "bay {n}: {:?}", b.path);
            assert!(b.path.iter().any(|p| p.starts_with("NVMe extender card")));
            assert_eq!(b.link.as_ref().unwrap().text, "Gen3 x4");
            letters.push(b.group_letter.clone());
            let g = l.group(&b.group).unwrap();
            assert_eq!(g.kind, GroupKind::ExtenderCard);
            assert_eq!(g.slot.as_deref(), Some(slot));
            assert_eq!(g.socket, Some(socket));
            assert_eq!(g.uplink.as_ref().unwrap().text, "Gen3 x16");
        }
        letters.dedup();
        assert_eq!(letters.len(), 1, "one group per card");
    }
    for n in 0..12 {
        let b = l.bay(n).unwrap();
        assert_eq!(b.interface, Interface::Sas);
        assert_eq!(b.socket, Some(0));
        assert!(
            b.path.iter().any(|p| p == "PERC H740P Mini"),
            "{:?}",
            b.path
        );
        let g = l.group(&b.group).unwrap();
        assert_eq!(g.kind, GroupKind::Controller);
        assert_eq!(g.card.as_deref(), Some("PERC H740P Mini"));
    }
    assert_eq!(l.groups.len(), 4);
    assert_eq!(l.problem_count(), 0);

    // The same, read from the SVG text.
    let svg = bays_svg::render(&l);
    let doc = roxmltree::Document::parse(&svg).expect("SVG is XML");
    let cpu1 = bays_svg::socket_colours(Some(0)).0;
    let cpu2 = bays_svg::socket_colours(Some(1)).0;
    let bay = |n: u16| {
        doc.descendants()
            .find(|e| e.attribute("id") == Some(&format!("bay-{n}")))
            .unwrap_or_else(|| panic!("bay-{n} in the SVG"))
    };
    let check = |n: u16, colour: &str, class: &str, in_title: &str| {
        let g = bay(n);
        assert!(g.attribute("class").unwrap().contains(class), "bay {n}");
        let rect = g.children().find(|c| c.has_tag_name("rect")).unwrap();
        assert_eq!(rect.attribute("stroke"), Some(colour), "bay {n}");
        let title = g.children().find(|c| c.has_tag_name("title")).unwrap();
        assert!(
            title.text().unwrap().contains(in_title),
            "bay {n}: {:?}",
            title.text()
        );
    };
    for n in 12..=15 {
        check(n, cpu1, "socket-1", "Slot 1");
    }
    for n in 16..=19 {
        check(n, cpu2, "socket-2", "Slot 4");
    }
    for n in 20..=23 {
        check(n, cpu2, "socket-2", "Slot 8");
    }
    for n in 0..12 {
        check(n, cpu1, "socket-1", "PERC H740P Mini");
    }
    // The lane diagram groups them under their cards.
    for (id, bays) in [
        ("group-slot1", "bays: 12-15"),
        ("group-slot4", "bays: 16-19"),
        ("group-slot8", "bays: 20-23"),
        ("group-mini-perc", "bays: 0-11"),
    ] {
        let g = doc
            .descendants()
            .find(|e| e.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("{id}"));
        let title = g.children().find(|c| c.has_tag_name("title")).unwrap();
        assert!(title.text().unwrap().contains(bays), "{id}");
    }
}

#[test]
fn a_generation_drop_is_degraded_and_marked() {
    let l = layout_of_example("examples/r6525-pe8010-gen3-backplane.toml");
    for n in 0..4 {
        let b = l.bay(n).unwrap();
        assert_eq!(b.status, BayStatus::Degraded);
        assert!(b.link.as_ref().unwrap().below_max());
        assert!(
            b.problems.iter().any(|p| p.contains("LP0111")),
            "{:?}",
            b.problems
        );
        assert!(b.tooltip.contains("can do Gen4 x4"), "{}", b.tooltip);
    }
    assert_eq!(l.bay(4).unwrap().status, BayStatus::Empty);
    let svg = bays_svg::render(&l);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let markers: Vec<_> = doc
        .descendants()
        .filter(|e| e.attribute("class") == Some("problem-marker"))
        .filter(|e| {
            e.ancestors()
                .any(|a| a.attribute("id").is_some_and(|id| id.starts_with("bay-")))
        })
        .collect();
    assert_eq!(markers.len(), 4);

    let kit = layout_of_example("examples/r6525-pe8010-gen4-kit.toml");
    for n in 0..4 {
        let b = kit.bay(n).unwrap();
        assert_eq!(b.status, BayStatus::Ok);
        assert!(b.problems.is_empty());
        assert_eq!(b.link.as_ref().unwrap().text, "Gen4 x4");
    }
}

#[test]
fn an_oversubscribed_switch_group_is_marked() {
    let l = layout_of_example("examples/r7415-24nvme-switched.toml");
    assert_eq!(l.groups.len(), 2);
    for g in &l.groups {
        assert_eq!(g.kind, GroupKind::Switch);
        assert_eq!(g.oversubscription, Some(3.0));
        assert_eq!(g.bays.len(), 12);
    }
    let b = l.bay(5).unwrap();
    assert_eq!(b.status, BayStatus::Ok);
    assert!(b.has_problem());
    assert!(
        b.problems.iter().any(|p| p.contains("3:1")),
        "{:?}",
        b.problems
    );
    let text = bays_text::render(&l, &plain());
    assert!(text.contains("3:1 oversubscribed"));
    // The PLX card: four x4 drives under an x16 uplink is not oversubscribed.
    let plx = layout_of_example("examples/r740xd-4x-pm1725-plx.toml");
    let g = plx.group("slot1").unwrap();
    assert_eq!(g.kind, GroupKind::SwitchCard);
    assert_eq!(g.oversubscription, None);
    assert!(
        plx.bay(12)
            .unwrap()
            .path
            .iter()
            .any(|p| p.contains("switch"))
    );
}

#[test]
fn wrong_builds_show_their_problems_where_they_are() {
    let l = layout_of_example("examples/wrong/nvme-in-sas-bay.toml");
    let b3 = l.bay(3).unwrap();
    assert_eq!(b3.status, BayStatus::Empty);
    assert!(b3.problems.iter().any(|p| p.contains("LP0103")));
    // Slots 4 and 8 hold no extender card: their bays are not connected.
    for n in 16..24 {
        let b = l.bay(n).unwrap();
        assert_eq!(b.socket, None, "bay {n}");
        assert_eq!(b.path[0], "not connected");
    }
    assert!(!l.group("slot4").unwrap().problems.is_empty());

    let gpu = layout_of_example("examples/wrong/gpu-in-low-profile-slot.toml");
    let s6 = gpu.slots.iter().find(|s| s.id == "slot6").unwrap();
    assert!(
        s6.problems.iter().any(|p| p.contains("LP0105")),
        "{:?}",
        s6.problems
    );
    let s1 = gpu.slots.iter().find(|s| s.id == "slot1").unwrap();
    assert!(s1.problems.is_empty());

    let lanes = layout_of_example("examples/wrong/lanes-over-budget.toml");
    for id in ["slot6", "mini-perc", "slot5"] {
        let s = lanes.slots.iter().find(|s| s.id == id).unwrap();
        assert!(s.problems.iter().any(|p| p.contains("LP0107")), "{id}");
    }
}

#[test]
fn slots_come_in_physical_order_with_their_sockets() {
    let l = layout_of_example("examples/r740xd-12nvme-micron9300.toml");
    let ids: Vec<&str> = l.slots.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "slot1",
            "slot2",
            "slot3",
            "slot4",
            "slot5",
            "slot6",
            "slot7",
            "slot8",
            "mini-perc",
            "rndc"
        ]
    );
    let s4 = &l.slots[3];
    assert_eq!(s4.socket, Some(1));
    assert_eq!(s4.bays, (16..=19).collect::<Vec<u32>>());
    assert_eq!(s4.width_text(), "x16 FH");
    assert_eq!(l.slots[1].card_short(), "BOSS");
}

#[test]
fn the_audit_can_set_a_bay_status() {
    let mut l = layout_of_example("examples/r740xd-12nvme-micron9300.toml");
    assert!(l.set_bay_status(
        13,
        BayStatus::Missing,
        Some("no NVMe device behind Slot 1 port 1".into())
    ));
    assert!(!l.set_bay_status(99, BayStatus::Missing, None));
    let b = l.bay(13).unwrap();
    assert!(b.has_problem());
    assert!(b.tooltip.contains("status: missing"));
    assert!(b.tooltip.contains("no NVMe device"));
    let text = bays_text::render(&l, &plain());
    assert!(text.contains("MIS"));
    let svg = bays_svg::render(&l);
    assert!(svg.contains(r#"id="bay-13" class="bay status-missing"#));
    // A ceiling from the bandwidth model shows in the tooltip.
    let b = l.bays.iter_mut().find(|b| b.number == 12).unwrap();
    b.ceiling = Some("3.2 GB/s read (drive)".into());
    b.refresh_tooltip();
    assert!(b.tooltip.contains("ceiling: 3.2 GB/s read"));
}

#[test]
fn colour_follows_the_socket_only_when_asked() {
    let l = layout_of_example("examples/r740xd-12nvme-micron9300.toml");
    let coloured = bays_text::render(
        &l,
        &TextOptions {
            ascii: false,
            color: true,
            width: 120,
            unlimited_tables: false,
        },
    );
    let blue = anstyle::AnsiColor::Blue.on_default().render().to_string();
    let yellow = anstyle::AnsiColor::Yellow.on_default().render().to_string();
    assert!(coloured.contains("\x1b["));
    // Bold + colour: check the colour code itself.
    assert!(
        coloured.contains("34m") && coloured.contains("33m"),
        "{blue:?} {yellow:?}"
    );
    assert!(!bays_text::render(&l, &plain()).contains('\x1b'));
}

#[test]
fn svgs_are_xml_with_a_title_on_every_bay_and_slot() {
    for (name, layout) in all_configs() {
        let svg = bays_svg::render(&layout);
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let root = doc.root_element();
        assert!(root.has_tag_name("svg"));
        let w: f64 = root.attribute("width").unwrap().parse().unwrap();
        let h: f64 = root.attribute("height").unwrap().parse().unwrap();
        assert_eq!(w, 1200.0);
        assert!(h > 300.0, "{name}: height {h}");
        let ids: Vec<&str> = doc
            .descendants()
            .filter_map(|e| e.attribute("id"))
            .collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(ids.len(), unique.len(), "{name}: duplicate ids");
        for b in &layout.bays {
            let g = doc
                .descendants()
                .find(|e| e.attribute("id") == Some(&format!("bay-{}", b.number)))
                .unwrap_or_else(|| panic!("{name}: bay {}", b.number));
            let title = g.first_element_child().unwrap();
            assert!(title.has_tag_name("title"));
            assert!(
                title
                    .text()
                    .unwrap()
                    .starts_with(&format!("Bay {}", b.number))
            );
            let marked = g
                .descendants()
                .any(|e| e.attribute("class") == Some("problem-marker"));
            assert_eq!(marked, b.has_problem(), "{name}: bay {} marker", b.number);
        }
        for s in &layout.slots {
            assert!(
                svg.contains(&format!(r#"id="slot-{}""#, s.id)),
                "{name}: slot {}",
                s.id
            );
        }
        // Deterministic.
        assert_eq!(svg, bays_svg::render(&layout), "{name}");
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24, "PNG too short");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR", "first chunk is not IHDR");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}

#[test]
fn svgs_render_to_png_with_rsvg_convert() {
    let probe = std::process::Command::new("rsvg-convert")
        .arg("--version")
        .output();
    assert!(
        probe.as_ref().is_ok_and(|o| o.status.success()),
        "rsvg-convert is missing: install it (Debian: apt-get install librsvg2-bin) to render the bay SVGs; this test does not skip"
    );
    let dir = tempfile::tempdir().unwrap();
    for (name, layout) in all_configs() {
        let svg = bays_svg::render(&layout);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let w: u32 = doc
            .root_element()
            .attribute("width")
            .unwrap()
            .parse()
            .unwrap();
        let h: u32 = doc
            .root_element()
            .attribute("height")
            .unwrap()
            .parse()
            .unwrap();
        let src = dir.path().join(format!("{name}.svg"));
        let png = dir.path().join(format!("{name}.png"));
        std::fs::write(&src, &svg).unwrap();
        let out = std::process::Command::new("rsvg-convert")
            .arg(&src)
            .arg("-o")
            .arg(&png)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: rsvg-convert failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&png).unwrap();
        assert!(bytes.len() > 5_000, "{name}: PNG of {} bytes", bytes.len());
        assert_eq!(png_size(&bytes), (w, h), "{name}");
    }
}

/// The bay view matches findings to bays and slots by their subject only, so every finding
/// the plan locates on its topology (a node path) must carry one: over every example,
/// right and wrong, none is left with a node and no subject. Before subjects were added to
/// the whole-plan checks (LP0107, LP0108, LP0109, LP0111), the bay view split the node path
/// on " > " to find them.
#[test]
fn every_finding_located_on_the_topology_has_a_subject() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("cd to the crate");
    let cat = catalog();
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["examples", "examples/wrong", "examples/hosts"] {
        for e in std::fs::read_dir(dir).expect("examples") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "toml") {
                files.push(p);
            }
        }
    }
    let mut located = 0;
    for f in &files {
        let Ok(r) = plan::check_build_file(&cat, f) else {
            continue;
        };
        for x in &r.findings {
            if x.location.node.is_some() {
                located += 1;
                assert!(
                    x.subject.is_some(),
                    "{}: {} has no subject",
                    f.display(),
                    x.code
                );
            }
        }
    }
    // LP0107 and LP0109 from the wrong examples at least.
    assert!(
        located >= 2,
        "only {located} located findings: the test checks nothing"
    );
}
