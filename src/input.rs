//! The one bounded reader for text inputs named on the command line (`--lspci` dumps, and
//! any other text capture a command reads whole): [`read_text`] for a path, [`decode`] for
//! bytes already in memory.
//!
//! - **Bounded:** at most [`TextSpec::cap`] bytes; a larger regular file is refused from its
//!   size before a byte is read, a pipe that goes on is cut at the cap and refused.
//! - **Regular files only**, symlinks followed (the user named the path). A directory, device
//!   node (`/dev/zero`) or socket is refused without being opened. A FIFO is refused unless
//!   the spec allows pipes ([`TextSpec::pipes`], for `--lspci <(ssh host lspci -vvnn)`); an
//!   allowed FIFO is opened without blocking, so one nobody writes reads as empty and never
//!   hangs.
//! - **Encoding checked:** UTF-16 (a byte-order mark, or NUL in every other byte) and binary
//!   files are refused; empty (or blank) input is refused.
//! - **Stray bytes are not fatal:** real dumps carry a few bytes that are no text (lspci
//!   prints the raw VPD bytes of some NICs: NULs inside `[x\0] Unknown` lines). NUL, the other
//!   C0 controls but tab, LF and CR, DEL, the C1 controls and invalid UTF-8 are each replaced
//!   by U+FFFD and reported ([`StrayBytes`], finding LP0330 with their line numbers); the
//!   rest is read. Replacing them also keeps escape sequences in a dump off the terminal.
//! - **Binary is told from stray bytes** by where and how many: a stray byte on the first
//!   non-blank line (every binary format starts with one: ELF, gzip, PNG, tar, UTF-16), at
//!   least one non-blank line in [`BINARY_LINE_SHARE`] holding one, or at least one byte in
//!   [`BINARY_BYTE_SHARE`] stray, is a binary file. The shares are loose on purpose: the
//!   stray VPD lines of a real dump are a few percent of its lines.
//! - **Located errors:** every refusal is an [`InputError`] naming the file, with line and
//!   column where there is a place to point at.

use crate::finding::{Code, Finding, Location, Subject};
use crate::source::InputError;
use std::path::Path;

/// What an input is and how much of it may be read.
#[derive(Debug, Clone, Copy)]
pub struct TextSpec {
    /// At most this many bytes.
    pub cap: u64,
    /// Whether a FIFO or pipe is read (to its end, bounded by `cap`) or refused.
    pub pipes: bool,
    /// What the input should be, for messages: `an lspci dump`.
    pub what: &'static str,
    /// The program whose output it is, for messages: `lspci`.
    pub writer: &'static str,
    /// The help line of a refusal: what to give instead.
    pub help: &'static str,
}

/// An `lspci -vvnn` dump (`audit --lspci`, `bays --lspci`, `learn --lspci`): 256 MiB, pipes
/// read.
pub const LSPCI_DUMP: TextSpec = TextSpec {
    cap: crate::bounded::LSPCI_CAP,
    pipes: true,
    what: "an lspci dump",
    writer: "lspci",
    help: "give the output of `lspci -vvnn` (or `lspci -D -vvnn`) as a UTF-8 text file",
};

/// A file is binary when at least one non-blank line in this many holds a stray byte.
pub const BINARY_LINE_SHARE: usize = 2;
/// A file is binary when at least one byte in this many is stray.
pub const BINARY_BYTE_SHARE: usize = 4;
/// Line numbers named in the message of the stray-bytes finding (all are in its subject).
const LINES_SHOWN: usize = 10;

/// A text input, decoded.
#[derive(Debug, Clone)]
pub struct TextInput {
    /// The file as named (`path.display()`).
    pub file: String,
    /// The text, stray bytes replaced by U+FFFD.
    pub text: String,
    /// The bytes that were replaced, if any.
    pub stray: Option<StrayBytes>,
}

impl TextInput {
    /// The findings reading the input produced: LP0330 if bytes were replaced.
    pub fn findings(&self) -> Vec<Finding> {
        self.stray.iter().map(|s| s.finding(&self.file)).collect()
    }
}

/// Stray bytes replaced in a text input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrayBytes {
    /// How many bytes were replaced (an invalid UTF-8 sequence counts its bytes).
    pub bytes: usize,
    /// How many of them were NUL.
    pub nul: usize,
    /// The 1-based lines that held them, ascending, each once.
    pub lines: Vec<usize>,
    /// 1-based line and byte column of the first.
    pub first: (usize, usize),
}

