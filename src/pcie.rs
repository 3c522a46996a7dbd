//! Physical limits of PCIe links: generations, signalling rates, encodings and the
//! payload bandwidth a link really carries per direction.
//!
//! Two efficiency models live here, side by side, so the output can name the one it used:
//!
//! * [`Model::HeaderOnly`]: `MPS / (MPS + TLP overhead)` (Intel AN 456 style).
//! * [`Model::TlpLevel`] (the default): the Neugebauer et al. (SIGCOMM 2018) model. It first
//!   removes link-layer traffic from the raw rate (ACK and flow-control DLLPs at the rates the
//!   base spec recommends, SKIP ordered sets), then charges each TLP its framing and header.
//!   Device-to-host data (a drive returning read data) travels as posted memory writes;
//!   host-to-device data (a drive fetching the data it writes) travels as completions split at
//!   the root complex's read completion boundary, which costs more per byte.
//!
//! All constants sit in this module, with the spec tables they come from.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A PCIe generation (1 to 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Gen(u8);

impl Gen {
    pub const G1: Gen = Gen(1);
    pub const G2: Gen = Gen(2);
    pub const G3: Gen = Gen(3);
    pub const G4: Gen = Gen(4);
    pub const G5: Gen = Gen(5);
    pub const G6: Gen = Gen(6);
    pub const ALL: [Gen; 6] = [Gen(1), Gen(2), Gen(3), Gen(4), Gen(5), Gen(6)];

    /// `None` outside 1..=6.
    pub fn new(n: u8) -> Option<Gen> {
        (1..=6).contains(&n).then_some(Gen(n))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// Transfers per second per lane, in GT/s.
    pub fn gts(self) -> f64 {
        match self.0 {
            1 => 2.5,
            2 => 5.0,
            3 => 8.0,
            4 => 16.0,
            5 => 32.0,
            _ => 64.0,
        }
    }

    /// Fraction of the line rate that carries data after line encoding.
    pub fn encoding_efficiency(self) -> f64 {
        match self.0 {
            1 | 2 => 8.0 / 10.0,
            3..=5 => 128.0 / 130.0,
            // Gen6: PAM4 with 256-byte FLITs, 242 bytes of which are TLP/DLLP payload.
            _ => 242.0 / 256.0,
        }
    }

    pub fn encoding_name(self) -> &'static str {
        match self.0 {
            1 | 2 => "8b/10b",
            3..=5 => "128b/130b",
            _ => "PAM4 FLIT 242/256",
        }
    }

    /// The generation whose rate matches `gts` (as sysfs and lspci print it).
    pub fn from_gts(gts: f64) -> Option<Gen> {
        Gen::ALL.into_iter().find(|g| (g.gts() - gts).abs() < 0.01)
    }

    /// Raw data bandwidth per lane and direction after encoding, in GB/s (10^9 bytes).
    pub fn lane_gbs(self) -> f64 {
        self.gts() * self.encoding_efficiency() / 8.0
    }

    /// Rate as lspci prints it: `8GT/s`, `2.5GT/s`.
    pub fn lspci_speed(self) -> String {
        format!("{}GT/s", trim_float(self.gts()))
    }

    /// Rate as sysfs prints it since Linux 5.x: `8.0 GT/s`.
    pub fn sysfs_speed(self) -> String {
        format!("{:.1} GT/s", self.gts())
    }
}

fn trim_float(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as u64)
    } else {
        format!("{v}")
    }
}

impl TryFrom<u8> for Gen {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, Self::Error> {
        Gen::new(n).ok_or_else(|| format!("PCIe generation must be 1 to 6, got {n}"))
    }
}

impl From<Gen> for u8 {
    fn from(g: Gen) -> u8 {
        g.0
    }
}

impl fmt::Display for Gen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gen{}", self.0)
    }
}

/// Link widths the spec allows.
pub const WIDTHS: [u8; 6] = [1, 2, 4, 8, 12, 16];

/// True for a width the spec allows (x1, x2, x4, x8, x12, x16, x32).
pub fn valid_width(w: u8) -> bool {
    WIDTHS.contains(&w) || w == 32
}

