//! Feeds arbitrary text to the escapers (`laneplan::render::escape`) and through a platform
//! name to the writers that use them: what the terminal escaper returns holds no control
//! character; the XML escaper's text in an element and an attribute parses (roxmltree) and
//! reads back; a DOT id is one well-formed quoted string; the bay SVG of a platform named by
//! the input parses, and its DOT graph lexes with balanced strings and HTML labels.
#![no_main]

use laneplan::render::escape;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const PLATFORM: &str = include_str!("../../tests/fixtures/platforms/other-vendor/acme-g1u.toml");
const PARTS: &str = include_str!("../../tests/fixtures/platforms/other-vendor/acme-parts.toml");

fn base() -> &'static laneplan::platform::Catalog {
    static CAT: OnceLock<laneplan::platform::Catalog> = OnceLock::new();
    CAT.get_or_init(|| {
        let mut c = laneplan::platform::Catalog::builtin().expect("built-in catalogue");
        c.add_file(laneplan::source::SourceFile::new("acme-parts.toml", PARTS))
            .expect("the fixture parts load");
        c
    })
}

/// Outside strings `"` opens one, inside `\` escapes the next character and `"` closes;
/// `<` `>` nest HTML labels outside strings. True when everything closes.
fn dot_lexes(text: &str) -> bool {
    let (mut in_str, mut esc, mut html) = (false, false, 0i32);
    for c in text.chars() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, '\\') => esc = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if html > 0 {
            match c {
                '<' => html += 1,
                '>' => html -= 1,
                _ => {}
            }
        } else {
            match c {
                '"' => in_str = true,
                '<' => html = 1,
                _ => {}
            }
        }
    }
    !in_str && html == 0
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let t = escape::terminal(&s);
    assert!(!t.chars().any(escape::is_unsafe_for_terminal), "{t:?}");
    let tt = escape::terminal_text(&s);
    assert!(
        !tt.chars()
            .any(|c| escape::is_unsafe_for_terminal(c) && !matches!(c, '\n' | '\t' | '\x1b')),
        "{tt:?}"
    );
    let x = escape::xml(&s);
    let doc = format!("<r a=\"{x}\">{x}</r>");
    let parsed = roxmltree::Document::parse(&doc).unwrap_or_else(|e| panic!("{e}: {doc:?}"));
    if !s.contains('\r') {
        let text = parsed.root_element().text().unwrap_or("");
        let back = x
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&amp;", "&");
        assert_eq!(text, back);
    }
    let d = escape::dot(&s);
    assert!(d.len() >= 2 && d.starts_with('"') && dot_lexes(&d), "{d:?}");
    assert!(!d.chars().any(|c| c.is_control()), "{d:?}");
    // The writers: a platform named by the input.
    let plat = PLATFORM.replacen(
        "name = \"Acme G1U generic 1U\"",
        &format!("name = {}", toml_string(&s)),
        1,
    );
    let mut cat = base().clone();
    if cat
        .add_file(laneplan::source::SourceFile::new("acme-g1u.toml", plat))
        .is_err()
    {
        return;
    }
    let Ok(report) = laneplan::plan::plan_platform(&cat, "acme-g1u", &[]) else {
        return;
    };
    let layout = laneplan::bays::BayLayout::from_report(&report, &cat);
    let svg = laneplan::render::bays_svg::render(&layout);
    roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("bay SVG: {e}"));
    let dot = laneplan::render::dot::dot(&report.plan.topology, None, Default::default());
    assert!(dot_lexes(&dot), "DOT does not lex:\n{dot}");
    assert!(!dot.chars().any(|c| c.is_control() && c != '\n'), "{dot}");
});
