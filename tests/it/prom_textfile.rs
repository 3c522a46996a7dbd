//! The node_exporter textfile (`audit --prometheus`) against the text exposition format:
//! a strict parser here (names, label syntax and escapes, HELP/TYPE once and before the
//! samples, families contiguous, no duplicate series, counters `_total`, one label set per
//! family (node_exporter's textfile collector rejects a family whose series differ in label
//! names; an unknown value is empty instead), final newline), `promtool check metrics`
//! (required: the test fails without promtool), and the file mode (0666 less the umask).

use crate::common;

use assert_cmd::Command;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;

pub(crate) type Series = (String, Vec<(String, String)>);

/// Parses a textfile by the exposition rules; `Err` names the first broken rule and line.
pub(crate) fn parse_strict(text: &str) -> Result<Vec<(Series, f64)>, String> {
    if !text.ends_with('\n') {
        return Err("does not end with a newline".into());
    }
    let metric_name = |n: &str| {
        let mut c = n.chars();
        matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_' || ch == ':')
            && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == ':')
    };
    let label_name = |n: &str| {
        let mut c = n.chars();
        !n.starts_with("__")
            && matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
            && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
    };
    let mut help = BTreeSet::new();
    let mut types: BTreeMap<String, String> = BTreeMap::new();
    let mut done_families = BTreeSet::new();
    let mut current: Option<String> = None;
    let mut seen = BTreeSet::new();
    let mut label_sets: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |m: &str| format!("line {}: {m}: {line:?}", i + 1);
        if line.is_empty() {
            return Err(at("empty line"));
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, h) = rest
                .split_once(' ')
                .ok_or_else(|| at("HELP without text"))?;
            if !metric_name(name) || h.trim().is_empty() || !help.insert(name.to_string()) {
                return Err(at("bad or repeated HELP"));
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, t) = rest
                .split_once(' ')
                .ok_or_else(|| at("TYPE without type"))?;
            if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&t) {
                return Err(at("unknown type"));
            }
            if !metric_name(name) || types.insert(name.into(), t.into()).is_some() {
                return Err(at("bad or repeated TYPE"));
            }
            if done_families.contains(name) {
                return Err(at("TYPE after the family's samples"));
            }
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        // name{labels} value
        let (name, rest) = match line.find(['{', ' ']) {
            Some(p) => line.split_at(p),
            None => return Err(at("no value")),
        };
        if !metric_name(name) {
            return Err(at("bad metric name"));
        }
        let mut labels = Vec::new();
        let mut rest = rest;
        if let Some(mut r) = rest.strip_prefix('{') {
            loop {
                if let Some(after) = r.strip_prefix('}') {
                    r = after;
                    break;
                }
                let eq = r.find('=').ok_or_else(|| at("label without ="))?;
                let k = &r[..eq];
                if !label_name(k) {
                    return Err(at("bad label name"));
                }
                r = r[eq + 1..]
                    .strip_prefix('"')
                    .ok_or_else(|| at("unquoted label value"))?;
                let mut v = String::new();
                let mut chars = r.char_indices();
                let end = loop {
                    match chars.next() {
                        None => return Err(at("unterminated label value")),
                        Some((p, '"')) => break p,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, '\\')) => v.push('\\'),
                            Some((_, '"')) => v.push('"'),
                            Some((_, 'n')) => v.push('\n'),
                            _ => return Err(at("bad escape")),
                        },
                        Some((_, c)) => v.push(c),
                    }
                };
                if labels.iter().any(|(n, _)| n == k) {
                    return Err(at("repeated label"));
                }
                labels.push((k.to_string(), v));
                r = &r[end + 1..];
                if let Some(after) = r.strip_prefix(',') {
                    r = after;
                } else if !r.starts_with('}') {
                    return Err(at("labels not separated by ,"));
                }
            }
            rest = r;
        }
        let rest = rest
            .strip_prefix(' ')
            .ok_or_else(|| at("no space before value"))?;
        let mut parts = rest.split(' ');
        let value = parts.next().unwrap_or_default();
        let v = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            "NaN" => f64::NAN,
            _ => value.parse::<f64>().map_err(|_| at("bad value"))?,
        };
        if let Some(ts) = parts.next() {
            ts.parse::<i64>().map_err(|_| at("bad timestamp"))?;
        }
        if parts.next().is_some() {
            return Err(at("trailing fields"));
        }
        let Some(t) = types.get(name) else {
            return Err(at("sample without TYPE"));
        };
        if !help.contains(name) {
            return Err(at("sample without HELP"));
        }
        if t == "counter" && !name.ends_with("_total") {
            return Err(at("counter not named _total"));
        }
        if current.as_deref() != Some(name) {
            if !done_families.insert(name.to_string()) {
                return Err(at("family split"));
            }
            current = Some(name.to_string());
        }
        let names: Vec<String> = labels.iter().map(|(k, _)| k.clone()).collect();
        if label_sets
            .entry(name.to_string())
            .or_insert_with(|| names.clone())
            != &names
        {
            return Err(at("label set differs within the family"));
        }
        let mut key = labels.clone();
        key.sort();
        if !seen.insert((name.to_string(), key)) {
            return Err(at("duplicate series"));
        }
        out.push(((name.to_string(), labels), v));
    }
    Ok(out)
}

