//! Feeds arbitrary bytes to the lspci -vvnn reader and the whole audit behind it: the byte
//! checks the CLI makes first (empty, binary, UTF-16, no function), the line reader (LF,
//! CRLF, CR, BOM), and the tree and verdicts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((scan, findings)) = laneplan::host::lspci::parse_bytes(data, "fuzz") {
        assert!(!scan.functions.is_empty());
        let _ = findings.len();
    }
    let text = String::from_utf8_lossy(data);
    let (scan, _findings) = laneplan::host::lspci::parse(&text, "fuzz");
    let _ = scan.functions.len();
    let _ = laneplan::host::audit_lspci(&text, "fuzz", Default::default());
});
