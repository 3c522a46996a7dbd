//! `laneplan completions SHELL`: clap's script (values of enumerated flags, file and
//! directory hints) plus the ids only the catalogues know (platforms, their options, parts,
//! CPUs, I/O stacks), which the bash, zsh and fish scripts ask the hidden
//! `laneplan complete KIND [PREFIX]` for.

use clap::{Args, ValueEnum};
use clap_complete::Shell;
use laneplan::complete::{IdKind, candidates};
use std::fmt::Write as _;
use std::process::ExitCode;

/// What `laneplan complete` lists.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Platform,
    Option,
    Part,
    Profile,
    Cpu,
    Stack,
}

impl Kind {
    fn id_kind(self) -> IdKind {
        match self {
            Kind::Platform => IdKind::Platform,
            Kind::Option => IdKind::Option,
            Kind::Part => IdKind::Part,
            Kind::Profile => IdKind::Profile,
            Kind::Cpu => IdKind::Cpu,
            Kind::Stack => IdKind::Stack,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Kind::Platform => "platform",
            Kind::Option => "option",
            Kind::Part => "part",
            Kind::Profile => "profile",
            Kind::Cpu => "cpu",
            Kind::Stack => "stack",
        }
    }
}

/// The ids that start with PREFIX, one a line (for the completion scripts).
#[derive(Args, Debug)]
pub struct CompleteArgs {
    pub kind: Kind,
    #[arg(default_value = "")]
    pub prefix: String,
    /// `option`: that platform's options only.
    #[arg(long, value_name = "ID")]
    pub platform: Option<String>,
}

