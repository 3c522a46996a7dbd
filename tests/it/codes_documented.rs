//! Every finding code the sources can emit is documented in docs/ (a user who sees `LP0418`
//! can look it up), and no code is documented twice with different meanings.

use std::collections::BTreeSet;
use std::path::Path;

fn codes_in(text: &str) -> BTreeSet<String> {
    let b = text.as_bytes();
    let mut out = BTreeSet::new();
    for i in 0..b.len().saturating_sub(5) {
        if &b[i..i + 2] == b"LP"
            && b[i + 2..i + 6].iter().all(u8::is_ascii_digit)
            && b.get(i + 6).is_none_or(|c| !c.is_ascii_digit())
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
        {
            out.insert(text[i..i + 6].to_string());
        }
    }
    out
}

fn files(dir: &Path, ext: &str, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

#[test]
fn every_emitted_code_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut src = Vec::new();
    files(&root.join("src"), "rs", &mut src);
    let mut emitted = BTreeSet::new();
    for p in &src {
        // Quoted codes only: `"LP0418"` is a code the program can print.
        let text = std::fs::read_to_string(p).unwrap();
        for c in codes_in(&text) {
            if text.contains(&format!("\"{c}\"")) {
                emitted.insert(c);
            }
        }
    }
    assert!(emitted.len() > 40, "found only {} codes", emitted.len());
    let mut docs = Vec::new();
    files(&root.join("docs"), "md", &mut docs);
    let documented: BTreeSet<String> = docs
        .iter()
        .flat_map(|p| codes_in(&std::fs::read_to_string(p).unwrap()))
        .collect();
    let missing: Vec<_> = emitted.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "codes emitted but not in docs/: {missing:?}"
    );
}

/// docs/FINDINGS.md's table is the typed code table (`finding::CODES`), and every quoted code
/// in the sources is in that table.
#[test]
fn findings_md_is_the_code_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut table = String::from("| code | name | severity | meaning |\n|---|---|---|---|\n");
    for c in laneplan::finding::CODES {
        table.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            c.code, c.name, c.severity, c.summary
        ));
    }
    let path = root.join("docs/FINDINGS.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (head, rest) = doc.split_once("<!-- codes:begin -->\n").unwrap();
    let (_, tail) = rest.split_once("<!-- codes:end -->").unwrap();
    let want = format!("{head}<!-- codes:begin -->\n{table}<!-- codes:end -->{tail}");
    if std::env::var_os("LANEPLAN_WRITE_FINDINGS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(doc, want, "docs/FINDINGS.md differs from finding::CODES");
    let mut src = Vec::new();
    files(&root.join("src"), "rs", &mut src);
    let known: BTreeSet<&str> = laneplan::finding::CODES
        .iter()
        .map(|c| c.code.as_str())
        .collect();
    for p in &src {
        let text = std::fs::read_to_string(p).unwrap();
        for c in codes_in(&text) {
            if text.contains(&format!("\"{c}\"")) {
                assert!(
                    known.contains(c.as_str()),
                    "{c} in {} is not in finding::CODES",
                    p.display()
                );
            }
        }
    }
}

/// `Code` is the table: in string order, each parses back from its string, serialises as
/// that string, and the refusals are exactly the probe's refusal codes.
#[test]
fn the_code_enum_is_the_table() {
    use laneplan::finding::{CODES, Code, Level};
    assert_eq!(Code::ALL.len(), CODES.len());
    for (c, d) in Code::ALL.iter().zip(CODES) {
        assert_eq!(*c, d.code);
        assert_eq!(c.def(), *d);
        assert_eq!(Code::parse(c.as_str()), Some(*c));
        assert_eq!(
            serde_json::to_string(c).unwrap(),
            format!("\"{}\"", c.as_str())
        );
    }
    assert!(Code::ALL.windows(2).all(|w| w[0].as_str() < w[1].as_str()));
    assert!(Code::ALL.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(Code::parse("LP9999"), None);
    assert_eq!(Code::Downtrained.as_str(), "LP0302");
    assert_eq!(Code::Downtrained.level(), Level::Error);
    let refusals: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| c.level() == Level::Refusal)
        .map(|c| c.as_str())
        .collect();
    assert_eq!(
        refusals,
        [
            "LP0401", "LP0402", "LP0403", "LP0404", "LP0405", "LP0406", "LP0407", "LP0408",
            "LP0409", "LP0419"
        ]
    );
}
