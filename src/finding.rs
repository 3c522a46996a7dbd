//! Findings: what every analysis returns beside its value (rust-analyzer style: analyses
//! never print or exit). Each has a stable code, so scripts and docs can refer to it.
//!
//! Code ranges: `LP00xx` input files, `LP01xx` build checks and lane budgets, `LP02xx`
//! bandwidth, `LP03xx` live-host audit, `LP04xx` probes, `LP05xx` learn.

use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Where a finding points: a node of the topology and/or a place in an input file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Location {
    /// The node's path, `CPU1 > Slot 1 > Bay 3`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Location {
    pub fn node(path: impl Into<String>) -> Self {
        Location {
            node: Some(path.into()),
            ..Default::default()
        }
    }

    /// `file:line:column`, or the node path, or nothing.
    pub fn short(&self) -> String {
        match (&self.file, self.line, self.column) {
            (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
            (Some(f), _, _) => f.clone(),
            _ => self.node.clone().unwrap_or_default(),
        }
    }
}

/// What a finding is about, as data: renderers and views take status, link and part from
/// this and from the analysis' typed values, never from the message text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Subject {
    /// A node of a planned or live topology, by its id.
    Node { id: String },
    /// A front or rear drive bay, by its number.
    Bay { number: u32 },
    /// A slot, by its platform id (`slot2`, `mini`).
    Slot { id: String },
    /// Several slots at once (a card rule broken across them), by platform id.
    Slots { ids: Vec<String> },
    /// A PCI function (port or device), by its address `dddd:bb:dd.f`.
    Device {
        #[serde(serialize_with = "crate::pci::ser_bdf")]
        bdf: crate::pci::Bdf,
    },
    /// A root complex: its platform id, or `dddd:bb` for a live root bus.
    RootComplex { id: String },
    /// A CPU socket, by index (0-based).
    Socket { index: u8 },
    /// Lines of the finding's input file (1-based, ascending).
    InputLines { lines: Vec<usize> },
}

/// The documented level of a code: a finding's severity, or `Refusal` for the probe's
/// refusals (exit 2, never a finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Note,
    Warning,
    Error,
    Refusal,
}

impl Level {
    /// The severity a finding of this level takes (a refusal, reported as a finding, is an
    /// error).
    pub const fn severity(self) -> Severity {
        match self {
            Level::Note => Severity::Note,
            Level::Warning => Severity::Warning,
            Level::Error | Level::Refusal => Severity::Error,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Refusal => "refusal",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of the code table: every code the program can emit is declared here once
/// (docs/FINDINGS.md is checked against this table by tests/it/codes_documented.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CodeDef {
    pub code: Code,
    /// Short kebab-case name (`downtrained`).
    pub name: &'static str,
    /// The usual severity, as documented (`refusal` for probe refusals: exit 2).
    pub severity: Level,
    pub summary: &'static str,
}

macro_rules! code_table {
    ($($variant:ident = $code:literal, $name:literal, $level:ident, $summary:literal;)*) => {
        /// Every finding and refusal code, generated from the one table below; serialised
        /// (JSON) and displayed as its `LP0xxx` string.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $(#[doc = $summary] $variant,)*
        }

        impl Code {
            /// Every code, in table (and string) order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable string, `LP0302`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $code,)*
                }
            }

            /// The table entry.
            pub const fn def(self) -> CodeDef {
                match self {
                    $(Code::$variant => CodeDef {
                        code: Code::$variant,
                        name: $name,
                        severity: Level::$level,
                        summary: $summary,
                    },)*
                }
            }

            /// The documented level (a finding's default severity, or a refusal).
            pub const fn level(self) -> Level {
                self.def().severity
            }

            /// The code a `LP0xxx` string names, if any.
            pub fn parse(s: &str) -> Option<Code> {
                match s {
                    $($code => Some(Code::$variant),)*
                    _ => None,
                }
            }
        }

        /// Every code's table entry, in order.
        pub const CODES: &[CodeDef] = &[$(Code::$variant.def()),*];
    };
}

