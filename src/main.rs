//! The `laneplan` binary: parses arguments, calls the library, prints. Nothing else.

mod cmd;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc instead of glibc's malloc (the CLI's allocator; the bench uses the same, so it
/// measures what `laneplan check` runs).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Plan, audit and probe the PCIe lanes of storage servers.
#[derive(Parser, Debug)]
#[command(name = "laneplan", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    catalog: cmd::plan::CatalogArgs,
    #[command(flatten)]
    term: cmd::TermArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// One line per platform and its options.
    Platforms(cmd::plan::PlatformsArgs),
    /// The parts catalogue: drives and cards with their links, specs and sources.
    Parts(cmd::plan::PartsArgs),
    /// The planned tree of a platform and its lane budget.
    Show(cmd::plan::ShowArgs),
    /// Check a build file: findings, lane budget; exit 1 on errors, 2 on unreadable input.
    Check(cmd::plan::CheckArgs),
    /// The best options, slots and bays for a parts list, proven optimal (branch and bound).
    Place(cmd::place::PlaceArgs),
    /// The chassis front and rear as a person sees them: bays, sockets, paths, slots
    /// (terminal picture, --svg, --json).
    Bays(cmd::bays::BaysArgs),
    /// Bandwidth of a build: each device's ceiling and what caps it, all at once, per link.
    Flow(cmd::flow::FlowArgs),
    /// Graphviz DOT of a platform or build, edges coloured by read utilization.
    Dot(cmd::flow::DotArgs),
    /// Shell completions for bash, zsh, fish, ...
    ///
    /// Flag values, files and directories, and the platform, option and part ids (the bash,
    /// zsh and fish scripts ask `laneplan complete` for those).
    Completions { shell: clap_complete::Shell },
    /// The ids of KIND that start with PREFIX, one a line: what the completion scripts call.
    #[command(hide = true)]
    Complete(cmd::complete::CompleteArgs),
    /// The man page (roff) of laneplan or one subcommand on stdout; --dir writes them all.
    Man(cmd::man::ManArgs),
    /// Direct-I/O probes of block devices or files (read-only unless --write).
    Probe(Box<cmd::probe::ProbeArgs>),
    /// Audit the live PCIe tree (or a capture, or an lspci dump): links, NUMA, slots, NVMe, AER.
    Audit(cmd::audit::AuditArgs),
    /// Save exactly the files `audit` reads into a .tar.gz, for replay with --sysfs-root.
    Gather(cmd::audit::GatherArgs),
    /// Write a platform file and a build file from what a host, capture or lspci dump shows.
    Learn(cmd::learn::LearnArgs),
}

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`laneplan show r740xd | head`), like other Unix tools.
    // SAFETY: setting a signal disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    cmd::set_term(&cli.term);
    let result = match cli.command {
        Command::Platforms(a) => cmd::plan::platforms(&a, &cli.catalog),
        Command::Parts(a) => cmd::plan::parts(&a, &cli.catalog),
        Command::Show(a) => cmd::plan::show(&a, &cli.catalog),
        Command::Check(a) => cmd::plan::check(&a, &cli.catalog),
        Command::Place(a) => cmd::place::run(&a, &cli.catalog),
        Command::Bays(a) => cmd::bays::bays(&a, &cli.catalog),
        Command::Flow(a) => cmd::flow::flow(&a, &cli.catalog),
        Command::Dot(a) => cmd::flow::dot(&a, &cli.catalog),
        Command::Completions { shell } => {
            print!("{}", cmd::complete::script(shell, Cli::command()));
            Ok(ExitCode::SUCCESS)
        }
        Command::Complete(a) => cmd::complete::run(&a, &cli.catalog),
        Command::Man(a) => cmd::man::run(&a, Cli::command()),
        Command::Probe(args) => cmd::probe::run(*args, &cli.catalog),
        Command::Audit(args) => cmd::audit::run(args, &cli.catalog),
        Command::Gather(args) => cmd::audit::gather(args),
        Command::Learn(args) => cmd::learn::run(args, &cli.catalog),
    };
    result.unwrap_or_else(cmd::report_error)
}
