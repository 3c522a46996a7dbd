//! The `learn_writer` fuzz target's property over its committed corpus (the real captures),
//! so it holds without nightly too: whatever `learn` makes of the facts is refused with a
//! reason or, written as the CLI writes it, loads with `--platform-dir` and passes `check`.
//! The real captures must not be refused.

use laneplan::finding::Severity;
use laneplan::learn::{self, LearnOptions, LearnedId};
use laneplan::platform::Catalog;
use std::path::Path;

/// The target's harness (fuzz/fuzz_targets/learn_writer.rs), returning the refusal if any.
fn property(data: &[u8], cat: &Catalog) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(4, '\n');
    let product = lines.next().unwrap_or_default();
    let cpu = lines.next().unwrap_or_default();
    let id = lines.next().unwrap_or_default();
    let dump = lines.next().unwrap_or_default();
    let mut host = learn::read_lspci(dump, "fuzz.lspci-vvnn.txt");
    host.audit.product = (!product.is_empty()).then(|| product.to_string());
    host.cpu = (!cpu.is_empty()).then(|| cpu.to_string());
    let opts = LearnOptions {
        id: LearnedId::parse(id).ok(),
        compare: None,
    };
    let learned = learn::learn(&host, cat, &opts);
    learn::loads(&learned, cat)?;
    let dir = tempfile::tempdir().unwrap();
    learn::write(&learned, dir.path(), false).unwrap();
    let loaded = Catalog::with_dir(Some(&dir.path().join("platform")))
        .unwrap_or_else(|e| panic!("the written platform does not load: {e:?}"));
    assert!(loaded.platform(learned.id.as_str()).is_some());
    let report = laneplan::plan::check_build_file(&loaded, &dir.path().join("build.toml"))
        .unwrap_or_else(|e| panic!("the written build does not load: {e:?}"));
    let errors: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{} {}", f.code, f.message))
        .collect();
    assert!(
        errors.is_empty(),
        "the written build fails check: {errors:?}"
    );
    Ok(())
}

#[test]
fn the_learn_writer_corpus_loads_or_is_refused_with_a_reason() {
    let cat = Catalog::builtin().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/learn_writer");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["names-controls", "r740xd", "r7515-head", "r7525"]);
    for name in &names {
        let data = std::fs::read(dir.join(name)).unwrap();
        match property(&data, &cat) {
            Ok(()) => {}
            Err(why) => {
                assert!(!why.is_empty(), "{name}: refused without a reason");
                // The real captures learn; only the synthetic seeds may be refused.
                assert!(
                    !["r740xd", "r7525"].contains(&name.as_str()),
                    "{name}: refused: {why}"
                );
            }
        }
    }
    // Mutations of the R7525 seed the fuzzer would try first: controls in the product name,
    // a bad id, a cut dump. None may panic or write what does not load.
    let seed = std::fs::read(dir.join("r7525")).unwrap();
    let body = &seed[seed.iter().position(|&b| b == b'\n').unwrap()..];
    for head in [
        &b"Power\x1bEdge \"R7525\" ]\n[x]"[..],
        b"",
        b"\xff\xfe",
        b"a'''b\"\"\"c\\u0000",
    ] {
        let mut d = head.to_vec();
        d.extend_from_slice(body);
        let _ = property(&d, &cat);
        let cut = d.len() / 3;
        let _ = property(&d[..cut], &cat);
    }
}
