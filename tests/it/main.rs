//! The integration tests, one crate so the suite links once: a module per area, shared
//! helpers in `common` (fixtures, the binary, lspci) and `probe_common` (files, loop devices).

mod against;
mod bays;
mod bays_cli;
mod cli_audit;
mod cli_plan;
mod codes_documented;
mod common;
mod conventions_cli;
mod flow;
mod flow_cli;
mod flow_props;
mod host_audit;
mod host_bad_input;
mod learn;
mod learn_props;
mod lspci_props;
mod malformed;
mod other_vendor;
mod outfile;
mod place;
mod place_cli;
mod place_props;
mod platforms_new;
mod probe_cli;
mod probe_common;
mod probe_engine;
mod probe_mapped;
mod probe_parse_props;
mod probe_safety;
mod probe_snapshots;
mod prom_textfile;
mod readme_samples;
mod term_width;
mod toml_props;
mod validation;