impl Ord for Code {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Code {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Tests compare a code with its stable string (a `Finding`'s code equals `LP0302`).
impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

code_table! {
    Internal = "LP0100", "internal", Error, "internal error: the validated platform produced a plan it cannot hold (a laneplan bug; please report it)";
    NoSuchPlace = "LP0101", "no-such-place", Error, "a slot or bay that does not exist with the chosen options";
    UnknownPart = "LP0102", "unknown-part", Error, "unknown part id";
    InterfaceMismatch = "LP0103", "interface-mismatch", Error, "interface mismatch: NVMe drive in a SAS/SATA-only bay, or the reverse";
    CardNarrower = "LP0104", "card-runs-narrower", Warning, "card wider than the slot's electrical width: it runs narrower";
    CardDoesNotFit = "LP0105", "card-does-not-fit", Error, "card edge wider than the slot's connector: it does not fit";
    TooBig = "LP0106", "too-big", Error, "card too tall or too long for the slot; 3.5\" drive in a 2.5\" bay";
    RcOverBudget = "LP0107", "rc-over-budget", Error, "lanes over budget on a root complex";
    SocketOverBudget = "LP0108", "socket-over-budget", Error, "lanes over budget on a socket";
    Bifurcation = "LP0109", "bifurcation", Error, "bifurcation the root complex does not support (bridge extender in a narrow slot)";
    OptionConflict = "LP0110", "option-conflict", Error, "option conflict: a reserved slot, a card outside its allowed slots, more cards than allowed";
    GenerationDrop = "LP0111", "generation-drop", Warning, "generation drop along a path (Gen4 drive on a Gen3 backplane), with the fix";
    FilledTwice = "LP0112", "filled-twice", Error, "a slot or bay filled twice";
    WrongPlace = "LP0113", "wrong-place", Error, "a part in the wrong kind of place (drive in a slot, card in a bay, PERC mini in a PCIe slot)";
    NoUpstream = "LP0114", "no-upstream", Error, "a drive whose bay has no upstream card or controller installed";
    UnknownOption = "LP0115", "unknown-option", Error, "unknown option or option value";
    CpuNotAllowed = "LP0120", "cpu-not-allowed", Error, "the build's CPU is not one the platform's sockets take";
    MemorySpeed = "LP0121", "memory-speed", Error, "the build's memory speed (memory_mts) is zero or above what its CPU runs";
    UplinkSaturates = "LP0201", "uplink-saturates", Warning, "a switch uplink saturates";
    LinkLosesBandwidth = "LP0202", "link-loses-bandwidth", Warning, "a device trains below its maximum and loses bandwidth; names the part that holds it back and the fix";
    CrossSocket = "LP0203", "cross-socket", Note, "devices whose traffic crosses sockets (warning if the link saturates)";
    SpecAboveLink = "LP0204", "spec-above-link", Note, "a device's spec is above what its own link gives";
    SharedSaturates = "LP0205", "shared-saturates", Warning, "another shared element saturates (controller, SAS side, root complex, inter-socket link, shared PCIe link)";
    CpuBound = "LP0206", "cpu-bound", Warning, "end to end, the CPU binds first: CPU-bound at N IOPS (cores x GHz x utilisation / cycles), below what the drives and links give";
    MemoryBound = "LP0207", "memory-bound", Warning, "end to end, memory bandwidth (channels x MT/s x 8 B per socket) binds first";
    NicBound = "LP0208", "nic-bound", Warning, "served storage: the NICs bind first (clients get less than the drives deliver)";
    NoNic = "LP0209", "no-nic", Error, "a served workload (--serve) on a build with no NIC";
    NoCpu = "LP0210", "no-cpu", Warning, "a cost figure was given but the build names no CPU and the platform no default: the CPU is not weighed";
    CpuHeadroom = "LP0211", "cpu-headroom", Note, "end to end, the drives or links bind and the CPU has cores to spare (how many)";
    Unreadable = "LP0301", "unreadable", Warning, "a sysfs entry unreadable or holding garbage (skipped); a note where /sys/bus/pci/devices is absent and /sys/devices/pci* is walked instead";
    Downtrained = "LP0302", "downtrained", Error, "link downtrained: below min(own max, port max) in speed or width";
    LinkDown = "LP0303", "link-down", Warning, "a device whose link is down";
    EmptyPort = "LP0304", "empty-port", Note, "a port with nothing below and its link down (empty bay, DMI): not a fault; empty hot-plug ports are summarised per switch or root complex";
    PortLimited = "LP0305", "port-limited", Note, "a port below its max because its device is slower: not a fault";
    ChipsetLink = "LP0306", "chipset-link", Note, "a chipset-integrated device reporting a reduced link";
    AerUncorrectable = "LP0307", "aer-uncorrectable", Error, "fatal or non-fatal AER errors";
    AerCorrectable = "LP0308", "aer-correctable", Warning, "correctable AER errors above --aer-threshold (default 10)";
    NvmeNoNamespace = "LP0309", "nvme-no-namespace", Warning, "NVMe controller without a namespace";
    BusConflict = "LP0310", "bus-conflict", Error, "duplicate or conflicting bus numbers";
    HiddenParent = "LP0311", "hidden-parent", Warning, "parent bridge missing from /sys/bus/pci/devices (partial capture)";
    LspciParse = "LP0312", "lspci-parse", Warning, "a line of an lspci dump that could not be read";
    PowerManagedLink = "LP0313", "power-managed-link", Note, "a device that lowers its link speed when idle (GPU) runs below its maximum: re-check under load";
    Missing = "LP0320", "missing", Error, "against a plan: planned, not found";
    Unexpected = "LP0321", "unexpected", Warning, "against a plan: found, not planned (never a CPU or chipset function)";
    DowntrainedVsPlan = "LP0322", "downtrained-vs-plan", Error, "against a plan: found, but its link trained below the plan";
    WrongSocket = "LP0323", "wrong-socket", Error, "against a plan: found on another NUMA node than the plan's socket";
    WrongPart = "LP0324", "wrong-part", Error, "against a plan: a different part (by PCI vendor, device and subsystem ids, or drive model)";
    NotLocated = "LP0325", "not-located", Note, "against a plan: a root complex without a locator, its positions not compared";
    StrayBytes = "LP0330", "stray-bytes", Warning, "control characters or invalid UTF-8 inside a text input (raw VPD bytes in an lspci dump) replaced by U+FFFD; the rest was read";
    NotRootDump = "LP0335", "not-root-dump", Warning, "an lspci dump without capabilities (`Capabilities: <access denied>`, no LnkSta): not captured as root, so it holds no link data; capture it with `sudo lspci -vvnn`";
    ChassisDowntrained = "LP0340", "chassis-downtrained", Error, "a device's link as the BMC reports it (Redfish PCIeInterface) is below its maximum: LanesInUse < MaxLanes or PCIeType < MaxPCIeType";
    LinkOutsideTree = "LP0341", "link-outside-tree", Note, "a Redfish link that points outside the tree being read: not followed";
    LinkMissing = "LP0342", "link-missing", Note, "a Redfish link inside the tree whose resource is not in it (the dump left it out)";
    CurrentLinkOnly = "LP0343", "current-link-only", Note, "the source gives current link speeds only (hwloc): a downtrain cannot be judged without the maximum";
    NoBusNumbers = "LP0344", "no-bus-numbers", Note, "the source gives no PCI addresses for its devices: the bus tree is unknown, devices are listed by slot";
    PlatformLacksSlot = "LP0350", "platform-lacks-slot", Warning, "against the platform: the host reports a physical slot (or a card in one) that no slot or bay of the platform has; names the platform file to correct";
    SlotWiredElsewhere = "LP0351", "slot-wired-elsewhere", Warning, "against the platform: a physical slot on another root port or width than every variant allows; names the platform line to correct";
    NumaUnexplained = "LP0352", "numa-unexplained", Warning, "against the platform: a root complex's NUMA node that no value of the platform's NUMA setting (NPS) explains; names the platform line";
    OnboardUnmodelled = "LP0353", "onboard-unmodelled", Warning, "against the platform: an onboard device (no physical slot) below a root port no root complex of the platform locates";
    NoVariant = "LP0354", "no-variant", Warning, "against the platform: no value of an option (riser, front, NPS) matches the host";
    PlatformUnrecognised = "LP0355", "platform-unrecognised", Note, "against the platform: the host names a DMI product (and vendor) that no platform file lists in `dmi_names` (`dmi_vendors`), so the audit holds it against none; says what it read";
    WriteNotAllowed = "LP0401", "write-not-allowed", Refusal, "the workload writes and --write was not given";
    DeviceNotNamed = "LP0402", "device-not-named", Refusal, "writing to a block device not named with --destroy-data-on";
    Mounted = "LP0403", "mounted", Refusal, "the device or one of its partitions has a mounted filesystem";
    HasHolders = "LP0404", "has-holders", Refusal, "the device or a partition has holders (LVM, md, dm)";
    ActiveSwap = "LP0405", "active-swap", Refusal, "the device or a partition is active swap";
    BacksLoop = "LP0406", "backs-loop", Refusal, "the file (or a loop device's backing file) backs a loop device";
    SwapFile = "LP0407", "swap-file", Refusal, "the file is an active swap file";
    OpenElsewhere = "LP0408", "open-elsewhere", Refusal, "another process has the target open for writing, or holds a lock on it";
    UnknownDevice = "LP0409", "unknown-device", Refusal, "/sys/dev/block/M:m does not resolve: the device cannot be checked (fail closed)";
    OnTmpfs = "LP0410", "on-tmpfs", Warning, "the file is on tmpfs/ramfs: O_DIRECT does not reach a disk";
    NoIoUring = "LP0411", "no-io-uring", Warning, "io_uring unavailable, the pread/pwrite thread engine ran instead";
    BelowCeiling = "LP0412", "below-ceiling", Warning, "a device reached less than half of its predicted ceiling";
    CurveShort = "LP0413", "curve-short", Note, "a --curve step fell more than 10 % short of its offered rate";
    IoErrors = "LP0414", "io-errors", Error, "I/O errors";
    Interrupted = "LP0415", "interrupted", Warning, "interrupted (Ctrl-C)";
    SparseFile = "LP0416", "sparse-file", Warning, "an existing file has holes/unwritten extents in the working set";
    Stalled = "LP0417", "stalled", Error, "I/Os still outstanding after the drain grace (stalled device)";
    UringPunts = "LP0418", "uring-punts", Note, "io_uring punts every I/O to one kernel worker: the thread engine runs instead";
    NotVerified = "LP0419", "not-verified", Refusal, "--mapped on a capture: a write, or I/O on a node not verified on the live host";
    CurveNoMaximum = "LP0420", "curve-no-maximum", Error, "--curve: the maximum run measured 0 IOPS, so no step could be offered";
    LearnedNothingPlanned = "LP0500", "learned-nothing-planned", Warning, "learn: the host shows no part on a port, so the learned build plans nothing (its round trip proves nothing)";
    LearnCapturesDisagree = "LP0501", "learn-captures-disagree", Warning, "learn: the captures merged into one platform name different models or show different socket counts";
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    /// What it is about, as data (absent where a finding has no single subject).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<Subject>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    pub location: Location,
}

impl Finding {
    /// A finding of `code` at the code's documented severity.
    pub fn of(code: Code, message: impl Into<String>) -> Self {
        Self::with_severity(code, code.level().severity(), message)
    }

    /// A finding at an explicit severity: only for the codes whose severity is documented as
    /// depending on the case (`LP0203`: a note, a warning where the link saturates).
    pub fn with_severity(code: Code, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            code,
            severity,
            subject: None,
            message: message.into(),
            help: None,
            location: Location::default(),
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn about(mut self, subject: Subject) -> Self {
        self.subject = Some(subject);
        self
    }

    /// The table entry of its code.
    pub fn def(&self) -> CodeDef {
        self.code.def()
    }

    pub fn at(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    pub fn at_node(mut self, path: impl Into<String>) -> Self {
        self.location.node = Some(path.into());
        self
    }
}

/// The one order of findings: most severe first, then code, subject, node and message.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(&b.code))
            .then(a.subject.cmp(&b.subject))
            .then(a.location.node.cmp(&b.location.node))
            .then(a.message.cmp(&b.message))
    });
}

/// True when any finding is an error (exit code 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}