/// Max payload sizes the spec allows.
pub const MPS_VALUES: [u16; 6] = [128, 256, 512, 1024, 2048, 4096];

pub fn valid_mps(mps: u16) -> bool {
    MPS_VALUES.contains(&mps)
}

/// Default max payload size on servers (Xeon SP and EPYC root ports run 256).
pub const DEFAULT_MPS: u16 = 256;

/// Bytes per TLP besides its payload, Gen3+ (4 B framing token + sequence number and LCRC
/// counted as 8 B of data-link overhead, 4 B common header, 12 B for a 64-bit memory
/// write header). Memory read requests cost the same; completions carry an 8 B header.
pub const MWR64_OVERHEAD: f64 = 24.0;
pub const MRD64_OVERHEAD: f64 = 24.0;
pub const CPLD_OVERHEAD: f64 = 20.0;
/// ACK and UpdateFC DLLPs: 6 B DLLP plus 2 B of framing.
pub const DLLP_BYTES: f64 = 8.0;
/// SKIP ordered sets: 4 symbols every 1538 (clock compensation).
pub const SKIP_BYTES: f64 = 4.0;
pub const SKIP_INTERVAL: f64 = 1538.0;
/// Read completion boundary of server root complexes: completions to a device's read
/// requests come back in 64-byte pieces (`RCB 64 bytes` in lspci's LnkCtl).
pub const DEFAULT_RCB: u16 = 64;

/// SAS and SATA (up to 12 Gb/s SAS-3 and 6 Gb/s SATA) use 8b/10b line encoding.
pub const SERIAL_STORAGE_ENCODING: f64 = 8.0 / 10.0;

/// Payload bandwidth of one SAS/SATA lane per direction in GB/s: 12 Gb/s -> 1.2, 6 -> 0.6.
pub fn serial_lane_gbs(gbps: f64) -> f64 {
    gbps * SERIAL_STORAGE_ENCODING / 8.0
}

/// Which efficiency model to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// `MPS / (MPS + 24)`, no link-layer traffic.
    HeaderOnly,
    /// TLP-level model after Neugebauer et al., SIGCOMM 2018, as this crate implemented it
    /// first: both DLLP streams charged to the direction that carries the data, 64 B
    /// completions.
    TlpLevel,
    /// The default: each direction carries its own TLPs (payload, header, framing, LCRC),
    /// SKIP ordered sets, and only the ACK/UpdateFC DLLPs for the TLPs flowing the other way
    /// (see [`TlpParams`] and docs/bandwidth.md).
    #[default]
    DirectionAware,
}

impl Model {
    pub const ALL: [Model; 3] = [Model::DirectionAware, Model::TlpLevel, Model::HeaderOnly];

    /// The name `--link-model` takes and JSON prints.
    pub fn name(self) -> &'static str {
        match self {
            Model::HeaderOnly => "header-only",
            Model::TlpLevel => "tlp-level",
            Model::DirectionAware => "direction-aware",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Model::HeaderOnly => "header-only (MPS/(MPS+24), Intel AN 456 style)",
            Model::TlpLevel => {
                "TLP-level (Neugebauer et al. 2018: ACK/FC DLLPs, SKIPs, 24 B MWr, 20 B CplD at RCB 64)"
            }
            Model::DirectionAware => {
                "direction-aware (PCIe base spec framing: each direction its own TLPs + SKIPs + the DLLPs for the reverse stream)"
            }
        }
    }
}

impl Model {
    /// Every `--link-model` value and the short alias [`FromStr`](std::str::FromStr) also
    /// takes.
    pub const NAMES: [(&'static str, &'static str); 3] = [
        ("direction-aware", "direction"),
        ("tlp-level", "tlp"),
        ("header-only", "header"),
    ];
}

impl std::str::FromStr for Model {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "direction-aware" | "direction" => Ok(Model::DirectionAware),
            "tlp-level" | "tlp" => Ok(Model::TlpLevel),
            "header-only" | "header" => Ok(Model::HeaderOnly),
            _ => Err(format!(
                "expected `direction-aware`, `tlp-level` or `header-only`, got `{s}`"
            )),
        }
    }
}

