//! The learned-TOML writer's property, shared by its fuzz target
//! (fuzz/fuzz_targets/learn_writer.rs) and the test over its corpus
//! (tests/it/learn_writer_corpus.rs), so both check the same thing.
//!
//! Input: three lines (DMI product name, CPU model, `--id`; empty = none), then an
//! `lspci -vvnn` dump. What `learn` makes of them is refused with a reason ([`loads`], which
//! the CLI asks before it writes; an id the grammar refuses is refused where it enters and
//! learn never sees it) or, written as the CLI writes it, loads with the platform loader
//! (`--platform-dir DIR/platform`) and passes `check DIR/build.toml` without errors.
//! Anything else panics, which is what a fuzzer reports.

use super::{LearnOptions, LearnedId, learn, loads, read_lspci, write};
use crate::finding::Severity;
use crate::platform::Catalog;

/// `Err(reason)` when the facts are refused; panics where the property breaks.
pub fn learn_write_load_check(data: &[u8], builtin: &Catalog) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(4, '\n');
    let product = lines.next().unwrap_or_default();
    let cpu = lines.next().unwrap_or_default();
    let id = lines.next().unwrap_or_default();
    let dump = lines.next().unwrap_or_default();
    let mut host = read_lspci(dump, "fuzz.lspci-vvnn.txt");
    host.audit.product = (!product.is_empty()).then(|| product.to_string());
    host.cpu = (!cpu.is_empty()).then(|| cpu.to_string());
    let id = match LearnedId::parse(id) {
        Ok(id) => Some(id),
        Err(why) => {
            assert!(!why.is_empty(), "a refused id says why");
            None
        }
    };
    let learned = learn(&host, builtin, &LearnOptions { id, compare: None });
    if let Err(why) = loads(&learned, builtin) {
        assert!(!why.is_empty(), "a refusal says why");
        return Err(why);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let written = write(&learned, dir.path(), false).expect("a fresh directory takes the set");
    assert!(!written.is_empty(), "nothing written");
    let cat = Catalog::with_dir(Some(&dir.path().join("platform")))
        .unwrap_or_else(|e| panic!("the written platform does not load: {e:?}"));
    assert!(
        cat.platform(learned.id.as_str()).is_some(),
        "the written platform is not in the catalogue as {}",
        learned.id.as_str()
    );
    let report = crate::plan::check_build_file(&cat, &dir.path().join("build.toml"))
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
