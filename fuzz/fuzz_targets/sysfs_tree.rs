//! Feeds a generated sysfs tree to the audit reader: the bytes are a tree in the text form of
//! `laneplan::treetext` (directories, symlinks with any target, files with any content),
//! made in a fresh directory, then audited and gathered in record mode. Seeds: the real
//! captures in tests/fixtures/shared converted by fuzz/seeds/sysfs_seed.py. The reader must
//! not panic, hang or read outside the root; gather must archive only what the audit read.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    laneplan::treetext::build(&root, data);
    let audit = laneplan::host::audit_sysfs(&root, None, Default::default());
    let _ = serde_json::to_string(&audit).expect("the audit serializes");
    let out = dir.path().join("c.tar.gz");
    let g = laneplan::host::gather::gather(&root, &out, Default::default()).expect("gather");
    assert_eq!(g.audit.functions.len(), audit.functions.len());
    // What gather archived replays to the same functions.
    let replay = dir.path().join("replay");
    std::fs::create_dir(&replay).unwrap();
    let f = std::fs::File::open(&out).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(f))
        .unpack(&replay)
        .expect("the archive unpacks");
    let again = laneplan::host::audit_sysfs(&replay, None, Default::default());
    assert_eq!(again.functions.len(), audit.functions.len());
});
