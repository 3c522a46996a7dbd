//! `laneplan man [SUBCOMMAND]` and `laneplan man --dir DIR`: roff pages, one per subcommand,
//! with EXIT STATUS, EXAMPLES and SEE ALSO sections; every page named in SEE ALSO or in the
//! subcommand list is one that `--dir` writes.

use clap::Args;
use miette::{Result, miette};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The subcommand whose page to print (default: the overview page, laneplan(1)).
    pub subcommand: Option<String>,
    /// Write every page (laneplan.1, laneplan-show.1, ...) into DIR instead, for packagers.
    #[arg(long, value_name = "DIR", conflicts_with = "subcommand", value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}

/// Exit codes shared by every subcommand, and those of the ones with findings.
const EXIT_USAGE: (&str, &str) = (
    "2",
    "Usage error or unreadable input: a bad flag, an unknown id, a file that cannot be read or \
     parsed (located as file:line:col).",
);

fn exit_status(name: &str) -> Vec<(&'static str, &'static str)> {
    let mut v = vec![("0", "Success.")];
    match name {
        "check" | "flow" => v.push(("1", "The build has findings of severity error.")),
        "audit" => v.push(("1", "The audit (or --against diff) found errors.")),
        "place" => v.push(("1", "No placement satisfies the request.")),
        "probe" => v.push((
            "1",
            "A probe ran but reported errors (I/O errors, a refused target among several).",
        )),
        "laneplan" => v.push((
            "1",
            "check, flow, audit, place, probe: findings of severity error (see each page).",
        )),
        _ => {}
    }
    v.push(EXIT_USAGE);
    if matches!(name, "probe" | "laneplan") {
        v.push((
            "130, 143",
            "probe: interrupted by SIGINT or SIGTERM; what was measured is still printed.",
        ));
    }
    v
}

fn examples(name: &str) -> &'static [(&'static str, &'static str)] {
    match name {
        "laneplan" | "show" => &[
            (
                "laneplan show r740xd --option front=24nvme",
                "The planned tree and lane budget.",
            ),
            (
                "laneplan show r740 ",
                "An unknown id says what it probably meant (r740xd).",
            ),
        ],
        "platforms" => &[("laneplan platforms", "Every platform with its options.")],
        "parts" => &[("laneplan parts --json", "The parts catalogue as JSON.")],
        "check" => &[(
            "laneplan check examples/r740xd-12nvme-micron9300.toml",
            "Findings, lane budget and bandwidth of a build; exit 1 on errors.",
        )],
        "place" => &[(
            "laneplan place r740xd --part micron-9300-pro-3.84tb=12 -o build.toml",
            "The best options, slots and bays for twelve drives, written as a build file.",
        )],
        "bays" => &[
            (
                "laneplan bays r7415 --option front=24nvme",
                "The chassis as a person sees it.",
            ),
            (
                "laneplan bays r740xd --svg bays.svg",
                "The same as an SVG picture.",
            ),
        ],
        "flow" => &[(
            "laneplan flow examples/r7415-24nvme-switched.toml",
            "Each device's bandwidth ceiling and what caps it.",
        )],
        "dot" => &[(
            "laneplan dot r7415 --option front=24nvme -o r7415.dot && dot -Tsvg r7415.dot -o r7415.svg",
            "The topology as a Graphviz graph.",
        )],
        "completions" => &[(
            "laneplan completions bash > /etc/bash_completion.d/laneplan",
            "Bash completions.",
        )],
        "man" => &[
            ("laneplan man probe | man -l -", "Read one page."),
            (
                "laneplan man --dir /usr/share/man/man1",
                "Write every page, for packagers.",
            ),
        ],
        "probe" => &[
            (
                "laneplan probe /dev/nvme0n1",
                "4k random reads at QD 128 for 10 s (read-only).",
            ),
            (
                "laneplan probe --mapped --dry-run",
                "Every NVMe namespace with its bay, slot, ceiling and safety verdict; no I/O.",
            ),
            (
                "laneplan probe --curve --svg curve.svg /dev/nvme0n1",
                "Latency against offered rate, 10 to 120 % of the maximum.",
            ),
        ],
        "audit" => &[
            (
                "laneplan audit",
                "This host's PCIe links, NUMA, slots, NVMe and AER.",
            ),
            (
                "laneplan audit --prometheus /var/lib/node_exporter/textfile/laneplan.prom",
                "Also a node_exporter textfile (0644 under umask 022).",
            ),
        ],
        "gather" => &[(
            "laneplan gather host.tar.gz",
            "Save what audit reads, for replay with --sysfs-root.",
        )],
        "learn" => &[(
            "laneplan learn --host --out learned/",
            "A platform file and a build file for this host.",
        )],
        _ => &[],
    }
}

