//! One file per subcommand: argument structs and printing. Logic stays in the library.

pub mod audit;
pub mod bays;
pub mod flow;
pub mod learn;
pub mod man;
pub mod place;
pub mod plan;
pub mod probe;

use std::process::ExitCode;

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