impl StrayBytes {
    /// The finding (LP0330, a warning) that says what was replaced and where.
    pub fn finding(&self, file: &str) -> Finding {
        let shown: Vec<String> = self
            .lines
            .iter()
            .take(LINES_SHOWN)
            .map(|l| l.to_string())
            .collect();
        let more = self.lines.len().saturating_sub(LINES_SHOWN);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let nul = if self.nul > 0 {
            format!("; {} NUL", self.nul)
        } else {
            String::new()
        };
        let s = |n: usize| if n == 1 { "" } else { "s" };
        Finding::of(
            Code::StrayBytes,
            format!(
                "{} stray byte{} (control characters or invalid UTF-8{nul}) replaced by U+FFFD on {} line{}: {}{more}",
                self.bytes,
                s(self.bytes),
                self.lines.len(),
                s(self.lines.len()),
                shown.join(", ")
            ),
        )
        .with_help("the rest of the input was read; lspci prints raw VPD bytes of some devices")
        .about(Subject::InputLines {
            lines: self.lines.clone(),
        })
        .at(Location {
            file: Some(file.to_string()),
            line: Some(self.first.0),
            column: Some(self.first.1),
            ..Default::default()
        })
    }
}

pub use crate::source::{STDIN_NAME, read_stdin};

/// Reads and decodes the text input at `path` (see the module docs for the rules); `-` is
/// stdin, read with the same cap.
pub fn read_text(path: &Path, spec: &TextSpec) -> Result<TextInput, InputError> {
    if path.as_os_str() == "-" {
        let bytes = read_stdin(spec.cap).map_err(|why| InputError::unreadable(STDIN_NAME, &why))?;
        return decode(&bytes, STDIN_NAME, spec);
    }
    let file = path.display().to_string();
    let bytes = read_bounded(path, spec).map_err(|why| InputError::unreadable(&file, &why))?;
    decode(&bytes, &file, spec)
}

/// The bytes of `path`, at most `spec.cap` of them, or why not (without the path).
pub fn read_bounded(path: &Path, spec: &TextSpec) -> Result<Vec<u8>, String> {
    if !spec.pipes {
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "missing".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        })?;
        if let Some(kind) = crate::bounded::odd_kind(&meta.file_type()) {
            return Err(format!("is {kind}, not a file"));
        }
    }
    crate::bounded::read_input(path, spec.cap)
}

/// Decodes `bytes` read from `file` (see the module docs): the text with stray bytes
/// replaced, or a located error for what is no text at all.
pub fn decode(bytes: &[u8], file: &str, spec: &TextSpec) -> Result<TextInput, InputError> {
    let refuse = |message: String, help: &str, at: (usize, usize)| {
        let mut e = InputError::whole_file(file, message).with_help(help);
        (e.line, e.column) = at;
        e
    };
    let iconv = "convert it: iconv -f UTF-16 -t UTF-8";
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(refuse(
            format!(
                "UTF-16 text (it starts with a UTF-16 byte-order mark); {} writes UTF-8",
                spec.writer
            ),
            iconv,
            (1, 1),
        ));
    }
    let le =
        |o: usize| bytes[o] != 0 && bytes[o + 1] == 0 && bytes[o + 2] != 0 && bytes[o + 3] == 0;
    if bytes.len() >= 5 && (le(0) || le(1)) {
        let at = if bytes[0] == 0 { 1 } else { 2 };
        return Err(refuse(
            format!(
                "UTF-16 text (every other byte is NUL); {} writes UTF-8",
                spec.writer
            ),
            iconv,
            (1, at),
        ));
    }
    let (text, stray, first_text_line, text_lines) = scan(bytes);
    if first_text_line.is_none() && stray.is_none() {
        return Err(refuse(
            format!("empty: no {} output in it", spec.writer),
            spec.help,
            (1, 1),
        ));
    }
    if let Some(s) = &stray {
        let what = match (s.nul, s.bytes) {
            (1.., _) => "a NUL byte".to_string(),
            (0, 1) => "a byte that is no text".to_string(),
            (0, n) => format!("{n} bytes that are no text"),
        };
        // On or before the first line with text (a file of NULs has none).
        let on_first = first_text_line.is_none_or(|l| s.first.0 <= l);
        if on_first
            || s.lines.len() * BINARY_LINE_SHARE >= text_lines
            || s.bytes * BINARY_BYTE_SHARE >= bytes.len()
        {
            return Err(refuse(
                format!("binary data ({what}): not {}", spec.what),
                spec.help,
                s.first,
            ));
        }
    }
    Ok(TextInput {
        file: file.to_string(),
        text,
        stray,
    })
}

