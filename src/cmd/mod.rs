//! One file per subcommand: argument structs and printing. Logic stays in the library.

pub mod audit;
pub mod bays;
pub mod flow;
pub mod plan;
pub mod probe;

use std::process::ExitCode;

/// Exit code 2: usage or input error. Printed with miette so located errors show their
/// caret snippet.
pub fn report_error(err: miette::Report) -> ExitCode {
    eprintln!("{err:?}");
    ExitCode::from(2)
}

pub fn man(cmd: clap::Command) -> miette::Result<ExitCode> {
    let man = clap_mangen::Man::new(cmd);
    let mut out = Vec::new();
    man.render(&mut out).map_err(|e| miette::miette!("{e}"))?;
    use std::io::Write;
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| miette::miette!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}
