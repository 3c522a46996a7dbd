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
    Bay { number: u16 },
    /// A slot, by its platform id (`slot2`, `mini`).
    Slot { id: String },
    /// Several slots at once (a card rule broken across them), by platform id.
    Slots { ids: Vec<String> },
    /// A PCI function (port or device), by its address `dddd:bb:dd.f`.
    Device { bdf: String },
    /// A root complex: its platform id, or `dddd:bb` for a live root bus.
    RootComplex { id: String },
    /// A CPU socket, by index (0-based).
    Socket { index: u8 },
    /// Lines of the finding's input file (1-based, ascending).
    InputLines { lines: Vec<usize> },
}

/// One entry of the code table: every code the program can emit is declared here once
/// (docs/FINDINGS.md is checked against this table by tests/it/codes_documented.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CodeDef {
    pub code: &'static str,
    /// Short kebab-case name (`downtrained`).
    pub name: &'static str,
    /// The usual severity, as documented (`refusal` for probe refusals: exit 2).
    pub severity: &'static str,
    pub summary: &'static str,
}

macro_rules! code_table {
    ($($konst:ident = $code:literal, $name:literal, $sev:literal, $summary:literal;)*) => {
        /// The codes as typed constants (`code::DOWNTRAINED_VS_PLAN.code`).
        pub mod code {
            use super::CodeDef;
            $(pub const $konst: CodeDef = CodeDef { code: $code, name: $name, severity: $sev, summary: $summary };)*
        }
        /// Every code, in order.
        pub const CODES: &[CodeDef] = &[$(code::$konst),*];
    };
}