/// The pages: the overview and one per subcommand, as (file name, roff text).
pub fn pages(root: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    let mut root = root.disable_help_subcommand(true);
    root.build();
    let subs: Vec<clap::Command> = root
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    let names: Vec<String> = subs.iter().map(|s| s.get_name().to_string()).collect();
    let source = format!("laneplan {}", root.get_version().unwrap_or_default());
    let mut out = vec![page(root, "laneplan", &names, &source)?];
    for s in subs {
        let name = s.get_name().to_string();
        out.push(page(s, &name, &names, &source)?);
    }
    Ok(out)
}

fn page(cmd: clap::Command, name: &str, all: &[String], source: &str) -> Result<(String, Vec<u8>)> {
    let man = clap_mangen::Man::new(cmd).source(source);
    let file = man.get_filename();
    let mut buf = Vec::new();
    let w = |e: std::io::Error| miette!("{e}");
    man.render_title(&mut buf).map_err(w)?;
    man.render_name_section(&mut buf).map_err(w)?;
    man.render_synopsis_section(&mut buf).map_err(w)?;
    man.render_description_section(&mut buf).map_err(w)?;
    man.render_options_section(&mut buf).map_err(w)?;
    if name == "laneplan" {
        man.render_subcommands_section(&mut buf).map_err(w)?;
    }
    let mut roff = String::from(".SH \"EXIT STATUS\"\n");
    for (code, what) in exit_status(name) {
        roff.push_str(&format!(".TP\n{}\n{}\n", esc(code), esc(what)));
    }
    let ex = examples(name);
    if !ex.is_empty() {
        roff.push_str(".SH EXAMPLES\n");
        for (cmd, what) in ex {
            roff.push_str(&format!(
                ".TP\n\\fB{}\\fR\n{}\n",
                esc(cmd.trim()),
                esc(what)
            ));
        }
    }
    roff.push_str(".SH \"SEE ALSO\"\n");
    let see: Vec<String> = if name == "laneplan" {
        all.iter()
            .map(|s| format!("\\fBlaneplan-{}\\fR(1)", esc(s)))
            .collect()
    } else {
        vec!["\\fBlaneplan\\fR(1)".to_string()]
    };
    roff.push_str(&see.join(", "));
    roff.push('\n');
    buf.extend_from_slice(roff.as_bytes());
    if name == "laneplan" {
        // Subcommands carry no version of their own (clap_mangen would panic).
        man.render_version_section(&mut buf).map_err(w)?;
    }
    Ok((file, buf))
}

/// Roff text: backslashes doubled, `-` as a minus, and a leading `.` or `'` guarded.
fn esc(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

pub fn run(args: &ManArgs, root: clap::Command) -> Result<ExitCode> {
    let pages = pages(root)?;
    if let Some(dir) = &args.dir {
        // One set: every page or none, only inside DIR (a symlinked page is refused).
        let set: Vec<(&str, &[u8])> = pages
            .iter()
            .map(|(f, t)| (f.as_str(), t.as_ref()))
            .collect();
        let written = laneplan::outfile::write_set(dir, &set, laneplan::outfile::Existing::Replace)
            .map_err(|e| miette!("cannot write the man pages into {}: {e}", dir.display()))?;
        for path in written {
            println!("{}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let want = match &args.subcommand {
        None => "laneplan.1".to_string(),
        Some(s) => format!("laneplan-{s}.1"),
    };
    let Some((_, text)) = pages.iter().find(|(f, _)| *f == want) else {
        let s = args.subcommand.as_deref().unwrap_or_default();
        let names: Vec<&str> = pages
            .iter()
            .filter_map(|(f, _)| f.strip_prefix("laneplan-")?.strip_suffix(".1"))
            .collect();
        return Err(miette!(
            help = laneplan::suggest::help_with(
                s,
                names.iter().copied(),
                &format!("subcommands: {}", names.join(", "))
            ),
            "no man page for `{s}`"
        ));
    };
    use std::io::Write;
    std::io::stdout()
        .write_all(text)
        .map_err(|e| miette!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}
