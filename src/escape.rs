//! Text escaped for the format it lands in: the terminal, XML (SVG) and Graphviz DOT. Names
//! come from files and hosts (platform and part names, DMI strings, pci.ids, lspci dumps),
//! so a name may hold ESC, BEL, DEL or C1 controls; every renderer escapes through here.
//!
//! - **Terminal** ([`terminal`], [`terminal_text`]): each control character (C0, DEL, C1)
//!   and each bidirectional override or isolate (U+202A-U+202E, U+2066-U+2069, which reorder
//!   what a reader sees) is shown as its Rust escape `\u{1b}`. [`terminal_text`] is for whole
//!   rendered text: it keeps line feeds and tabs, and the SGR colour sequences
//!   (`ESC [ digits ; m`) that laneplan's own bay picture paints with; nothing else reaches
//!   the terminal raw.
//! - **XML** ([`xml`]): `& < > " '` as entities, for text and attribute values alike; the
//!   characters XML 1.0 cannot hold at all (C0 but tab, LF and CR; U+FFFE, U+FFFF) and the
//!   discouraged DEL and C1 are shown as `\u{1b}` text, so the file parses (roxmltree, rsvg).
//! - **DOT** ([`dot`]): a quoted ID: `"` and `\` escaped (a backslash would start a Graphviz
//!   escString like `\N`), a line feed as the label newline `\n`, every other control
//!   character as `\\u{1b}` text.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` may not reach a terminal raw: a control character or a bidi override.
pub fn is_unsafe_for_terminal(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// A name for the terminal: every control character (line feed and tab too) and bidi
/// override as `\u{..}`.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_for_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe_for_terminal(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The length of an SGR sequence (`ESC [ 0-9 ; ... m`) at the start of `s`, if there is one.
fn sgr_len(s: &str) -> Option<usize> {
    let rest = s.strip_prefix("\x1b[")?;
    let n = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (rest.as_bytes().get(n) == Some(&b'm')).then_some(2 + n + 1)
}

/// Rendered text that paints no colour of its own (tables, trees, findings): like
/// [`terminal`], but line feeds and tabs are kept. An SGR sequence here can only have come
/// from a name, so it is shown, not kept.
pub fn terminal_plain(s: &str) -> Cow<'_, str> {
    let unsafe_at = |c: char| is_unsafe_for_terminal(c) && c != '\n' && c != '\t';
    if !s.chars().any(unsafe_at) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_at(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Rendered text for the terminal: like [`terminal`], but line feeds, tabs and SGR colour
/// sequences are kept. Only for the bay picture, which paints its own colour and escapes
/// every name it draws with [`terminal`] first.
pub fn terminal_text(s: &str) -> Cow<'_, str> {
    let unsafe_at = |c: char| is_unsafe_for_terminal(c) && c != '\n' && c != '\t';
    if !s.chars().any(unsafe_at) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while let Some(c) = s[i..].chars().next() {
        if c == '\x1b'
            && let Some(n) = sgr_len(&s[i..])
        {
            out.push_str(&s[i..i + n]);
            i += n;
            continue;
        }
        if unsafe_at(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        i += c.len_utf8();
    }
    Cow::Owned(out)
}

/// Whether XML 1.0 cannot hold `c` (or discourages it: DEL, C1).
fn not_for_xml(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}')
}

/// Text for XML character data and attribute values (see the module docs).
pub fn xml(s: &str) -> Cow<'_, str> {
    if !s
        .chars()
        .any(|c| matches!(c, '&' | '<' | '>' | '"' | '\'') || not_for_xml(c))
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if not_for_xml(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A quoted DOT ID (see the module docs).
pub fn dot(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if is_unsafe_for_terminal(c) => {
                let _ = write!(out, "\\\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_controls_and_bidi() {
        assert_eq!(terminal("plain"), "plain");
        assert_eq!(
            terminal("a\x1b]0;pwned\x07b\x7f\u{9b}c\u{202e}d\n"),
            "a\\u{1b}]0;pwned\\u{7}b\\u{7f}\\u{9b}c\\u{202e}d\\u{a}"
        );
    }

    #[test]
    fn terminal_text_keeps_lines_tabs_and_sgr_only() {
        assert_eq!(
            terminal_text("\x1b[1;31mred\x1b[0m\tx\n\x1b[2Jy\x1b]8;;u\x07"),
            "\x1b[1;31mred\x1b[0m\tx\n\\u{1b}[2Jy\\u{1b}]8;;u\\u{7}"
        );
        assert_eq!(terminal_text("\x1b"), "\\u{1b}");
    }

    #[test]
    fn xml_escapes_markup_and_drops_what_xml_cannot_hold() {
        assert_eq!(
            xml(r#"a<b & "c"'>"#),
            "a&lt;b &amp; &quot;c&quot;&apos;&gt;"
        );
        assert_eq!(xml("x\x1by\u{0}\u{ffff}\t"), "x\\u{1b}y\\u{0}\\u{ffff}\t");
        let doc = format!("<t a=\"{}\">{}</t>", xml("\x1b\"<"), xml("\x07&\u{85}"));
        roxmltree::Document::parse(&doc).unwrap();
    }

    #[test]
    fn dot_ids_are_quoted_and_controls_visible() {
        assert_eq!(dot("a\"b\\c\nd\x1be"), r#""a\"b\\c\nd\\u{1b}e""#);
    }
}