code_table! {
    INTERNAL = "LP0100", "internal", "error", "internal error: the validated platform produced a plan it cannot hold (a laneplan bug; please report it)";
    NO_SUCH_PLACE = "LP0101", "no-such-place", "error", "a slot or bay that does not exist with the chosen options";
    UNKNOWN_PART = "LP0102", "unknown-part", "error", "unknown part id";
    INTERFACE_MISMATCH = "LP0103", "interface-mismatch", "error", "interface mismatch: NVMe drive in a SAS/SATA-only bay, or the reverse";
    CARD_NARROWER = "LP0104", "card-runs-narrower", "warning", "card wider than the slot's electrical width: it runs narrower";
    CARD_DOES_NOT_FIT = "LP0105", "card-does-not-fit", "error", "card edge wider than the slot's connector: it does not fit";
    TOO_BIG = "LP0106", "too-big", "error", "card too tall or too long for the slot; 3.5\" drive in a 2.5\" bay";
    RC_OVER_BUDGET = "LP0107", "rc-over-budget", "error", "lanes over budget on a root complex";
    SOCKET_OVER_BUDGET = "LP0108", "socket-over-budget", "error", "lanes over budget on a socket";
    BIFURCATION = "LP0109", "bifurcation", "error", "bifurcation the root complex does not support (bridge extender in a narrow slot)";
    OPTION_CONFLICT = "LP0110", "option-conflict", "error", "option conflict: a reserved slot, a card outside its allowed slots, more cards than allowed";
    GENERATION_DROP = "LP0111", "generation-drop", "warning", "generation drop along a path (Gen4 drive on a Gen3 backplane), with the fix";
    FILLED_TWICE = "LP0112", "filled-twice", "error", "a slot or bay filled twice";
    WRONG_PLACE = "LP0113", "wrong-place", "error", "a part in the wrong kind of place (drive in a slot, card in a bay, PERC mini in a PCIe slot)";
    NO_UPSTREAM = "LP0114", "no-upstream", "error", "a drive whose bay has no upstream card or controller installed";
    UNKNOWN_OPTION = "LP0115", "unknown-option", "error", "unknown option or option value";
    CPU_NOT_ALLOWED = "LP0120", "cpu-not-allowed", "error", "the build's CPU is not one the platform's sockets take";
    MEMORY_SPEED = "LP0121", "memory-speed", "error", "the build's memory speed (memory_mts) is zero or above what its CPU runs";
    UPLINK_SATURATES = "LP0201", "uplink-saturates", "warning", "a switch uplink saturates";
    LINK_LOSES_BANDWIDTH = "LP0202", "link-loses-bandwidth", "warning", "a device trains below its maximum and loses bandwidth; names the part that holds it back and the fix";
    CROSS_SOCKET = "LP0203", "cross-socket", "note", "devices whose traffic crosses sockets (warning if the link saturates)";
    SPEC_ABOVE_LINK = "LP0204", "spec-above-link", "note", "a device's spec is above what its own link gives";
    SHARED_SATURATES = "LP0205", "shared-saturates", "warning", "another shared element saturates (controller, SAS side, root complex, inter-socket link, shared PCIe link)";
    CPU_BOUND = "LP0206", "cpu-bound", "warning", "end to end, the CPU binds first: CPU-bound at N IOPS (cores x GHz x utilisation / cycles), below what the drives and links give";
    MEMORY_BOUND = "LP0207", "memory-bound", "warning", "end to end, memory bandwidth (channels x MT/s x 8 B per socket) binds first";
    NIC_BOUND = "LP0208", "nic-bound", "warning", "served storage: the NICs bind first (clients get less than the drives deliver)";
    NO_NIC = "LP0209", "no-nic", "error", "a served workload (--serve) on a build with no NIC";
    NO_CPU = "LP0210", "no-cpu", "warning", "a cost figure was given but the build names no CPU and the platform no default: the CPU is not weighed";
    CPU_HEADROOM = "LP0211", "cpu-headroom", "note", "end to end, the drives or links bind and the CPU has cores to spare (how many)";
    UNREADABLE = "LP0301", "unreadable", "warning", "a sysfs entry unreadable or holding garbage (skipped)";
    DOWNTRAINED = "LP0302", "downtrained", "error", "link downtrained: below min(own max, port max) in speed or width";
    LINK_DOWN = "LP0303", "link-down", "warning", "a device whose link is down";
    EMPTY_PORT = "LP0304", "empty-port", "note", "a port with nothing below and its link down (empty bay, DMI): not a fault; empty hot-plug ports are summarised per switch or root complex";
    PORT_LIMITED = "LP0305", "port-limited", "note", "a port below its max because its device is slower: not a fault";
    CHIPSET_LINK = "LP0306", "chipset-link", "note", "a chipset-integrated device reporting a reduced link";
    AER_UNCORRECTABLE = "LP0307", "aer-uncorrectable", "error", "fatal or non-fatal AER errors";
    AER_CORRECTABLE = "LP0308", "aer-correctable", "warning", "correctable AER errors above --aer-threshold (default 10)";
    NVME_NO_NAMESPACE = "LP0309", "nvme-no-namespace", "warning", "NVMe controller without a namespace";
    BUS_CONFLICT = "LP0310", "bus-conflict", "error", "duplicate or conflicting bus numbers";
    HIDDEN_PARENT = "LP0311", "hidden-parent", "warning", "parent bridge missing from /sys/bus/pci/devices (partial capture)";
    LSPCI_PARSE = "LP0312", "lspci-parse", "warning", "a line of an lspci dump that could not be read";
    POWER_MANAGED_LINK = "LP0313", "power-managed-link", "note", "a device that lowers its link speed when idle (GPU) runs below its maximum: re-check under load";
    MISSING = "LP0320", "missing", "error", "against a plan: planned, not found";
    UNEXPECTED = "LP0321", "unexpected", "warning", "against a plan: found, not planned (never a CPU or chipset function)";
    DOWNTRAINED_VS_PLAN = "LP0322", "downtrained-vs-plan", "error", "against a plan: found, but its link trained below the plan";
    WRONG_SOCKET = "LP0323", "wrong-socket", "error", "against a plan: found on another NUMA node than the plan's socket";
    WRONG_PART = "LP0324", "wrong-part", "error", "against a plan: a different part (by PCI vendor, device and subsystem ids, or drive model)";
    NOT_LOCATED = "LP0325", "not-located", "note", "against a plan: a root complex without a locator, its positions not compared";
    STRAY_BYTES = "LP0330", "stray-bytes", "warning", "control characters or invalid UTF-8 inside a text input (raw VPD bytes in an lspci dump) replaced by U+FFFD; the rest was read";
    NOT_ROOT_DUMP = "LP0335", "not-root-dump", "warning", "an lspci dump without capabilities (`Capabilities: <access denied>`, no LnkSta): not captured as root, so it holds no link data; capture it with `sudo lspci -vvnn`";
    CHASSIS_DOWNTRAINED = "LP0340", "chassis-downtrained", "error", "a device's link as the BMC reports it (Redfish PCIeInterface) is below its maximum: LanesInUse < MaxLanes or PCIeType < MaxPCIeType";
    LINK_OUTSIDE_TREE = "LP0341", "link-outside-tree", "note", "a Redfish link that points outside the tree being read: not followed";
    LINK_MISSING = "LP0342", "link-missing", "note", "a Redfish link inside the tree whose resource is not in it (the dump left it out)";
    CURRENT_LINK_ONLY = "LP0343", "current-link-only", "note", "the source gives current link speeds only (hwloc): a downtrain cannot be judged without the maximum";
    NO_BUS_NUMBERS = "LP0344", "no-bus-numbers", "note", "the source gives no PCI addresses for its devices: the bus tree is unknown, devices are listed by slot";
    PLATFORM_LACKS_SLOT = "LP0350", "platform-lacks-slot", "warning", "against the platform: the host reports a physical slot (or a card in one) that no slot or bay of the platform has; names the platform file to correct";
    SLOT_WIRED_ELSEWHERE = "LP0351", "slot-wired-elsewhere", "warning", "against the platform: a physical slot on another root port or width than every variant allows; names the platform line to correct";
    NUMA_UNEXPLAINED = "LP0352", "numa-unexplained", "warning", "against the platform: a root complex's NUMA node that no value of the platform's NUMA setting (NPS) explains; names the platform line";
    ONBOARD_UNMODELLED = "LP0353", "onboard-unmodelled", "warning", "against the platform: an onboard device (no physical slot) below a root port no root complex of the platform locates";
    NO_VARIANT = "LP0354", "no-variant", "warning", "against the platform: no value of an option (riser, front, NPS) matches the host";
    WRITE_NOT_ALLOWED = "LP0401", "write-not-allowed", "refusal", "the workload writes and --write was not given";
    DEVICE_NOT_NAMED = "LP0402", "device-not-named", "refusal", "writing to a block device not named with --destroy-data-on";
    MOUNTED = "LP0403", "mounted", "refusal", "the device or one of its partitions has a mounted filesystem";
    HAS_HOLDERS = "LP0404", "has-holders", "refusal", "the device or a partition has holders (LVM, md, dm)";
    ACTIVE_SWAP = "LP0405", "active-swap", "refusal", "the device or a partition is active swap";
    BACKS_LOOP = "LP0406", "backs-loop", "refusal", "the file (or a loop device's backing file) backs a loop device";
    SWAP_FILE = "LP0407", "swap-file", "refusal", "the file is an active swap file";
    OPEN_ELSEWHERE = "LP0408", "open-elsewhere", "refusal", "another process has the target open for writing, or holds a lock on it";
    UNKNOWN_DEVICE = "LP0409", "unknown-device", "refusal", "/sys/dev/block/M:m does not resolve: the device cannot be checked (fail closed)";
    ON_TMPFS = "LP0410", "on-tmpfs", "warning", "the file is on tmpfs/ramfs: O_DIRECT does not reach a disk";
    NO_IO_URING = "LP0411", "no-io-uring", "warning", "io_uring unavailable, the pread/pwrite thread engine ran instead";
    BELOW_CEILING = "LP0412", "below-ceiling", "warning", "a device reached less than half of its predicted ceiling";
    CURVE_SHORT = "LP0413", "curve-short", "note", "a --curve step fell more than 10 % short of its offered rate";
    IO_ERRORS = "LP0414", "io-errors", "error", "I/O errors";
    INTERRUPTED = "LP0415", "interrupted", "warning", "interrupted (Ctrl-C)";
    SPARSE_FILE = "LP0416", "sparse-file", "warning", "an existing file has holes/unwritten extents in the working set";
    STALLED = "LP0417", "stalled", "error", "I/Os still outstanding after the drain grace (stalled device)";
    URING_PUNTS = "LP0418", "uring-punts", "note", "io_uring punts every I/O to one kernel worker: the thread engine runs instead";
    NOT_VERIFIED = "LP0419", "not-verified", "refusal", "--mapped on a capture: a write, or I/O on a node not verified on the live host";
    CURVE_NO_MAXIMUM = "LP0420", "curve-no-maximum", "error", "--curve: the maximum run measured 0 IOPS, so no step could be offered";
    LEARNED_NOTHING_PLANNED = "LP0500", "learned-nothing-planned", "warning", "learn: the host shows no part on a port, so the learned build plans nothing (its round trip proves nothing)";
    LEARN_CAPTURES_DISAGREE = "LP0501", "learn-captures-disagree", "warning", "learn: the captures merged into one platform name different models or show different socket counts";
}

