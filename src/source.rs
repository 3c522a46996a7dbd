//! Input files and located errors: every malformed platform, parts or build file is reported
//! with its file, line, column, a caret snippet (miette) and what was expected.

use miette::{Diagnostic, NamedSource, SourceSpan};
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The largest platform, parts or build file laneplan reads (a 10 MB build of 190,000 bays
/// loads in well under a second; anything past this is not a hand-written file).
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The name findings and errors give an input read from stdin (`-`).
pub const STDIN_NAME: &str = "<stdin>";

/// At most `cap` bytes of stdin; more is an error (never a silent cut).
pub fn read_stdin(cap: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(format!("more than {cap} bytes on stdin"));
    }
    Ok(bytes)
}

/// An input file kept in memory so errors can quote it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    /// Byte offset of every line start, built on the first lookup and shared by clones, so
    /// locating N findings in a file of L lines costs O(L + N log L), not O(N L).
    lines: Arc<OnceLock<Vec<usize>>>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
            lines: Arc::default(),
        }
    }

    fn line_starts(&self) -> &[usize] {
        self.lines.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        })
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let starts = self.line_starts();
        // The last line start at or before `offset` (starts[0] == 0, so never underflows).
        let line = starts.partition_point(|&s| s <= offset) - 1;
        let col = self.text[starts[line]..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// A located error at `span`.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> InputError {
        let (line, column) = self.line_col(span.start);
        let len = span.end.saturating_sub(span.start);
        InputError {
            file: self.name.clone(),
            line,
            column,
            message: message.into(),
            help: None,
            src: Some(NamedSource::new(self.name.clone(), self.text.clone())),
            span: Some((span.start.min(self.text.len()), len).into()),
        }
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One problem in an input file: located (`file:line:col`, with a caret snippet) where it has
/// a place in the file, else about the file as a whole (one that cannot be read at all).
#[derive(Debug, Clone, thiserror::Error, Diagnostic)]
#[error("{}", self.headline())]
#[diagnostic(code(laneplan::input))]
pub struct InputError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
    #[help]
    pub help: Option<String>,
    /// None for a whole-file error: miette would draw an empty box around nothing.
    #[source_code]
    src: Option<NamedSource<Arc<str>>>,
    #[label("here")]
    span: Option<SourceSpan>,
}

impl InputError {
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// An error about a whole file that has no useful position (not UTF-8, no content).
    pub fn whole_file(file: impl Into<String>, message: impl Into<String>) -> Self {
        let file = file.into();
        InputError {
            src: None,
            file,
            line: 1,
            column: 1,
            message: message.into(),
            help: None,
            span: None,
        }
    }

    /// A file that cannot be read at all (absent, a directory, unreadable): no location and
    /// no snippet. `why` is what [`crate::bounded::read_input`] says; reads
    /// `cannot read FILE: no such file`.
    pub fn unreadable(file: impl Into<String>, why: &str) -> Self {
        let file = file.into();
        let why = if why == "missing" {
            "no such file"
        } else {
            why
        };
        InputError {
            message: format!("cannot read {file}: {why}"),
            file,
            line: 0,
            column: 0,
            help: None,
            src: None,
            span: None,
        }
    }

    /// Whether the error points at a place in the file.
    pub fn is_located(&self) -> bool {
        self.line > 0
    }

