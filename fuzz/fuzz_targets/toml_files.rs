//! Feeds arbitrary bytes to the platform, parts and build file loaders and, when a build
//! parses, to the whole check (instantiate, budget, checks, bandwidth). The first byte picks
//! what the rest is read as. Every error must be located inside the file it names.
#![no_main]

use laneplan::platform::Catalog;
use laneplan::source::{InputError, SourceFile};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn builtin() -> &'static Catalog {
    static CAT: OnceLock<Catalog> = OnceLock::new();
    CAT.get_or_init(|| Catalog::builtin().expect("built-in catalogue"))
}

fn located(e: &InputError, file: &SourceFile) {
    let lines = file.text.split('\n').count();
    assert!(e.line >= 1 && e.line <= lines, "{e:?} outside {lines} lines");
    assert!(e.column >= 1, "{e:?}");
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let file = SourceFile::new("fuzz.toml", text.as_ref());
    if pick % 2 == 0 {
        // A platform or parts file added to the built-in catalogue, then every platform
        // planned with its default options (what `show` does).
        let mut cat = builtin().clone();
        match cat.add_file(file.clone()) {
            Err(errs) => errs.errors.iter().for_each(|e| located(e, &file)),
            Ok(()) => {
                for id in cat.platforms.keys() {
                    if let Ok(mut r) = laneplan::plan::plan_platform(&cat, id, &[]) {
                        let _ = laneplan::flow::attach(&mut r, &Default::default());
                    }
                }
            }
        }
    } else {
        match laneplan::source::parse_toml::<laneplan::platform::schema::BuildFile>(&file) {
            Err(e) => located(&e, &file),
            Ok(build) => match laneplan::plan::check_build(builtin(), &build, file.clone()) {
                Err(errs) => errs.errors.iter().for_each(|e| located(e, &file)),
                Ok(mut r) => {
                    let _ = laneplan::flow::attach(&mut r, &Default::default());
                }
            },
        }
    }
});
