//! The one diagnostic style of every command: findings (check, flow, bays, audit, learn,
//! place, probe), input errors and probe refusals all read
//!
//! ```text
//! error[LP0105]: card edge wider than the slot's connector: it does not fit
//!   --> build.toml:12:9
//!    |
//! 12 | slot2 = "perc-h740p-adapter"
//!    |         ^
//!   = at: CPU1 > Slot 2
//!   = help: ...
//! ```
//!
//! `severity[code]: message` on the first line (`severity: message` for an error without a
//! code), then `  --> ` the place (file:line:column, the file, or the node path), the source
//! line with a caret where there is one, `  = at:` the node when a file place came first,
//! `  = help:` and a blank line; after a list, one summary line with plurals that agree
//! (`1 error, 2 warnings, 0 notes`, [`summary`]). Nothing but ASCII is drawn here (a message's
//! own characters go through [`super::term::Term`]), and the severity is painted with SGR
//! colour that the output stream keeps or strips per `--color` (anstream's rules).

use crate::finding::{Finding, Severity};
use crate::source::SourceFile;
use std::fmt::Write as _;

/// The severity word of a diagnostic: a finding's, or `error` for what stops a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl From<Severity> for Level {
    fn from(s: Severity) -> Self {
        match s {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Note => Level::Note,
        }
    }
}

impl Level {
    fn word(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }

    fn style(self) -> anstyle::Style {
        let c = match self {
            Level::Error => anstyle::AnsiColor::Red,
            Level::Warning => anstyle::AnsiColor::Yellow,
            Level::Note => anstyle::AnsiColor::Cyan,
        };
        anstyle::Style::new().bold().fg_color(Some(c.into()))
    }
}

/// One diagnostic, ready to render: what every command prints for a problem.
#[derive(Debug, Clone, Default)]
pub struct Diag {
    pub level: Option<Level>,
    pub code: Option<String>,
    pub message: String,
    /// `file:line:column`, a file, or a node path (the `-->` line).
    pub place: Option<String>,
    /// The source line and the 1-based line and column of the caret.
    pub snippet: Option<(usize, usize, String)>,
    /// The node path, when a file place took the `-->` line.
    pub at: Option<String>,
    pub help: Option<String>,
}

impl Diag {
    /// A diagnostic of `level` without a code.
    pub fn new(level: Level, message: impl Into<String>) -> Self {
        Diag {
            level: Some(level),
            message: message.into(),
            ..Default::default()
        }
    }

    /// A finding, its source line taken from `source` when it is the finding's file.
    pub fn finding(f: &Finding, source: Option<&SourceFile>) -> Self {
        let loc = &f.location;
        let mut d = Diag {
            level: Some(f.severity.into()),
            code: Some(f.code.to_string()),
            message: f.message.clone(),
            help: f.help.clone(),
            ..Default::default()
        };
        match (&loc.file, loc.line, loc.column) {
            (Some(file), Some(line), Some(col)) => {
                d.place = Some(format!("{file}:{line}:{col}"));
                d.snippet = source
                    .filter(|s| &s.name == file)
                    .and_then(|s| s.text.lines().nth(line.checked_sub(1)?))
                    .map(|text| (line, col, text.to_string()));
                d.at = loc.node.clone();
            }
            (Some(file), _, _) => {
                d.place = Some(file.clone());
                d.at = loc.node.clone();
            }
            _ => d.place = loc.node.clone(),
        }
        d
    }

    /// The diagnostic as text, ending in a blank line; `paint`: the severity in SGR colour.
    pub fn render(&self, paint: bool) -> String {
        let level = self.level.unwrap_or(Level::Error);
        let style = if paint {
            level.style()
        } else {
            anstyle::Style::new()
        };
        // Painted text is fitted with `Term::wrap_painted`, which keeps SGR: every field is
        // escaped here first, so only the severity's own colour reaches the terminal.
        let esc = |t: &str| -> String {
            if paint {
                crate::escape::terminal_plain(t).into_owned()
            } else {
                t.to_string()
            }
        };
        let d = Diag {
            level: self.level,
            code: self.code.as_deref().map(esc),
            message: esc(&self.message),
            place: self.place.as_deref().map(esc),
            snippet: self.snippet.as_ref().map(|(l, c, t)| (*l, *c, esc(t))),
            at: self.at.as_deref().map(esc),
            help: self.help.as_deref().map(esc),
        };
        let mut out = String::new();
        let _ = write!(out, "{style}{}", level.word());
        if let Some(c) = &d.code {
            let _ = write!(out, "[{c}]");
        }
        let _ = writeln!(out, "{style:#}: {}", d.message);
        if let Some(p) = &d.place {
            let _ = writeln!(out, "  --> {p}");
        }
        if let Some((line, col, text)) = &d.snippet {
            let w = line.to_string().len();
            let _ = writeln!(out, "{:w$} |", "");
            let _ = writeln!(out, "{line} | {text}");
            let _ = writeln!(out, "{:w$} | {}^", "", " ".repeat(col.saturating_sub(1)));
        }
        if let Some(at) = &d.at {
            let _ = writeln!(out, "  = at: {at}");
        }
        if let Some(h) = &d.help {
            let _ = writeln!(out, "  = help: {h}");
        }
        out.push('\n');
        out
    }
}