/// Transaction-layer parameters of the direction-aware model: Max Payload Size, Max Read
/// Request Size, the Read Completion Boundary and the completion size the root complex
/// returns, and whether TLPs carry an ECRC digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TlpParams {
    pub mps: u16,
    pub mrrs: u16,
    pub rcb: u16,
    /// Payload of each completion to a device's read request, before the bounds
    /// ([`TlpParams::completion_bytes`] applies MPS, MRRS and RCB).
    pub completion: u16,
    pub ecrc: bool,
}

impl Default for TlpParams {
    fn default() -> Self {
        TlpParams {
            mps: DEFAULT_MPS,
            mrrs: DEFAULT_MRRS,
            rcb: DEFAULT_RCB,
            completion: DEFAULT_COMPLETION,
            ecrc: false,
        }
    }
}

impl TlpParams {
    /// The completion payload in use: at most MPS and MRRS, a multiple of RCB, at least RCB.
    pub fn completion_bytes(&self) -> u16 {
        let c = self.completion.min(self.mps).min(self.mrrs);
        let rcb = self.rcb.max(1);
        ((c / rcb) * rcb).max(rcb)
    }

    /// Checks every value against what the spec allows.
    pub fn validate(&self) -> Result<(), String> {
        if !valid_mps(self.mps) {
            return Err(format!(
                "MPS must be one of {MPS_VALUES:?}, got {}",
                self.mps
            ));
        }
        if !valid_mps(self.mrrs) {
            return Err(format!(
                "MRRS must be one of {MPS_VALUES:?}, got {}",
                self.mrrs
            ));
        }
        if self.rcb != 64 && self.rcb != 128 {
            return Err(format!("RCB must be 64 or 128, got {}", self.rcb));
        }
        if self.completion == 0 || !self.completion.is_multiple_of(64) {
            return Err(format!(
                "completion size must be a multiple of 64, got {}",
                self.completion
            ));
        }
        Ok(())
    }
}

/// Default Max Read Request Size (Linux's default, and what `lspci` shows on most servers).
pub const DEFAULT_MRRS: u16 = 512;
/// Default completion payload: MPS. A ceiling must bound every measurement, so it takes
/// the largest completion the spec lets a root complex return (MPS-sized, RCB-aligned);
/// a root complex that splits at RCB 64 is modelled with `completion = 64`.
pub const DEFAULT_COMPLETION: u16 = 256;
/// Per-TLP framing, Gen1/2: STP (1) + sequence number (2) + LCRC (4) + END (1) = 8 B; Gen3-5:
/// STP token (4, carrying the sequence number) + LCRC (4) = 8 B.
pub const TLP_FRAMING: f64 = 8.0;
/// Header of a 64-bit memory write or read request (4 DW) and of a completion (3 DW).
pub const MEM64_HEADER: f64 = 16.0;
pub const CPL_HEADER: f64 = 12.0;
/// Optional end-to-end CRC digest.
pub const ECRC_BYTES: f64 = 4.0;
/// Gen3-5 SKP ordered sets: one 130-bit block per lane after at most 375 data blocks
/// (base spec 4.2.7.3: every 370 to 375 blocks; the ceiling takes the rarest).
pub const SKIP_BLOCK_INTERVAL: f64 = 375.0;
/// Gen6 FLIT mode: 236 of every 256 bytes carry TLPs (6 B DLP carry the DLLPs, 8 B CRC,
/// 6 B FEC); per-TLP framing and LCRC are gone, the header stays.
pub const FLIT_TLP_BYTES: f64 = 236.0;
pub const FLIT_BYTES: f64 = 256.0;