/// The table entry of a code string, if it is one.
pub fn code_def(code: &str) -> Option<&'static CodeDef> {
    CODES.iter().find(|c| c.code == code)
}

/// Anything that names a code: the typed table entry or (for the existing call sites) its
/// `"LP0302"` string.
pub trait IntoCode {
    fn into_code(self) -> &'static str;
}

impl IntoCode for &'static str {
    fn into_code(self) -> &'static str {
        self
    }
}

impl IntoCode for CodeDef {
    fn into_code(self) -> &'static str {
        self.code
    }
}

impl IntoCode for &'static CodeDef {
    fn into_code(self) -> &'static str {
        self.code
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub code: &'static str,
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
    pub fn new(code: impl IntoCode, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            code: code.into_code(),
            severity,
            subject: None,
            message: message.into(),
            help: None,
            location: Location::default(),
        }
    }

    pub fn error(code: impl IntoCode, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, message)
    }

    pub fn warning(code: impl IntoCode, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, message)
    }

    pub fn note(code: impl IntoCode, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Note, message)
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
    pub fn def(&self) -> Option<&'static CodeDef> {
        code_def(self.code)
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
            .then(a.code.cmp(b.code))
            .then(a.subject.cmp(&b.subject))
            .then(a.location.node.cmp(&b.location.node))
            .then(a.message.cmp(&b.message))
    });
}

/// True when any finding is an error (exit code 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}
