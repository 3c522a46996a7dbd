//! The README's output samples are what the binary prints, so they never drift.
//!
//! A sample is a ```text block that starts with `$ laneplan ARGS`, or follows a
//! `<!-- sample: laneplan ARGS -->` comment. Its lines must appear in the output of
//! `laneplan --wide ARGS`, in order; a line of `...` skips any number of output lines, and
//! `...` inside a line skips any text there. `-o FILE` is written to a temporary directory.

use assert_cmd::Command;

struct Sample {
    line: usize,
    args: Vec<String>,
    lines: Vec<String>,
}

fn samples(md: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] != "```text" {
            i += 1;
            continue;
        }
        let start = i;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && lines[i] != "```" {
            body.push(lines[i].to_string());
            i += 1;
        }
        let marker = start
            .checked_sub(1)
            .and_then(|p| lines[p].strip_prefix("<!-- sample: laneplan "))
            .and_then(|m| m.strip_suffix(" -->"));
        let cmd = match (marker, body.first()) {
            (Some(m), _) => m.to_string(),
            (None, Some(first)) if first.starts_with("$ laneplan ") => {
                let mut cmd = first["$ laneplan ".len()..].to_string();
                body.remove(0);
                // A command continued with `\` runs on.
                while cmd.ends_with('\\') && !body.is_empty() {
                    cmd.pop();
                    cmd.push_str(body.remove(0).trim());
                }
                cmd
            }
            _ => continue,
        };
        out.push(Sample {
            line: start + 1,
            args: cmd.split_whitespace().map(String::from).collect(),
            lines: body,
        });
    }
    out
}

/// Whether `line` (with `...` as a wildcard) matches `out`.
fn matches(line: &str, out: &str) -> bool {
    let parts: Vec<&str> = line.split("...").collect();
    if parts.len() == 1 {
        return line.trim_end() == out.trim_end();
    }
    let mut rest = out;
    for (k, p) in parts.iter().enumerate() {
        if k == 0 {
            let Some(r) = rest.strip_prefix(p) else {
                return false;
            };
            rest = r;
        } else if k + 1 == parts.len() && !p.is_empty() {
            return rest.trim_end().ends_with(p.trim_end());
        } else {
            match rest.find(p) {
                Some(at) => rest = &rest[at + p.len()..],
                None => return false,
            }
        }
    }
    true
}

fn check_file(path: &str) {
    let md = std::fs::read_to_string(path).unwrap();
    let found = samples(&md);
    assert!(!found.is_empty(), "{path}: no samples found");
    let tmp = tempfile::tempdir().unwrap();
    for s in &found {
        let mut args = s.args.clone();
        if let Some(o) = args.iter().position(|a| a == "-o" || a == "--output")
            && args[0] == "place"
            && let Some(f) = args.get_mut(o + 1)
        {
            *f = tmp.path().join(&*f).display().to_string();
        }
        let out = Command::cargo_bin("laneplan")
            .unwrap()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .env("LANG", "C.UTF-8")
            .env_remove("LC_ALL")
            .args(["--wide", "--utf8"])
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let got: Vec<&str> = text.lines().collect();
        let mut at = 0;
        let mut skipping = false;
        for want in &s.lines {
            if want.trim() == "..." {
                skipping = true;
                continue;
            }
            let hit = if skipping {
                (at..got.len()).find(|&j| matches(want, got[j]))
            } else {
                (at < got.len() && matches(want, got[at])).then_some(at)
            }
            .or_else(|| {
                // The first sample line may start anywhere in the output.
                (at == 0).then(|| (0..got.len()).find(|&j| matches(want, got[j])))?
            });
            match hit {
                Some(j) => at = j + 1,
                None => panic!(
                    "{path}:{}: `laneplan {}` does not print, here or later:\n{want}\n\
                     --- its output from line {}:\n{}",
                    s.line,
                    s.args.join(" "),
                    at + 1,
                    got[at.min(got.len())..].join("\n")
                ),
            }
            skipping = false;
        }
    }
}

#[test]
fn readme_samples_match_the_binary() {
    check_file("README.md");
}

#[test]
fn a_drifted_sample_is_caught() {
    let md = "<!-- sample: laneplan show r740xd --option front=12nvme-12sas -->\n```text\n\
              CPU1 [48 Gen3 lanes, NUMA 0]\n...\n├─ CPU1 PCIe stack 1 (x16) [inferred]\n\
              │  └─ Slot 1 [x16 Gen3, Riser 1A]\n```\n";
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.md");
    std::fs::write(&p, md).unwrap();
    let r = std::panic::catch_unwind(|| check_file(p.to_str().unwrap()));
    assert!(
        r.is_err(),
        "the old README sample (Slot 1 under stack 1) must fail"
    );
}

#[test]
fn wildcards() {
    assert!(matches("a ... c", "a b c"));
    assert!(matches("warning: x; ...", "warning: x; and more"));
    assert!(!matches("a ... d", "a b c"));
    assert!(matches("abc", "abc  "));
    assert!(!matches("abc", "abcd"));
}