/// Recommended bytes between ACK DLLPs, and between UpdateFC DLLPs (PCIe base spec
/// tables 3-7..3-9 and 2-46..2-48; identical for Gen3 and later, so Gen3 values serve Gen4-6).
fn dllp_interval(generation: Gen, width: u8, mps: u16) -> f64 {
    // Columns: MPS 128, 256, 512, 1024, 2048, 4096.
    let col = MPS_VALUES.iter().position(|&m| m == mps).unwrap_or(1);
    let row: [f64; 6] = match (generation.number(), width) {
        (1, 1) => [237., 416., 559., 1071., 2095., 4143.],
        (1, 2) => [128., 217., 289., 545., 1057., 2081.],
        (1, 4) => [73., 118., 154., 282., 538., 1050.],
        (1, 8) => [67., 107., 86., 150., 278., 534.],
        (1, _) => [48., 72., 86., 150., 278., 534.],
        (2, 1) => [288., 467., 610., 1122., 2146., 4194.],
        (2, 2) => [179., 268., 340., 596., 1108., 2132.],
        (2, 4) => [124., 169., 205., 333., 589., 1101.],
        (2, 8) => [118., 158., 137., 201., 329., 585.],
        (2, _) => [99., 123., 137., 201., 329., 585.],
        (_, 1) => [333., 512., 655., 1167., 2191., 4239.],
        (_, 2) => [224., 313., 385., 641., 1153., 2177.],
        (_, 4) => [169., 214., 250., 378., 634., 1146.],
        (_, 8) => [163., 203., 182., 246., 374., 630.],
        _ => [144., 168., 182., 246., 374., 630.],
    };
    row[col]
}

/// One PCIe link as it trains: generation, width and max payload size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRate {
    #[serde(rename = "gen")]
    pub generation: Gen,
    pub width: u8,
    pub mps: u16,
}

impl LinkRate {
    pub fn new(generation: Gen, width: u8) -> Self {
        LinkRate {
            generation,
            width,
            mps: DEFAULT_MPS,
        }
    }

    pub fn with_mps(mut self, mps: u16) -> Self {
        self.mps = mps;
        self
    }

    /// Raw bandwidth per direction after line encoding, GB/s.
    pub fn raw_gbs(&self) -> f64 {
        self.generation.lane_gbs() * f64::from(self.width)
    }

    /// Bandwidth left for TLPs after ACK/FC DLLPs and SKIP ordered sets, GB/s.
    pub fn tlp_gbs(&self) -> f64 {
        let dllp = dllp_interval(self.generation, self.width, self.mps);
        let overhead = 2.0 * DLLP_BYTES / dllp + SKIP_BYTES / SKIP_INTERVAL;
        self.raw_gbs() * (1.0 - overhead)
    }

    /// Payload bandwidth device -> host (posted 64-bit memory writes of MPS bytes): what a
    /// drive's reads and a NIC's receives use.
    pub fn to_host_gbs(&self, model: Model) -> f64 {
        let mps = f64::from(self.mps);
        match model {
            Model::HeaderOnly => self.raw_gbs() * mps / (mps + MWR64_OVERHEAD),
            Model::TlpLevel => self.tlp_gbs() * mps / (mps + MWR64_OVERHEAD),
            Model::DirectionAware => self.direction_aware_to_host(&TlpParams {
                mps: self.mps,
                ..TlpParams::default()
            }),
        }
    }

    /// Payload bandwidth host -> device: the device reads host memory, and the data comes
    /// back as completions (TLP-level: of the read completion boundary, 64 B; direction-aware:
    /// of [`TlpParams::completion_bytes`]). What a drive's writes and a NIC's transmits use.
    pub fn to_device_gbs(&self, model: Model) -> f64 {
        match model {
            Model::HeaderOnly => {
                let mps = f64::from(self.mps);
                self.raw_gbs() * mps / (mps + MWR64_OVERHEAD)
            }
            Model::TlpLevel => {
                let chunk = f64::from(DEFAULT_RCB.min(self.mps));
                self.tlp_gbs() * chunk / (chunk + CPLD_OVERHEAD)
            }
            Model::DirectionAware => self.direction_aware_to_device(&TlpParams {
                mps: self.mps,
                ..TlpParams::default()
            }),
        }
    }

    /// Payload bandwidth under `model` with explicit transaction-layer parameters, device
    /// to host (`to_host`) or host to device. The header-only and TLP-level models read only
    /// `params.mps`.
    pub fn payload_gbs(&self, model: Model, params: &TlpParams, to_host: bool) -> f64 {
        let l = self.with_mps(params.mps);
        match (model, to_host) {
            (Model::DirectionAware, true) => l.direction_aware_to_host(params),
            (Model::DirectionAware, false) => l.direction_aware_to_device(params),
            (m, true) => l.to_host_gbs(m),
            (m, false) => l.to_device_gbs(m),
        }
    }

