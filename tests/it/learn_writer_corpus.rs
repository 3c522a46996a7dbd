//! The `learn_writer` fuzz target's property over its committed corpus (the real captures),
//! so it holds without nightly too: whatever `learn` makes of the facts is refused with a
//! reason or, written as the CLI writes it, loads with `--platform-dir` and passes `check`.
//! The real captures must not be refused.

use laneplan::learn::roundtrip::learn_write_load_check as property;
use laneplan::platform::Catalog;
use std::path::Path;

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
