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
    /// Audit the live PCIe tree (or a capture, or an lspci dump): links, NUMA, slots, NVMe, AER.
    Audit(cmd::audit::AuditArgs),
    /// Save exactly the files `audit` reads into a .tar.gz, for replay with --sysfs-root.
    Gather(cmd::audit::GatherArgs),
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
        Command::Audit(args) => cmd::audit::run(args),
        Command::Gather(args) => cmd::audit::gather(args),
    };
    result.unwrap_or_else(cmd::report_error)
}