    /// Line bandwidth per direction left after SKIP ordered sets, GB/s (Gen6: after the
    /// FLIT's DLP, CRC and FEC bytes).
    pub fn after_skip_gbs(&self) -> f64 {
        let g = self.generation.number();
        let line = self.generation.gts() * f64::from(self.width) / 8.0;
        match g {
            1 | 2 => line * 0.8 * (1.0 - SKIP_BYTES / SKIP_INTERVAL),
            3..=5 => line * (128.0 / 130.0) * (SKIP_BLOCK_INTERVAL / (SKIP_BLOCK_INTERVAL + 1.0)),
            _ => line * FLIT_TLP_BYTES / FLIT_BYTES,
        }
    }

    fn tlp_extra(&self, header: f64, params: &TlpParams) -> f64 {
        let ecrc = if params.ecrc { ECRC_BYTES } else { 0.0 };
        if self.generation.number() >= 6 {
            header + ecrc
        } else {
            TLP_FRAMING + header + ecrc
        }
    }

    /// Bytes of link time between ACK (and between UpdateFC) DLLPs at most: the spec's
    /// AckNak latency limit in symbol times, each symbol time carrying `width` bytes.
    fn ack_interval_bytes(&self, mps: u16) -> f64 {
        dllp_interval(self.generation, self.width, mps) * f64::from(self.width)
    }

    /// Device to host, direction-aware: the drive's read data travels upstream as posted
    /// 64-bit memory writes of MPS bytes. The upstream direction carries those TLPs and SKIP
    /// ordered sets; the ACK and UpdateFC DLLPs for them travel downstream, and the
    /// downstream TLPs of a read stream (doorbells, command fetch completions) are too few to
    /// need DLLPs worth counting (< 0.2 % at 64 KiB per command), so none ride upstream.
    fn direction_aware_to_host(&self, params: &TlpParams) -> f64 {
        let mps = f64::from(self.mps);
        self.after_skip_gbs() * mps / (mps + self.tlp_extra(MEM64_HEADER, params))
    }

    /// Host to device, direction-aware: the device sends memory read requests of MRRS
    /// bytes upstream; the data comes back downstream as completions of
    /// [`TlpParams::completion_bytes`]. The downstream direction carries those completions,
    /// SKIP ordered sets, and one ACK and one UpdateFC DLLP (8 B each) per read request
    /// received upstream, coalesced up to the spec's AckNak latency limit.
    fn direction_aware_to_device(&self, params: &TlpParams) -> f64 {
        let c = f64::from(params.completion_bytes());
        let mrrs = f64::from(params.mrrs);
        let per_request = (mrrs / c).ceil() * (c + self.tlp_extra(CPL_HEADER, params));
        let dllps = if self.generation.number() >= 6 {
            // FLIT mode carries DLLPs in each FLIT's DLP bytes.
            0.0
        } else {
            let t = self.ack_interval_bytes(self.mps);
            2.0 * DLLP_BYTES * per_request.min(t) / t
        };
        self.after_skip_gbs() * mrrs / (per_request + dllps)
    }

    /// `8.0 GT/s x4` as sysfs and users write it.
    pub fn label(&self) -> String {
        format!("{} x{}", self.generation.sysfs_speed(), self.width)
    }

    /// `Gen3 x4`.
    pub fn short(&self) -> String {
        format!("{} x{}", self.generation, self.width)
    }
}

