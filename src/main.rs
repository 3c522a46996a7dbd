//! The `laneplan` binary: parses arguments, calls the library, prints. Nothing else.

mod cmd;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Plan, audit and probe the PCIe lanes of storage servers.
#[derive(Parser, Debug)]
#[command(name = "laneplan", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Shell completions for bash, zsh, fish, ...
    Completions { shell: clap_complete::Shell },
    /// The man page (roff) on stdout.
    Man,
    /// Direct-I/O probes of block devices or files (read-only unless --write).
    Probe(Box<cmd::probe::ProbeArgs>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "laneplan",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => cmd::man(Cli::command()),
        Command::Probe(args) => cmd::probe::run(*args),
    };
    result.unwrap_or_else(cmd::report_error)
}