    fn headline(&self) -> String {
        if self.is_located() {
            format!(
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        } else if self.message.contains(&self.file) {
            self.message.clone()
        } else {
            // About the file as a whole: `FILE: message`, never a made-up `:1:1`.
            format!("{}: {}", self.file, self.message)
        }
    }
}

/// Several located problems, reported together.
#[derive(Debug, Clone, thiserror::Error, Diagnostic)]
#[error("{} error(s) in input", errors.len())]
pub struct InputErrors {
    #[related]
    pub errors: Vec<InputError>,
}

impl InputErrors {
    /// One error reads best on its own; several come under a summary.
    pub fn into_report(mut self) -> miette::Report {
        if self.errors.len() == 1 {
            miette::Report::new(self.errors.remove(0))
        } else {
            miette::Report::new(self)
        }
    }
}

impl From<InputError> for InputErrors {
    fn from(e: InputError) -> Self {
        InputErrors { errors: vec![e] }
    }
}

/// Reads a platform, parts or build file: regular files only (a FIFO or device would block
/// or never end), at most [`MAX_INPUT_BYTES`], UTF-8. Every failure is an input error that
/// names the file.
pub fn read_source(path: &Path) -> Result<SourceFile, InputError> {
    let name = if path.as_os_str() == "-" {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    };
    let text = read_text(path, MAX_INPUT_BYTES).map_err(|why| {
        // About the file as a whole: no `:1:1`, no snippet (the headline names the file).
        let mut e = InputError::whole_file(name.clone(), why);
        e.line = 0;
        e.column = 0;
        e
    })?;
    Ok(SourceFile::new(name, text))
}

/// The text of a regular file of at most `cap` bytes, or why not (a message for a person).
/// The file is opened non-blocking and checked with `fstat` before any read, so a FIFO
/// never blocks the open or the read.
pub fn read_text(path: &Path, cap: u64) -> Result<String, String> {
    use std::os::unix::fs::OpenOptionsExt;
    if path.as_os_str() == "-" {
        // `-` is stdin (a build, parts or hwloc XML file piped in), with the same cap.
        let bytes = read_stdin(cap).map_err(|why| format!("cannot read: {why}"))?;
        return String::from_utf8(bytes).map_err(|e| {
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
        });
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "cannot read: no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "cannot read: permission denied".to_string(),
            _ => format!("cannot read: {e}"),
        })?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        let ft = meta.file_type();
        use std::os::unix::fs::FileTypeExt;
        let what = if ft.is_dir() {
            "a directory"
        } else if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_block_device() || ft.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        };
        return Err(format!("cannot read: {what}; expected a regular file"));
    }
    if meta.len() > cap {
        return Err(format!(
            "file is {} bytes; the limit is {cap} bytes",
            meta.len()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Bounded even if the file grows while it is read.
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(format!("file is over the limit of {cap} bytes"));
    }
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))
}

/// Parses TOML into `T`, turning toml's error into a located one. toml's messages already
/// say what was expected ("unknown field `x`, expected one of ...", "invalid type: ...").
pub fn parse_toml<T: serde::de::DeserializeOwned>(file: &SourceFile) -> Result<T, InputError> {
    toml::from_str(&file.text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        file.error(span, e.message().trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let f = SourceFile::new("a.toml", "x = 1\ny = é2\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(6), (2, 1));
        // Line 2 is `y = é2` from byte 6; '2' is byte 12, after the two-byte 'é':
        // five characters precede it on the line, so column 6.
        assert_eq!(f.line_col(12), (2, 6));
        // The newline itself ends line 1; past the end clamps to the last position.
        assert_eq!(f.line_col(5), (1, 6));
        assert_eq!(f.line_col(999), (3, 1));
    }

    #[test]
    fn line_index_agrees_with_a_rescan() {
        let text = "a\n\nbé c\r\n\n  x = 1\nlast";
        let f = SourceFile::new("t.toml", text);
        for off in 0..=text.len() {
            let b = floor_char_boundary(text, off);
            let before = &text[..b];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().unwrap().chars().count() + 1;
            assert_eq!(f.line_col(off), (line, col), "offset {off}");
        }
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.toml");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &p,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = read_source(&p).unwrap_err();
        assert_eq!(e.message, "cannot read: a FIFO; expected a regular file");
        let e = read_source(dir.path()).unwrap_err();
        assert_eq!(
            e.message,
            "cannot read: a directory; expected a regular file"
        );
    }
}
