//! Issue 18, item 6 through `learn`: a host whose DMI product name and pci.ids vendor name
//! carry an SGR colour sequence, ESC, BEL, DEL and a C1 control is learned, and then
//! `platforms`, `show`, `check`, `bays` and `audit` (with and without `--color always`)
//! never write one of them raw: each is shown as `\u{1b}` text. The SGR in a name had
//! reached the terminal raw through `audit`'s tree and findings (only laneplan's own bay
//! picture may paint).

use crate::common::{laneplan, own_copy};

/// The DMI product name as the host reports it (SGR red, SGR reset, BEL, DEL, C1 CSI).
const DMI: &str = "PowerEdge \u{1b}[31mR740xd\u{1b}[0m\u{7}\u{7f}\u{9b}X";
const DMI_SHOWN: &str = r"PowerEdge \u{1b}[31mR740xd\u{1b}[0m\u{7}\u{7f}\u{9b}X";
const VENDOR: &str = "Micron\u{1b}[1;32mTech\u{1b}[0m";
const VENDOR_SHOWN: &str = r"Micron\u{1b}[1;32mTech\u{1b}[0m";

/// The control characters in `s` other than line feed, tab and (where `painted`) the SGR
/// sequences laneplan paints with; an injected sequence is named.
fn raw_controls(s: &str, painted: bool) -> Vec<String> {
    let mut bad = Vec::new();
    for inj in [
        "\u{1b}[31mR740xd",
        "\u{1b}[1;32mTech",
        "\u{7}",
        "\u{7f}",
        "\u{9b}",
    ] {
        if s.contains(inj) {
            bad.push(format!("{inj:?}"));
        }
    }
    let mut rest = s;
    while let Some(i) = rest.find(|c: char| c.is_control() && c != '\n' && c != '\t') {
        let tail = &rest[i..];
        let sgr = tail.strip_prefix("\u{1b}[").map(|t| {
            let n = t
                .bytes()
                .take_while(|b| b.is_ascii_digit() || *b == b';')
                .count();
            (t.as_bytes().get(n) == Some(&b'm')).then_some(n + 3)
        });
        match sgr.flatten() {
            Some(n) if painted => rest = &tail[n..],
            _ => {
                bad.push(format!("{:?}", tail.chars().take(12).collect::<String>()));
                rest = &tail[tail.chars().next().unwrap().len_utf8()..];
            }
        }
    }
    bad
}

#[test]
fn control_characters_learned_from_a_host_never_reach_the_terminal_raw() {
    let (t, root) = own_copy("r740xd-12nvme");
    std::fs::write(
        root.join("sys/class/dmi/id/product_name"),
        format!("{DMI}\n"),
    )
    .unwrap();
    let ids = std::fs::read_to_string(crate::common::fixtures().join("pci.ids")).unwrap();
    assert!(ids.contains("Micron Technology Inc"));
    let ids_path = t.path().join("pci.ids");
    std::fs::write(&ids_path, ids.replace("Micron Technology Inc", VENDOR)).unwrap();
    let out_dir = t.path().join("learned");
    let learn = laneplan()
        .args(["learn", "--sysfs-root"])
        .arg(&root)
        .arg("--pci-ids")
        .arg(&ids_path)
        .args(["--id", "nasty", "-o"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&learn.stderr).to_string();
    let out = String::from_utf8_lossy(&learn.stdout).to_string();
    assert_eq!(learn.status.code(), Some(0), "{err}");
    assert_eq!(
        raw_controls(&format!("{out}{err}"), false),
        Vec::<String>::new()
    );
    // The learned platform keeps the name, its controls as visible escapes.
    let plat = std::fs::read_to_string(out_dir.join("platform/nasty.toml")).unwrap();
    assert!(plat.contains(DMI_SHOWN), "{plat}");
    assert_eq!(raw_controls(&plat, false), Vec::<String>::new());
    let pdir = out_dir.join("platform");
    let build = out_dir.join("build.toml");
    let (b, r, i) = (
        build.to_str().unwrap(),
        root.to_str().unwrap(),
        ids_path.to_str().unwrap(),
    );
    let cases: [(&[&str], &str); 7] = [
        (&["platforms"], DMI_SHOWN),
        (&["show", "nasty"], DMI_SHOWN),
        (&["check", b], DMI_SHOWN),
        (&["bays", b], DMI_SHOWN),
        (&["bays", b, "--sysfs-root", r, "--pci-ids", i], DMI_SHOWN),
        (&["audit", "--sysfs-root", r, "--pci-ids", i], VENDOR_SHOWN),
        (
            &["audit", "--sysfs-root", r, "--pci-ids", i, "--against", b],
            VENDOR_SHOWN,
        ),
    ];
    for (args, shown) in cases {
        for color in ["never", "always"] {
            let o = laneplan()
                .args(["--wide", "--color", color, "--platform-dir"])
                .arg(&pdir)
                .args(args)
                .output()
                .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                o.status.code().is_some_and(|c| c <= 1),
                "{args:?}: exit {:?}\n{text}",
                o.status.code()
            );
            let bad = raw_controls(&text, color == "always");
            assert!(
                bad.is_empty(),
                "{args:?} --color {color}: raw {bad:?} in\n{text}"
            );
            assert!(
                text.contains(shown),
                "{args:?} --color {color}: no {shown} in\n{text}"
            );
        }
    }
}