/// Whether a character is stray in text: a control character other than tab, LF and CR
/// (C0, DEL, C1).
fn is_stray(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// The text with stray bytes replaced, what was replaced, the first line with anything but
/// whitespace, and how many such lines there are. Lines end as in
/// [`crate::host::lspci::lines`]: LF, CRLF or a lone CR.
fn scan(bytes: &[u8]) -> (String, Option<StrayBytes>, Option<usize>, usize) {
    let mut text = String::with_capacity(bytes.len());
    let mut count = 0usize;
    let mut nul = 0usize;
    let mut lines: Vec<usize> = Vec::new();
    let mut first: Option<(usize, usize)> = None;
    let mut line = 1usize;
    let mut line_start = 0usize; // byte offset of the current line
    let mut pos = 0usize; // byte offset in `bytes`
    let mut prev_cr = false;
    let mut first_text: Option<usize> = None;
    let mut text_lines = 0usize;
    let mut line_has_text = false;
    let mut mark = |line: usize, col: usize, n: usize, lines: &mut Vec<usize>| {
        count += n;
        if lines.last() != Some(&line) {
            lines.push(line);
        }
        first.get_or_insert((line, col));
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let len = c.len_utf8();
            if c == '\n' && prev_cr {
                // The LF of a CRLF: the CR already ended the line.
                line_start = pos + 1;
            } else if c == '\n' || c == '\r' {
                line += 1;
                line_start = pos + 1;
                line_has_text = false;
            } else if is_stray(c) {
                if c == '\0' {
                    nul += 1;
                }
                mark(line, pos - line_start + 1, len, &mut lines);
            } else if !c.is_whitespace() && !line_has_text {
                line_has_text = true;
                text_lines += 1;
                first_text.get_or_insert(line);
            }
            prev_cr = c == '\r';
            text.push(if is_stray(c) { '\u{fffd}' } else { c });
            pos += len;
        }
        let bad = chunk.invalid();
        if !bad.is_empty() {
            mark(line, pos - line_start + 1, bad.len(), &mut lines);
            text.push('\u{fffd}');
            pos += bad.len();
            prev_cr = false;
        }
    }
    let stray = first.map(|first| StrayBytes {
        bytes: count,
        nul,
        lines,
        first,
    });
    (text, stray, first_text, text_lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(b: &[u8]) -> Result<TextInput, InputError> {
        decode(b, "in", &LSPCI_DUMP)
    }

    #[test]
    fn stray_bytes_are_replaced_with_their_lines() {
        let (text, s, first, lines) = scan(b"head\r\nok\n\tx\0y\x1b[31m\rz\xff\xfe\n");
        assert_eq!(
            text,
            "head\r\nok\n\tx\u{fffd}y\u{fffd}[31m\rz\u{fffd}\u{fffd}\n"
        );
        assert_eq!((first, lines), (Some(1), 4));
        let s = s.unwrap();
        assert_eq!(s.bytes, 4);
        assert_eq!(s.nul, 1);
        assert_eq!(s.lines, vec![3, 4]);
        assert_eq!(s.first, (3, 3));
    }

    #[test]
    fn binary_is_refused_where_text_with_strays_is_read() {
        let e = dec(b"\x7fELF\x02\x01\x01\0\0\0").unwrap_err();
        assert_eq!(e.message, "binary data (a NUL byte): not an lspci dump");
        assert_eq!((e.line, e.column), (1, 1));
        let e = dec(b"one\n\x89PNG\n").unwrap_err();
        assert_eq!(
            e.message,
            "binary data (a byte that is no text): not an lspci dump"
        );
        assert_eq!((e.line, e.column), (2, 1));
        let e = dec(b"\n \r\n\t\r").unwrap_err();
        assert_eq!(e.message, "empty: no lspci output in it");
        let e = dec(b"\0\0\0\n\0").unwrap_err();
        assert_eq!(e.message, "binary data (a NUL byte): not an lspci dump");
        // One line in three with a stray byte is text; one in two is binary.
        assert_eq!(
            dec(b"aa\nbb\ncc\0\n").unwrap().stray.unwrap().lines,
            vec![3]
        );
        assert!(dec(b"aa\nbb\0\n").is_err());
        // One byte in four stray is binary.
        assert!(dec(b"aaaa\nbb\ncc\ndd\nx\0\0\0\0\0\0\0\0\n").is_err());
    }
}
