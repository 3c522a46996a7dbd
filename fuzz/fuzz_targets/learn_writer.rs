//! The learned-TOML writer: arbitrary learned facts (an `lspci -vvnn` dump as `learn --lspci`
//! reads it, with an arbitrary DMI product name, CPU model and `--id`) go through `learn`;
//! what it would write must either be refused with a reason (`learn::loads`, which the CLI
//! asks before it writes) or, written as the CLI writes it, load with the platform loader
//! (`--platform-dir DIR/platform`) and pass `check` (`check DIR/build.toml`).
//!
//! Input: three lines (product name, CPU model, id; empty = none), then the dump.
#![no_main]

use laneplan::finding::Severity;
use laneplan::learn::{self, LearnOptions, LearnedId};
use laneplan::platform::Catalog;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn builtin() -> &'static Catalog {
    static CAT: OnceLock<Catalog> = OnceLock::new();
    CAT.get_or_init(|| Catalog::builtin().expect("built-in catalogue"))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(4, '\n');
    let product = lines.next().unwrap_or_default();
    let cpu = lines.next().unwrap_or_default();
    let id = lines.next().unwrap_or_default();
    let dump = lines.next().unwrap_or_default();
    let mut host = learn::read_lspci(dump, "fuzz.lspci-vvnn.txt");
    host.audit.product = (!product.is_empty()).then(|| product.to_string());
    host.cpu = (!cpu.is_empty()).then(|| cpu.to_string());
    // An id the grammar refuses is refused where it enters (`--id`); learn never sees it.
    let id = match LearnedId::parse(id) {
        Ok(id) => Some(id),
        Err(why) => {
            assert!(!why.is_empty(), "a refused id says why");
            None
        }
    };
    let opts = LearnOptions { id, compare: None };
    let learned = learn::learn(&host, builtin(), &opts);
    match learn::loads(&learned, builtin()) {
        Err(why) => assert!(!why.is_empty(), "a refusal says why"),
        Ok(()) => {
            let dir = tempfile::tempdir().expect("tempdir");
            let written = learn::write(&learned, dir.path(), false).expect("a fresh directory takes the set");
            assert!(!written.is_empty());
            let cat = Catalog::with_dir(Some(&dir.path().join("platform")))
                .unwrap_or_else(|e| panic!("the written platform does not load: {e:?}"));
            assert!(
                cat.platform(learned.id.as_str()).is_some(),
                "the written platform is not in the catalogue as {}",
                learned.id.as_str()
            );
            let report = laneplan::plan::check_build_file(&cat, &dir.path().join("build.toml"))
                .unwrap_or_else(|e| panic!("the written build does not load: {e:?}"));
            if let Some(f) = report.findings.iter().find(|f| f.severity == Severity::Error) {
                panic!("the written build fails check: {} {}", f.code, f.message);
            }
        }
    }
});
