//! Completions run in their shells (bash, zsh, fish: required, scripts/test.sh installs them):
//! enumerated flags complete their values, platform, option and part ids come from the
//! hidden `laneplan complete`; `--help` lists enumerated values; every enumerated flag and
//! `--part` suggest the nearest value; `parts SEARCH`.

use crate::common::*;
use std::path::PathBuf;
use std::process::Command;

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("laneplan")
}

fn script(shell: &str) -> String {
    let (code, out, err) = run(laneplan().args(["completions", shell]));
    assert_eq!(code, 0, "{err}");
    out
}

/// Runs `code` in `shell` with the binary's directory first on PATH; stdout.
fn in_shell(shell: &str, args: &[&str], code: &str) -> String {
    let dir = bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(shell)
        .args(args)
        .arg(code)
        .env("PATH", path)
        .output()
        .unwrap_or_else(|e| {
            panic!("{shell} not runnable ({e}): run scripts/test.sh, which installs it")
        });
    assert!(
        out.status.success(),
        "{shell}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Bash's candidates for `line` (cursor at its end), as bash calls the function: COMP_LINE,
/// COMP_POINT and COMP_WORDS split at `=` as COMP_WORDBREAKS does.
fn bash_complete(lines: &[&str]) -> Vec<Vec<String>> {
    let t = tempfile::tempdir().unwrap();
    let s = t.path().join("laneplan.bash");
    std::fs::write(&s, script("bash")).unwrap();
    let mut code = format!(
        r#"source {}
t() {{
    COMP_LINE="$1"; COMP_POINT=${{#COMP_LINE}}
    read -ra COMP_WORDS <<< "${{COMP_LINE//=/ = }}"
    [[ $COMP_LINE == *" " || $COMP_LINE == *= ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMPREPLY=()
    _laneplan_ids laneplan "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
    echo "${{COMPREPLY[*]}}"
}}
"#,
        s.display()
    );
    for l in lines {
        code.push_str(&format!("t '{l}'\n"));
    }
    let out = in_shell("bash", &["-c"], &code);
    out.lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

const MELLANOX: [&str; 4] = [
    "mellanox-cx4lx-25g",
    "mellanox-cx5-100g",
    "mellanox-cx6-100g-1p",
    "mellanox-cx6dx-100g",
];

#[test]
fn bash_completes_enumerated_values_and_ids() {
    let cases: &[(&str, &[&str])] = &[
        // Enumerated flags: their values, from clap's script.
        ("laneplan parts --class nv", &["nvme"]),
        ("laneplan place r740xd --objective ba", &["balanced"]),
        ("laneplan --color al", &["always"]),
        (
            "laneplan probe --profile 4k-rand",
            &["4k-randread", "4k-randwrite"],
        ),
        ("laneplan place r740xd --devices nv", &["nvme"]),
        ("laneplan flow b.toml --link-model tl", &["tlp-level"]),
        ("laneplan flow b.toml --workload 4", &["4k"]),
        ("laneplan probe --engine io", &["io_uring"]),
        ("laneplan probe --rw randr", &["randread", "randrw"]),
        // Ids from the catalogue.
        ("laneplan place r740xd --part mell", &MELLANOX),
        ("laneplan show r75", &["r7515", "r7525"]),
        (
            "laneplan place --part mellanox-cx5-100g r74",
            &["r740xd", "r7415", "r7425"],
        ),
        ("laneplan audit --platform r742", &["r7425"]),
        // CPUs and I/O stacks of platforms/cpus.toml and stacks.toml.
        (
            "laneplan check b.toml --stack io-",
            &["io-uring", "io-uring-polled"],
        ),
        ("laneplan flow b.toml --cpu epyc-735", &["epyc-7351p"]),
        // An option of the platform named before it; after `=`, the value part.
        ("laneplan show r740xd -O front=24", &["24-sas", "24nvme"]),
        (
            "laneplan show r740xd --option fr",
            &[
                "front=12nvme-12sas",
                "front=12x3.5-sas",
                "front=24-sas",
                "front=24nvme",
            ],
        ),
    ];
    let lines: Vec<&str> = cases.iter().map(|(l, _)| *l).collect();
    let got = bash_complete(&lines);
    for ((line, want), got) in cases.iter().zip(&got) {
        assert_eq!(got, want, "{line}");
    }
}

fn sorted(words: &[&str]) -> String {
    let out = Command::new("sort")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(words.join("\n").as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn fish_completes_ids_and_values() {
    let t = tempfile::tempdir().unwrap();
    let s = t.path().join("laneplan.fish");
    std::fs::write(&s, script("fish")).unwrap();
    let code = format!(
        "source {}; for l in 'laneplan place r740xd --part mell' 'laneplan show r75' \
         'laneplan show r740xd --option front=24' 'laneplan parts --class nv'; \
         complete -C $l | sort | string join ' '; end; true",
        s.display()
    );
    let out = in_shell("fish", &["-c"], &code);
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(
        got,
        [
            MELLANOX.join(" ").as_str(),
            "r7515 r7525",
            // sort(1)'s order under the test's locale, as fish's own order differs.
            sorted(&["front=24-sas", "front=24nvme"]).as_str(),
            "nvme",
        ],
        "{out}"
    );
}

/// zsh: the script loads under compinit, `_arguments` hands `--part`, `-o`/`--option` and
/// the platform positional to `_laneplan_ids`, which offers what `laneplan complete` says.
#[test]
fn zsh_hands_ids_to_laneplan_complete() {
    let z = script("zsh");
    for (section, line) in [
        ("(place)", "'*--part=["),
        ("(show)", "'*-O+["),
        ("(show)", "':platform -- "),
    ] {
        let body = &z[z.find(section).unwrap()..];
        let l = body.lines().find(|l| l.starts_with(line)).unwrap();
        assert!(l.contains(":_laneplan_ids "), "{l}");
    }
    let t = tempfile::tempdir().unwrap();
    let s = t.path().join("_laneplan");
    std::fs::write(&s, &z).unwrap();
    let code = format!(
        r#"autoload -U compinit && compinit -u -d {dump}
source {s}
compadd() {{ print -l -- ${{(P)${{@[-1]}}}} }}
words=(laneplan place r740xd --part mell); CURRENT=5; PREFIX=mell
_laneplan_ids part
words=(laneplan show r740xd -O front=24); CURRENT=5; PREFIX=front=24
_laneplan_ids option
"#,
        dump = t.path().join("zcompdump").display(),
        s = s.display()
    );
    let out = in_shell("zsh", &["-c"], &code);
    let got: Vec<&str> = out.lines().collect();
    let mut want = MELLANOX.to_vec();
    want.extend(["front=24-sas", "front=24nvme"]);
    assert_eq!(got, want, "{out}");
}

#[test]
fn complete_helper_lists_ids_by_prefix() {
    let (code, out, _) = run(laneplan().args(["complete", "part", "MELL"]));
    assert_eq!(code, 0);
    assert_eq!(out.lines().collect::<Vec<_>>(), MELLANOX);
    let (_, out, _) = run(laneplan().args(["complete", "profile", "oracle"]));
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["oracle", "oracle-80-20", "oracle-90-10"]
    );
    let (_, out, _) = run(laneplan().args(["complete", "platform", "r6"]));
    assert_eq!(out, "r6515\nr6525\nr6615\n");
    // Hidden from the help.
    let (_, help, _) = run(laneplan().arg("--help"));
    assert!(
        !help.contains("complete ") && help.contains("completions"),
        "{help}"
    );
}

#[test]
fn help_lists_enumerated_values() {
    let (_, out, _) = run(laneplan().args(["place", "--help"]));
    assert!(
        out.contains("[possible values: auto, read, write, mixed, balanced, served]"),
        "{out}"
    );
    let (_, out, _) = run(laneplan().args(["parts", "--help"]));
    assert!(out.contains("[possible values: nvme, sas-drive,"), "{out}");
}

/// Every enumerated flag names the value a typo meant (clap's tip), exit 2.
#[test]
fn did_you_mean_for_every_enumerated_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["parts", "--class", "nvmee"], "nvme"),
        (
            &["place", "r740xd", "--part", "x", "--objective", "balancd"],
            "balanced",
        ),
        (&["parts", "--color", "alway"], "always"),
        (&["probe", "--profile", "4k-randred", "x"], "4k-randread"),
        (
            &["place", "r740xd", "--part", "x", "--devices", "nvm"],
            "nvme",
        ),
        (&["flow", "b.toml", "--link-model", "tlp-levl"], "tlp-level"),
        (&["flow", "b.toml", "--workload", "seqq"], "seq"),
        (&["probe", "--engine", "io-uring", "x"], "io_uring"),
        (&["probe", "--rw", "randred", "x"], "randread"),
    ];
    for (args, want) in cases {
        let (code, _, err) = run(laneplan().args(*args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(&format!("a similar value exists: '{want}'")),
            "{args:?}: {err}"
        );
    }
}

/// `--part cx5` and an unknown part in a build file suggest the ids the word is a search for.
#[test]
fn part_ids_suggest_what_was_meant() {
    let (code, _, err) = run(laneplan().args(["place", "r740xd", "--part", "cx5"]));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `mellanox-cx5-100g`?"), "{err}");
    let (_, _, err) = run(laneplan().args(["place", "r740xd", "--part", "connectx"]));
    assert!(
        err.contains(
            "did you mean one of `mellanox-cx4lx-25g`, `mellanox-cx5-100g`, `mellanox-cx6-100g-1p`, `mellanox-cx6dx-100g`?"
        ),
        "{err}"
    );
    // A typo stays a typo: one near id.
    let (_, _, err) = run(laneplan().args(["place", "r740xd", "--part", "mellanox-cx5-100"]));
    assert!(err.contains("did you mean `mellanox-cx5-100g`?"), "{err}");
    // In a build file (LP0102).
    let t = tempfile::tempdir().unwrap();
    let build = std::fs::read_to_string("examples/r740xd-12nvme-micron9300.toml").unwrap();
    let bad = build.replacen("\"broadcom-57414-rndc\"", "\"connectx5\"", 1);
    assert_ne!(bad, build);
    let f = t.path().join("b.toml");
    std::fs::write(&f, bad).unwrap();
    let (code, out, err) = run(laneplan().arg("check").arg(&f));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("unknown part `connectx5`"), "{out}");
    assert!(out.contains("mellanox-cx5-100g"), "{out}");
}

#[test]
fn parts_search_filters_by_id_name_and_vendor() {
    let ids = |args: &[&str]| -> Vec<String> {
        let (code, out, err) = run(laneplan().arg("parts").args(args).arg("--json"));
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect()
    };
    // Name (ConnectX-5), id (cx5), case ignored, punctuation ignored.
    for q in ["connectx-5", "CX5", "ConnectX5"] {
        assert_eq!(ids(&[q]), ["mellanox-cx5-100g"], "{q}");
    }
    assert_eq!(ids(&["mellanox"]), MELLANOX);
    // The PCI vendor (pci.ids: 1000 is "Broadcom / LSI"), in neither id nor name.
    let lsi = ids(&["broadcom / lsi"]);
    assert!(lsi.contains(&"perc-h740p-mini".to_string()), "{lsi:?}");
    assert!(lsi.contains(&"hba330-mini".to_string()), "{lsi:?}");
    // With --class too.
    assert_eq!(ids(&["mellanox", "--class", "nvme"]), Vec::<String>::new());
    // Text, piped: the row is there; nothing found is exit 1 with a word.
    let (code, out, _) = run(laneplan().args(["parts", "cx5"]));
    assert_eq!(code, 0);
    assert!(
        out.contains("mellanox-cx5-100g") && !out.contains("cx4lx"),
        "{out}"
    );
    let (code, out, err) = run(laneplan().args(["parts", "no-such-part"]));
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("no part's id, name or vendor contains `no-such-part`"),
        "{err}"
    );
}
