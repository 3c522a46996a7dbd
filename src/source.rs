//! Input files and located errors: every malformed platform, parts or build file is reported
//! with its file, line, column, a caret snippet (miette) and what was expected.

use miette::{Diagnostic, NamedSource, SourceSpan};
use std::ops::Range;
use std::sync::Arc;

/// An input file kept in memory so errors can quote it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let col = before
            .rsplit('\n')
            .next()
            .map(|l| l.chars().count())
            .unwrap_or(0)
            + 1;
        (line, col)
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
            src: Some(NamedSource::new(self.name.clone(), self.text.to_string())),
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

/// One located problem in an input file.
#[derive(Debug, Clone, thiserror::Error, Diagnostic)]
#[error("{file}:{line}:{column}: {message}")]
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
    src: Option<NamedSource<String>>,
    #[label("here")]
    span: Option<SourceSpan>,
}

impl InputError {
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// An error about a whole file that has no useful position (unreadable, not UTF-8).
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
    }
}
