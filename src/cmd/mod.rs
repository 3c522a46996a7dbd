//! One file per subcommand: argument structs and printing. Logic stays in the library.
//! Everything goes out through [`stdout`] / [`stderr`] (the `out!`, `outln!`, `eout!`,
//! `eoutln!` macros), which keep or strip colour per `--color`.

/// `print!` through [`stdout`] (colour per `--color`).
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!($crate::cmd::stdout(), $($t)*);
    }};
}
/// `println!` through [`stdout`].
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::cmd::stdout(), $($t)*);
    }};
}
/// `eprint!` through [`stderr`].
macro_rules! eout {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!($crate::cmd::stderr(), $($t)*);
    }};
}
/// `eprintln!` through [`stderr`].
macro_rules! eoutln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::cmd::stderr(), $($t)*);
    }};
}

pub mod audit;
pub mod bays;
pub mod complete;
pub mod flow;
pub mod host;
pub mod learn;
pub mod man;
pub mod place;
pub mod plan;
pub mod probe;

use laneplan::render::term::{Color, Term};
use std::process::ExitCode;
use std::sync::OnceLock;

/// How text output fits the terminal; global, so it goes before or after the subcommand.
#[derive(clap::Args, Debug)]
pub struct TermArgs {
    /// No width limit (the default when stdout is not a terminal: piped lines are never
    /// cut; on a terminal, its width or `COLUMNS`).
    #[arg(long, global = true, conflicts_with = "width")]
    pub wide: bool,
    /// Fit text to N columns, piped or not (beats `COLUMNS` and the terminal's width).
    #[arg(long, global = true, value_name = "N")]
    pub width: Option<usize>,
    /// Plain ASCII: no box-drawing characters (automatic when the locale is not UTF-8 or
    /// stdout is not a terminal, as pstree does).
    #[arg(long, global = true)]
    pub ascii: bool,
    /// Box-drawing characters even when piped or in a non-UTF-8 locale.
    #[arg(long, global = true, conflicts_with = "ascii")]
    pub utf8: bool,
    /// Colour: auto (a terminal without NO_COLOR), always or never.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto",
          value_parser = one_of(&["auto", "always", "never"], parse_color))]
    pub color: Color,
}

fn parse_color(s: &str) -> Result<Color, String> {
    match s {
        "auto" => Ok(Color::Auto),
        "always" => Ok(Color::Always),
        "never" => Ok(Color::Never),
        _ => Err(format!("expected auto, always or never, not {s:?}")),
    }
}

/// The value parser of a flag with enumerated values: clap lists them in `--help`, the
/// generated completions offer them, and a typo gets clap's did-you-mean (`--class nvmee`:
/// "a similar value exists: 'nvme'"); `parse` turns the chosen one into its type.
/// `-o FILE` of `place`, `dot` and `learn`: a path, except one that reads as a platform
/// option (`-o front=24nvme`, the old meaning of `-o` in `show`): that is refused with the
/// flag options take, so it never becomes a file named `front=24nvme` (`./front=24nvme`
/// writes one on purpose).
pub fn output_path(s: &str) -> Result<std::path::PathBuf, String> {
    if let Some((k, v)) = s.split_once('=') {
        let keyish = !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if keyish && !v.is_empty() && !v.contains('/') {
            return Err(format!(
                "`{s}` looks like a platform option, and -o is the output file: options are \
                 `-O {s}` (to write a file of that name, say `./{s}`)"
            ));
        }
    }
    Ok(std::path::PathBuf::from(s))
}

pub fn one_of<T>(
    values: &[&'static str],
    parse: fn(&str) -> Result<T, String>,
) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: Clone + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(values.iter().copied())
        .try_map(move |s: String| parse(&s))
}

static TERM: OnceLock<Term> = OnceLock::new();

/// Detects the terminal once, from the global flags and the environment.
pub fn set_term(a: &TermArgs) {
    let _ = TERM.set(Term::detect(a.wide, a.width, a.ascii, a.utf8, a.color));
}

/// The terminal the text output is fitted to.
pub fn term() -> Term {
    TERM.get().copied().unwrap_or_default()
}

fn choice() -> anstream::ColorChoice {
    match term().color {
        Color::Auto => anstream::ColorChoice::Auto,
        Color::Always => anstream::ColorChoice::Always,
        Color::Never => anstream::ColorChoice::Never,
    }
}

/// stdout with colour per `--color` (auto: anstream strips it for NO_COLOR and pipes).
pub fn stdout() -> anstream::AutoStream<std::io::Stdout> {
    anstream::AutoStream::new(std::io::stdout(), choice())
}

/// stderr with colour per `--color` (auto: stripped for NO_COLOR and when not a terminal).
pub fn stderr() -> anstream::AutoStream<std::io::Stderr> {
    anstream::AutoStream::new(std::io::stderr(), choice())
}

/// Diagnostic text for stderr: the terminal's character set (ASCII under `--ascii`, a
/// non-UTF-8 locale or a pipe), control characters escaped, not cut.
pub fn diag_text(text: &str) -> String {
    let t = laneplan::render::term::Term {
        width: None,
        ..term()
    };
    // Painted diagnostics escape their own fields (`render::diag`).
    if t.paints() {
        t.wrap_painted(text)
    } else {
        t.wrap(text)
    }
}

/// Exit code 2: usage or input error, a refusal. Printed in the one diagnostic style
/// (`laneplan::render::diag`): `error[LP0403]: message`, the source line of a located
/// input error, `  = help:`; never wrapped, so "file:line:col: message" stays on one line
/// for editors, grep and CI logs however long the path is.
pub fn report_error(err: miette::Report) -> ExitCode {
    let text = laneplan::render::diag::report(err.as_ref(), term().paints());
    eout!("{}", diag_text(text.trim_end_matches('\n')));
    eoutln!();
    ExitCode::from(2)
}