pub fn run(args: &CompleteArgs, cat: &super::plan::CatalogArgs) -> miette::Result<ExitCode> {
    // A broken --platform-dir completes nothing rather than printing an error into the line.
    let Ok(catalog) = cat.load() else {
        return Ok(ExitCode::from(1));
    };
    let mut out = String::new();
    for c in candidates(
        &catalog,
        args.kind.id_kind(),
        &args.prefix,
        args.platform.as_deref(),
    ) {
        out.push_str(&c);
        out.push('\n');
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Where an id is completed: subcommand, argument id (clap's), what it names, and whether
/// a file name fits there too (`bays` and `dot` take a platform or a build file).
pub const SITES: &[(&str, &str, Kind, bool)] = &[
    ("show", "platform", Kind::Platform, false),
    ("place", "platform", Kind::Platform, false),
    ("bays", "target", Kind::Platform, true),
    ("dot", "target", Kind::Platform, true),
    ("audit", "platform", Kind::Platform, false),
    ("show", "options", Kind::Option, false),
    ("bays", "options", Kind::Option, false),
    ("place", "options", Kind::Option, false),
    ("dot", "options", Kind::Option, false),
    ("place", "parts", Kind::Part, false),
    ("check", "cpu", Kind::Cpu, false),
    ("flow", "cpu", Kind::Cpu, false),
    ("check", "stack", Kind::Stack, false),
    ("flow", "stack", Kind::Stack, false),
];

/// One site as the command line spells it.
#[derive(Debug)]
struct Site {
    sub: String,
    id: String,
    /// `--part`, `-o`: flags; empty for a positional.
    flags: Vec<String>,
    /// 0-based among the subcommand's positionals.
    position: Option<usize>,
    kind: Kind,
    files: bool,
}

/// The sites of [`SITES`] in the built command; panics on a site the command lacks (a test
/// runs every shell, so a renamed argument cannot go unnoticed).
fn sites(cmd: &clap::Command) -> Vec<Site> {
    SITES
        .iter()
        .map(|&(sub, id, kind, files)| {
            let s = cmd
                .find_subcommand(sub)
                .unwrap_or_else(|| panic!("no subcommand {sub}"));
            let a = s
                .get_arguments()
                .find(|a| a.get_id() == id)
                .unwrap_or_else(|| panic!("{sub} has no argument {id}"));
            let mut flags: Vec<String> = Vec::new();
            if let Some(l) = a.get_long() {
                flags.push(format!("--{l}"));
            }
            if let Some(c) = a.get_short() {
                flags.push(format!("-{c}"));
            }
            let position = a.is_positional().then(|| {
                s.get_positionals()
                    .position(|p| p.get_id() == id)
                    .unwrap_or(0)
            });
            Site {
                sub: sub.to_string(),
                id: id.to_string(),
                flags,
                position,
                kind,
                files,
            }
        })
        .collect()
}

/// Every flag of any subcommand (and the globals) that takes a value: the scripts skip
/// their values when they count positionals.
fn value_flags(cmd: &clap::Command) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |c: &clap::Command| {
        for a in c.get_arguments() {
            if a.is_positional() || !a.get_action().takes_values() {
                continue;
            }
            if let Some(l) = a.get_long() {
                out.push(format!("--{l}"));
            }
            if let Some(s) = a.get_short() {
                out.push(format!("-{s}"));
            }
        }
    };
    add(cmd);
    for s in cmd.get_subcommands() {
        add(s);
    }
    out.sort();
    out.dedup();
    out
}

/// The completion script for `shell`: clap's, with the id completion added for bash, zsh
/// and fish (the others get clap's alone).
pub fn script(shell: Shell, mut cmd: clap::Command) -> String {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "laneplan", &mut buf);
    let base = String::from_utf8_lossy(&buf).into_owned();
    let sites = sites(&cmd);
    match shell {
        Shell::Bash => bash(base, &sites, &value_flags(&cmd)),
        Shell::Zsh => zsh(&base, &sites),
        Shell::Fish => fish(base, &sites),
        _ => base,
    }
}

fn bash(mut s: String, sites: &[Site], takes: &[String]) -> String {
    let mut flag_cases = String::new();
    let mut pos_cases = String::new();
    for site in sites {
        let files = if site.files { "files" } else { "" };
        if site.flags.is_empty() {
            let _ = writeln!(
                pos_cases,
                "            {}:{}) kind={} files={files} ;;",
                site.sub,
                site.position.unwrap_or(0),
                site.kind.name()
            );
        } else {
            let pats: Vec<String> = site
                .flags
                .iter()
                .map(|f| format!("{}:{f}", site.sub))
                .collect();
            let _ = writeln!(
                flag_cases,
                "        {}) kind={} ;;",
                pats.join("|"),
                site.kind.name()
            );
        }
    }
    let _ = write!(
        s,
        r#"
# Ids only the catalogue knows (platforms, options, parts): asked of `laneplan complete`;
# everything else as clap's completion above.
_laneplan_ids() {{
    # Words from the line itself: bash splits `front=24` at `=` (COMP_WORDBREAKS).
    local line="${{COMP_LINE:0:COMP_POINT}}" cur="" prev="" sub="" plat="" kind="" files="" i w npos=0
    local -a words
    read -ra words <<< "$line"
    [[ -z $line || $line == *[[:space:]] ]] && words+=("")
    local n=${{#words[@]}}
    cur="${{words[n-1]}}"
    (( n > 1 )) && prev="${{words[n-2]}}"
    local takes=" {takes} "
    for ((i = 1; i < n - 1; i++)); do
        w="${{words[i]}}"
        [[ $w == -* ]] && continue
        [[ $takes == *" ${{words[i-1]}} "* ]] && continue
        if [[ -z $sub ]]; then
            sub=$w
        else
            [[ -z $plat ]] && plat=$w
            ((npos++))
        fi
    done
    case "$sub:$prev" in
{flag_cases}    esac
    if [[ -z $kind && -n $sub && $cur != -* && $takes != *" $prev "* ]]; then
        case "$sub:$npos" in
{pos_cases}        esac
    fi
    if [[ -n $kind ]]; then
        local -a ask=(complete "$kind" "$cur")
        [[ -n $plat ]] && ask+=(--platform "$plat")
        local IFS=$'\n'
        COMPREPLY=($("${{words[0]}}" "${{ask[@]}}" 2>/dev/null))
        [[ -n $files ]] && COMPREPLY+=($(compgen -f -- "$cur"))
        # Readline replaces only what follows the last `=`: offer that part.
        if [[ $cur == *=* && $COMP_WORDBREAKS == *=* ]]; then
            COMPREPLY=("${{COMPREPLY[@]#"${{cur%=*}}="}}")
        fi
        return 0
    fi
    _laneplan "$@"
}}
if [[ "${{BASH_VERSINFO[0]}}" -eq 4 && "${{BASH_VERSINFO[1]}}" -ge 4 || "${{BASH_VERSINFO[0]}}" -gt 4 ]]; then
    complete -F _laneplan_ids -o nosort -o bashdefault -o default laneplan
else
    complete -F _laneplan_ids -o bashdefault -o default laneplan
fi
"#,
        takes = takes.join(" ")
    );
    s
}

fn zsh(base: &str, sites: &[Site]) -> String {
    let mut out = String::new();
    let mut sub: Option<String> = None;
    let mut helper_added = false;
    for line in base.lines() {
        let t = line.trim();
        // `(show)` opens a subcommand's arguments in clap's script.
        if t.starts_with('(') && t.ends_with(')') && !t.contains(' ') {
            sub = Some(t[1..t.len() - 1].to_string());
        }
        if !helper_added && line.starts_with("if [ \"$funcstack[1]\" = \"_laneplan\" ]") {
            out.push_str(ZSH_HELPER);
            helper_added = true;
        }
        let mut line = line.to_string();
        if let Some(cur) = &sub {
            for site in sites.iter().filter(|s| &s.sub == cur) {
                let starts: Vec<String> = if site.flags.is_empty() {
                    vec![format!("':{} -- ", site.id), format!("'::{} -- ", site.id)]
                } else {
                    site.flags
                        .iter()
                        .flat_map(|f| {
                            let sep = if f.starts_with("--") { "=" } else { "+" };
                            [format!("'{f}{sep}["), format!("'*{f}{sep}[")]
                        })
                        .collect()
                };
                if !starts.iter().any(|p| line.starts_with(p.as_str())) {
                    continue;
                }
                let action = format!(
                    ":_laneplan_ids {}{}' \\",
                    site.kind.name(),
                    if site.files { " files" } else { "" }
                );
                for old in [":_default' \\", ":_files' \\"] {
                    if let Some(head) = line.strip_suffix(old) {
                        line = format!("{head}{action}");
                        break;
                    }
                }
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    if !helper_added {
        out.push_str(ZSH_HELPER);
    }
    out
}

const ZSH_HELPER: &str = r#"# Ids only the catalogue knows (platforms, options, parts), from `laneplan complete`.
(( $+functions[_laneplan_ids] )) ||
_laneplan_ids() {
    local -a ids plat
    local i
    for ((i = 3; i < CURRENT; i++)); do
        if [[ ${words[i]} != -* && ${words[i-1]} != -* ]]; then
            plat=(--platform "${words[i]}")
            break
        fi
    done
    ids=(${(f)"$(${words[1]} complete $1 "$PREFIX" $plat 2>/dev/null)"})
    compadd -a ids
    [[ $2 == files ]] && _files
    return 0
}

"#;

fn fish(mut s: String, sites: &[Site]) -> String {
    s.push_str(
        r#"
# Ids only the catalogue knows (platforms, options, parts), from `laneplan complete`.
function __laneplan_ids
    set -l words (commandline -opc)
    set -l plat
    for w in $words[3..-1]
        if not string match -q -- '-*' $w
            set plat --platform $w
            break
        end
    end
    $words[1] complete $argv[1] (commandline -ct) $plat 2>/dev/null
end
function __laneplan_positionals
    set -l n 0
    for w in (commandline -opc)[3..-1]
        if not string match -q -- '-*' $w
            set n (math $n + 1)
        end
    end
    echo $n
end
"#,
    );
    for site in sites {
        let cond = format!("__fish_laneplan_using_subcommand {}", site.sub);
        if site.flags.is_empty() {
            let _ = writeln!(
                s,
                "complete -c laneplan -n \"{cond}; and test (__laneplan_positionals) -eq {}\" {}-a \"(__laneplan_ids {})\"",
                site.position.unwrap_or(0),
                if site.files { "" } else { "-f " },
                site.kind.name()
            );
        } else {
            for f in &site.flags {
                let flag = match f.strip_prefix("--") {
                    Some(l) => format!("-l {l}"),
                    None => format!("-s {}", &f[1..]),
                };
                let _ = writeln!(
                    s,
                    "complete -c laneplan -n \"{cond}\" {flag} -x -a \"(__laneplan_ids {})\"",
                    site.kind.name()
                );
            }
        }
    }
    s
}
