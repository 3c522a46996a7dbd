//! One file per subcommand: argument structs and printing. Logic stays in the library.

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
    /// No width limit (default: the terminal's width, `COLUMNS`, or 80 when piped).
    #[arg(long, global = true)]
    pub wide: bool,
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
    let _ = TERM.set(Term::detect(a.wide, a.ascii, a.utf8, a.color));
}

/// The terminal the text output is fitted to.
pub fn term() -> Term {
    TERM.get().copied().unwrap_or_default()
}

/// stdout with colour per `--color` (auto: anstream strips it for NO_COLOR and pipes).
pub fn stdout() -> anstream::AutoStream<std::io::Stdout> {
    let choice = match term().color {
        Color::Auto => anstream::ColorChoice::Auto,
        Color::Always => anstream::ColorChoice::Always,
        Color::Never => anstream::ColorChoice::Never,
    };
    anstream::AutoStream::new(std::io::stdout(), choice)
}

/// Exit code 2: usage or input error. Printed with miette so located errors show their
/// caret snippet.
/// Installs the error renderer; call before any error is made, since a
/// miette report captures its handler when it is created.
pub fn install_error_hook() {
    // Never wrap: "file:line:col: message" must stay on one line so that
    // editors, grep and CI logs can pick it up, however long the path is.
    let _ = miette::set_hook(Box::new(|_| {
        Box::new(miette::MietteHandlerOpts::new().wrap_lines(false).build())
    }));
}

pub fn report_error(err: miette::Report) -> ExitCode {
    eprintln!("{err:?}");
    ExitCode::from(2)
}