#[test]
fn the_strict_parser_rejects_what_it_should() {
    let ok = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 2\n";
    assert_eq!(parse_strict(ok).unwrap().len(), 1);
    for (bad, why) in [
        (
            "# HELP a A.\n# TYPE a gauge\na 1",
            "does not end with a newline",
        ),
        (
            "# HELP a A.\n# TYPE a counter\na 1\n",
            "counter not named _total",
        ),
        (
            "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\na{x=\"2\",y=\"3\"} 1\n",
            "label set differs within the family",
        ),
        (
            "# HELP a A.\n# TYPE a gauge\na 1\na 2\n",
            "duplicate series",
        ),
        ("# TYPE a gauge\na 1\n", "sample without HELP"),
        ("# HELP a A.\na 1\n", "sample without TYPE"),
        (
            "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\n# HELP b B.\n# TYPE b gauge\nb 1\na{x=\"2\"} 1\n",
            "family split",
        ),
        (
            "# HELP a A.\n# TYPE a gauge\na{x=\"\\t\"} 1\n",
            "bad escape",
        ),
        (
            "# HELP a A.\n# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n",
            "repeated label",
        ),
        ("# HELP a A.\n# TYPE a gauge\na one\n", "bad value"),
    ] {
        let e = parse_strict(bad).unwrap_err();
        assert!(e.contains(why), "{bad:?}: {e}");
    }
}

/// Runs `audit --prometheus` on the R740xd capture under `umask`; returns text and mode.
fn textfile(umask: &str) -> (String, u32) {
    let t = tempfile::tempdir().unwrap();
    let prom = t.path().join("laneplan.prom");
    let bin = assert_cmd::cargo::cargo_bin("laneplan");
    Command::new("sh")
        .args(["-c", &format!("umask {umask} && exec \"$0\" \"$@\"")])
        .arg(&bin)
        .args(["audit", "--sysfs-root"])
        .arg(fixtures().join("sysfs").join("r740xd-12nvme"))
        .arg("--pci-ids")
        .arg(fixtures().join("pci.ids"))
        .arg("--prometheus")
        .arg(&prom)
        .assert()
        .code(1);
    let mode = std::fs::metadata(&prom).unwrap().permissions().mode() & 0o7777;
    (std::fs::read_to_string(&prom).unwrap(), mode)
}

#[test]
fn textfile_follows_node_exporters_rules() {
    let (text, mode) = textfile("022");
    assert_eq!(mode, 0o644, "node_exporter must be able to read it");
    let samples = parse_strict(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(samples.len(), 214);
    let find = |name: &str, bdf: &str, extra: Option<(&str, &str)>| {
        samples
            .iter()
            .find(|((n, l), _)| {
                n == name
                    && l.iter().any(|(k, v)| k == "pci" && v == bdf)
                    && extra.is_none_or(|(ek, ev)| l.iter().any(|(k, v)| k == ek && v == ev))
            })
            .unwrap_or_else(|| panic!("{name} {bdf}"))
    };
    // A drive in a slot, no bay: every label, the bay empty; the kernel's name to join
    // node_exporter's disk series (nvme5n1) and the serial.
    let ((_, l), v) = find("laneplan_pcie_link_downtrained", "0000:b0:00.0", None);
    assert_eq!(*v, 1.0);
    let labels: Vec<(&str, &str)> = l.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        labels,
        [
            ("pci", "0000:b0:00.0"),
            ("device", "nvme5n1"),
            ("serial", "1941002A5F06"),
            ("slot", "4-2"),
            ("bay", ""),
            ("model", "Micron_9300_MTFDHAL3T8TDP")
        ]
    );
    // A root port: the same labels, empty where it has none; its AER total is a counter.
    let ((_, l), v) = find(
        "laneplan_pcie_aer_errors_total",
        "0000:5d:02.0",
        Some(("aer_severity", "correctable")),
    );
    assert_eq!(*v, 57.0);
    let keys: Vec<&str> = l.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "pci",
            "device",
            "serial",
            "slot",
            "bay",
            "model",
            "aer_severity"
        ]
    );
    assert!(text.contains("# TYPE laneplan_pcie_aer_errors_total counter\n"));
    // Base units only: transfers (not GT) per second.
    assert!(!text.contains("_gts") && !text.contains("_gbs"), "{text}");
    let ((_, _), v) = find(
        "laneplan_pcie_link_speed_transfers_per_second",
        "0000:b0:00.0",
        None,
    );
    assert_eq!(*v, 8e9);

    // The umask is applied, like `>` does.
    let (_, mode) = textfile("027");
    assert_eq!(mode, 0o640);
}

#[test]
fn textfile_passes_promtool() {
    let (text, _) = textfile("022");
    let run = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = run.unwrap_or_else(|e| {
        panic!("promtool not runnable ({e}): run scripts/test.sh, which installs it")
    });
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "promtool: {said}");
    // promtool's lint (names, units, counters) says nothing either.
    assert_eq!(said.trim(), "", "promtool lint: {said}");
}