/// `n` and the word, plural unless `n` is 1 (`1 error`, `2 warnings`, `0 notes`).
pub fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The one summary line: `1 error, 2 warnings, 0 notes` (newline included).
pub fn summary(errors: usize, warnings: usize, notes: usize) -> String {
    format!(
        "{}, {}, {}\n",
        count(errors, "error"),
        count(warnings, "warning"),
        count(notes, "note")
    )
}

/// The summary line of a list of findings.
pub fn summary_of(findings: &[Finding]) -> String {
    let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    summary(n(Severity::Error), n(Severity::Warning), n(Severity::Note))
}

/// Findings in the one style, then the summary line; `paint`: severities in colour.
pub fn findings(findings: &[Finding], source: Option<&SourceFile>, paint: bool) -> String {
    let mut out = findings_only(findings, source, paint);
    out.push_str(&summary_of(findings));
    out
}

/// Findings in the one style, no summary (a command that prints its own count).
pub fn findings_only(findings: &[Finding], source: Option<&SourceFile>, paint: bool) -> String {
    findings
        .iter()
        .map(|f| Diag::finding(f, source).render(paint))
        .collect()
}

/// A `miette` diagnostic (an input error, a probe refusal, any error that stops a command)
/// in the one style: its code where it is a finding code (`LP....`), its help, and the
/// source line of its first label. Related errors follow, each in the same style.
pub fn report(err: &dyn miette::Diagnostic, paint: bool) -> String {
    let mut out = String::new();
    let related: Vec<&dyn miette::Diagnostic> =
        err.related().map(|r| r.collect()).unwrap_or_default();
    if !related.is_empty() {
        for r in &related {
            out.push_str(&one_report(*r, paint));
        }
        if related.len() > 1 {
            let _ = writeln!(out, "{}", count(related.len(), "error"));
        }
        return out;
    }
    out.push_str(&one_report(err, paint));
    out
}

fn one_report(err: &dyn miette::Diagnostic, paint: bool) -> String {
    let code = err
        .code()
        .map(|c| c.to_string())
        .filter(|c| crate::finding::Code::parse(c).is_some());
    // The error, then what caused it (`cannot write X: permission denied`).
    let mut message = err.to_string();
    let mut cause = std::error::Error::source(err);
    while let Some(c) = cause {
        let _ = write!(message, ": {c}");
        cause = c.source();
    }
    let mut d = Diag {
        level: Some(Level::Error),
        code,
        message,
        help: err.help().map(|h| h.to_string()),
        ..Default::default()
    };
    if let (Some(src), Some(label)) = (err.source_code(), err.labels().and_then(|mut l| l.next()))
        && let Ok(at) = src.read_span(label.inner(), 0, 0)
    {
        let (line, col) = (at.line() + 1, at.column() + 1);
        d.snippet = full_line(src, label.inner(), line, col);
    }
    d.render(paint)
}

/// The whole source line `line` that holds the span (miette gives the span's own bytes).
fn full_line(
    src: &dyn miette::SourceCode,
    span: &miette::SourceSpan,
    line: usize,
    col: usize,
) -> Option<(usize, usize, String)> {
    // One line of context each side starts at the beginning of the span's line.
    let ctx = src.read_span(span, 1, 1).ok()?;
    let text = String::from_utf8_lossy(ctx.data()).into_owned();
    let first = ctx.line() + 1;
    let t = text.lines().nth(line.checked_sub(first)?)?.to_string();
    Some((line, col, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(s: &str) -> String {
        let mut out = String::new();
        let mut esc = false;
        for c in s.chars() {
            if esc {
                esc = !c.is_ascii_alphabetic();
            } else if c == '\x1b' {
                esc = true;
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn plurals_agree() {
        assert_eq!(summary(1, 2, 0), "1 error, 2 warnings, 0 notes\n");
        assert_eq!(summary(0, 1, 1), "0 errors, 1 warning, 1 note\n");
    }

    #[test]
    fn one_style() {
        let f = Finding::of(crate::finding::Code::CardNarrower, "runs narrower")
            .at_node("CPU1 > Slot 2")
            .with_help("use a x16 slot");
        let text = Diag::finding(&f, None).render(true);
        assert!(
            text.starts_with("\x1b[1m\x1b[31m") || text.contains("\x1b["),
            "{text:?}"
        );
        assert_eq!(strip(&text), Diag::finding(&f, None).render(false));
        assert_eq!(
            Diag::finding(&f, None).render(false),
            "warning[LP0104]: runs narrower\n  --> CPU1 > Slot 2\n  = help: use a x16 slot\n\n"
        );
    }
}
