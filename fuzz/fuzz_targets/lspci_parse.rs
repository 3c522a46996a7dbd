//! Feeds arbitrary bytes to the lspci -vvnn reader and the whole audit behind it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (scan, _findings) = laneplan::host::lspci::parse(&text, "fuzz");
    let _ = scan.functions.len();
    let _ = laneplan::host::audit_lspci(&text, "fuzz", Default::default());
});