impl fmt::Display for LinkRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn raw_bandwidth_matches_the_table() {
        // platform-facts.md: GB/s per direction for x1, x4, x8, x16.
        let table: [(u8, f64, f64, f64, f64); 6] = [
            (1, 0.250, 1.00, 2.00, 4.00),
            (2, 0.500, 2.00, 4.00, 8.00),
            (3, 0.985, 3.94, 7.88, 15.75),
            (4, 1.969, 7.88, 15.75, 31.5),
            (5, 3.938, 15.75, 31.5, 63.0),
            (6, 7.56, 30.3, 60.5, 121.0),
        ];
        for (g, x1, x4, x8, x16) in table {
            let g = Gen::new(g).unwrap();
            // The table is rounded to 3-4 significant digits: compare within 0.5 %.
            for (w, want) in [(1, x1), (4, x4), (8, x8), (16, x16)] {
                let got = LinkRate::new(g, w).raw_gbs();
                assert!(close(got / want, 1.0, 0.005), "{g} x{w}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn gen3_x4_header_only_is_about_3_6() {
        // 3.9385 * 256/280 = 3.6009
        let l = LinkRate::new(Gen::G3, 4);
        assert!(close(l.to_host_gbs(Model::HeaderOnly), 3.6009, 0.0005));
    }

    #[test]
    fn gen3_x4_tlp_level_is_about_3_3() {
        // By hand: raw 4 * 8 * 128/130 / 8 = 3.93846 GB/s.
        // Link-layer overhead at x4, MPS 256: ACK 8/214 + FC 8/214 + SKIP 4/1538 = 0.077367.
        // TLP bandwidth 3.93846 * 0.922633 = 3.63375; payload 256/280 of it = 3.32217.
        let l = LinkRate::new(Gen::G3, 4);
        assert!(close(l.tlp_gbs(), 3.63375, 0.0005));
        assert!(close(l.to_host_gbs(Model::TlpLevel), 3.32217, 0.0005));
        // Host to device: 64 B completions, 64/84 of 3.63375 = 2.76857.
        assert!(close(l.to_device_gbs(Model::TlpLevel), 2.76857, 0.0005));
    }

    #[test]
    fn gen3_x16_uplink_by_hand() {
        // raw 15.7538; overhead 16/168 + 4/1538 = 0.097840; TLP 14.2125; *256/280 = 12.9943.
        let l = LinkRate::new(Gen::G3, 16);
        assert!(close(l.to_host_gbs(Model::TlpLevel), 12.9943, 0.001));
    }

    #[test]
    fn writes_cost_more_than_reads_on_every_link() {
        for g in Gen::ALL {
            for w in [1, 2, 4, 8, 16] {
                for mps in MPS_VALUES {
                    let l = LinkRate::new(g, w).with_mps(mps);
                    assert!(l.to_device_gbs(Model::TlpLevel) < l.to_host_gbs(Model::TlpLevel));
                }
            }
        }
    }

    #[test]
    fn smaller_mps_costs_more() {
        let a = LinkRate::new(Gen::G3, 4).with_mps(128);
        let b = LinkRate::new(Gen::G3, 4).with_mps(256);
        // header-only: 128/152 = 84.2 %, 256/280 = 91.4 %.
        assert!(close(
            a.to_host_gbs(Model::HeaderOnly) / a.raw_gbs(),
            0.8421,
            0.0001
        ));
        assert!(close(
            b.to_host_gbs(Model::HeaderOnly) / b.raw_gbs(),
            0.9143,
            0.0001
        ));
    }

    #[test]
    fn sas_and_sata_lanes_by_hand() {
        // 12 Gb/s * 8/10 / 8 = 1.2 GB/s; 6 Gb/s -> 0.6 GB/s.
        assert!(close(serial_lane_gbs(12.0), 1.2, 1e-12));
        assert!(close(serial_lane_gbs(6.0), 0.6, 1e-12));
    }

    #[test]
    fn speeds_print_like_the_kernel_and_lspci() {
        assert_eq!(Gen::G3.sysfs_speed(), "8.0 GT/s");
        assert_eq!(Gen::G1.lspci_speed(), "2.5GT/s");
        assert_eq!(Gen::G4.lspci_speed(), "16GT/s");
        assert_eq!(Gen::from_gts(2.5), Some(Gen::G1));
        assert_eq!(Gen::from_gts(7.0), None);
        assert_eq!(LinkRate::new(Gen::G4, 4).label(), "16.0 GT/s x4");
        assert!(Gen::new(0).is_none() && Gen::new(7).is_none());
        assert!(!valid_width(3) && !valid_width(0) && valid_width(16));
    }
}
