//! The learned-TOML writer: arbitrary learned facts (an `lspci -vvnn` dump as `learn --lspci`
//! reads it, with an arbitrary DMI product name, CPU model and `--id`) go through `learn`;
//! what it would write must either be refused with a reason (`learn::loads`, which the CLI
//! asks before it writes) or, written as the CLI writes it, load with the platform loader
//! (`--platform-dir DIR/platform`) and pass `check` (`check DIR/build.toml`).
//!
//! Input: three lines (product name, CPU model, id; empty = none), then the dump.
#![no_main]
//!
//! The property itself is `laneplan::learn::roundtrip`, which tests/it/learn_writer_corpus.rs
//! runs over this target's corpus on stable.

use laneplan::learn::roundtrip::learn_write_load_check;
use laneplan::platform::Catalog;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn builtin() -> &'static Catalog {
    static CAT: OnceLock<Catalog> = OnceLock::new();
    CAT.get_or_init(|| Catalog::builtin().expect("built-in catalogue"))
}

fuzz_target!(|data: &[u8]| {
    // A refusal (Err) is a right answer; a broken property panics inside.
    let _ = learn_write_load_check(data, builtin());
});
