//! End to end: the bottleneck where real systems hit it. Beside the drives and the PCIe
//! links ([`crate::flow::analyze`]), a build's throughput is bounded by its CPUs (cores x
//! clock x utilisation / cycles per I/O of the I/O stack), its memory (channels x MT/s x 8
//! bytes per socket) and, for served storage (`--serve`: drives -> memory -> NIC), its NICs.
//! Each bound is a rate of client I/Os; the smallest binds and is named.
//!
//! Two views: **IOPS** (4 KiB I/Os, the drives' 4K random IOPS specs) and **bandwidth**
//! (large I/Os of [`SystemOptions::seq_io_bytes`], the drives' sequential specs); each in both
//! directions. A write with replication factor R costs R device writes (and R x the stack's
//! cycles); served, it also brings R x its bytes in through the NICs (the client's copy and
//! R - 1 replicas from peers) and sends R - 1 out. See docs/bandwidth.md, "End to end".
//!
//! The figures `place` weighs: [`SystemReport::served`] is the served-storage aggregate
//! (GB/s) of a direction in the bandwidth view, [`EndToEnd::binding`] the element that binds.

use super::{Dir, FlowReport, Options, Scope, Workload};
use crate::cpu::{MAX_CYCLES, MAX_CYCLES_PER_BYTE, Stack};
use crate::finding::{Code, Finding};
use crate::flow::net::{ElementKind, NetError};
use crate::plan::{PlanCpu, Report};
use crate::topology::DeviceClass;
use serde::Serialize;

/// What an I/O costs the CPU.
#[derive(Debug, Clone, PartialEq)]
pub enum Cost {
    /// A stack of platforms/stacks.toml.
    Stack(Stack),
    /// `--cycles-per-io` (and `--cycles-per-byte`): a measured figure (`laneplan probe`
    /// prints one).
    PerIo {
        cycles_per_io: f64,
        cycles_per_byte: f64,
    },
    /// `--cycles-per-op` with `--ios-per-op`: an application's cost per operation
    /// (a database transaction), each operation issuing `ios_per_op` I/Os.
    PerOp { cycles_per_op: f64, ios_per_op: f64 },
}

/// Options of the end-to-end analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemOptions {
    /// `None`: the CPU is not weighed.
    pub cost: Option<Cost>,
    /// A CPU id that overrides the build's (`--cpu`).
    pub cpu: Option<String>,
    /// The share of the cores the I/O may use, (0, 1].
    pub utilisation: f64,
    /// Data leaves through the NICs (a storage node serving clients).
    pub serve: bool,
    /// Copies of each write, 1 to 16.
    pub replication: u32,
    /// The I/O size of the bandwidth view (bytes).
    pub seq_io_bytes: f64,
}

impl Default for SystemOptions {
    fn default() -> Self {
        SystemOptions {
            cost: None,
            cpu: None,
            utilisation: 1.0,
            serve: false,
            replication: 1,
            seq_io_bytes: DEFAULT_SEQ_IO,
        }
    }
}

/// The bandwidth view's I/O size unless `--io-size` says otherwise: 128 KiB.
pub const DEFAULT_SEQ_IO: f64 = 131_072.0;
/// The IOPS view's I/O size: 4 KiB, as the drives' random IOPS specs.
pub const SMALL_IO: f64 = 4096.0;

/// A figure a user gave on the command line, checked: finite and within `[min, max]`
/// (`flag` names it in the message: `--cycles-per-io must be ...`).
pub fn check_figure(flag: &str, v: f64, min: f64, max: f64) -> Result<f64, String> {
    if !v.is_finite() || v < min || v > max {
        return Err(format!(
            "{flag} must be a finite figure from {min} to {max}, got {v}"
        ));
    }
    Ok(v)
}

impl Cost {
    /// A per-I/O cost from user figures, checked.
    pub fn per_io(cycles_per_io: f64, cycles_per_byte: f64) -> Result<Cost, String> {
        Ok(Cost::PerIo {
            cycles_per_io: check_figure("--cycles-per-io", cycles_per_io, 1.0, MAX_CYCLES)?,
            cycles_per_byte: check_figure(
                "--cycles-per-byte",
                cycles_per_byte,
                0.0,
                MAX_CYCLES_PER_BYTE,
            )?,
        })
    }
    /// A per-operation cost, checked; `ios_per_op` missing is an error that names it.
    pub fn per_op(cycles_per_op: f64, ios_per_op: Option<f64>) -> Result<Cost, String> {
        let Some(n) = ios_per_op else {
            return Err(
                "--cycles-per-op needs --ios-per-op (how many I/Os one operation issues)".into(),
            );
        };
        Ok(Cost::PerOp {
            cycles_per_op: check_figure("--cycles-per-op", cycles_per_op, 1.0, MAX_CYCLES)?,
            ios_per_op: check_figure("--ios-per-op", n, 1e-6, 1e6)?,
        })
    }
    /// Cycles one device I/O of `bytes` costs (per-op: the op's cost over its I/Os).
    fn cycles(&self, bytes: f64) -> f64 {
        match self {
            Cost::Stack(s) => s.cycles(bytes),
            Cost::PerIo {
                cycles_per_io,
                cycles_per_byte,
            } => cycles_per_io + cycles_per_byte * bytes,
            Cost::PerOp {
                cycles_per_op,
                ios_per_op,
            } => cycles_per_op / ios_per_op,
        }
    }
}

/// The kind of element that bounds the end-to-end rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Bind {
    /// The drives' specs (4K IOPS or sequential GB/s, summed).
    Drives,
    /// A controller's spec (PERC H740P, 6.8 GB/s): the expected max-flow below the drives.
    Controller,
    /// The physical path: PCIe links, switch uplinks, SAS/SATA lanes, root complexes,
    /// inter-socket links (the aggregate ceiling).
    Links,
    /// Memory: channels x MT/s x 8 B per socket.
    Memory,
    /// The NICs (served storage only).
    Nic,
    /// The CPUs at the I/O stack's cost.
    Cpu,
}

impl Bind {
    pub fn name(self) -> &'static str {
        match self {
            Bind::Drives => "drives",
            Bind::Controller => "controller",
            Bind::Links => "links",
            Bind::Memory => "memory",
            Bind::Nic => "nic",
            Bind::Cpu => "cpu",
        }
    }
}

/// One element's bound on the client I/O rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bound {
    pub element: Bind,
    /// The network element's id where one element sets it (a link, a switch uplink).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub label: String,
    /// Client I/Os per second it allows.
    pub iops: f64,
    /// The same in client GB/s (iops x I/O size).
    pub gbs: f64,
    /// How the figure comes about (`32 cores x 2.10 GHz x 100 % / 10,000 cycles`).
    pub basis: String,
}

/// One view in one direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndToEnd {
    pub io_bytes: f64,
    /// Every element weighed, in a fixed order (drives, controller, links, memory, nic, cpu).
    pub elements: Vec<Bound>,
    /// The element that binds first (the smallest bound; on a tie the first in order).
    pub binding: Bind,
    /// Its network element id, where one element sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding_id: Option<String>,
    pub binding_label: String,
    /// The rate the build delivers: the binding bound (client I/Os per second).
    pub iops: f64,
    /// The same in client GB/s.
    pub gbs: f64,
    /// Operations per second, for a per-op cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<f64>,
    /// Cores the CPU cost takes at that rate (at the clock charged, all sockets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_cores_used: Option<f64>,
    /// Cores left (of the utilisation's share): 0 when the CPU binds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_cores_spare: Option<f64>,
}

impl EndToEnd {
    pub fn bound(&self, b: Bind) -> Option<&Bound> {
        self.elements.iter().find(|e| e.element == b)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct View {
    pub read: EndToEnd,
    pub write: EndToEnd,
}

impl View {
    pub fn dir(&self, d: Dir) -> &EndToEnd {
        match d {
            Dir::Read => &self.read,
            Dir::Write => &self.write,
        }
    }
}

/// The CPU as weighed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuUse {
    pub id: String,
    pub name: String,
    pub sockets: u32,
    pub cores: u32,
    pub clock_ghz: f64,
    /// `base` or `all-core`.
    pub clock: &'static str,
    pub utilisation: f64,
    /// `build`, `platform` (its default) or `flag` (`--cpu`).
    pub from: &'static str,
    pub memory_mts: u32,
    pub memory_channels: u32,
    /// All sockets: sockets x channels x MT/s x 8 B.
    pub memory_gbs: f64,
    pub source: Option<String>,
}

/// The cost as weighed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostUse {
    /// `stack`, `cycles-per-io` or `cycles-per-op`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_per_io: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_per_byte: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_per_op: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ios_per_op: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The end-to-end report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemReport {
    /// `None`: no CPU known (the CPU is not weighed).
    pub cpu: Option<CpuUse>,
    /// `None`: no cost figure given (the CPU is not weighed).
    pub cost: Option<CostUse>,
    pub served: bool,
    pub replication: u32,
    /// NIC GB/s to clients (memory to NIC) and from them, all NICs, each at the smaller of
    /// its port rate and its link (served only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic_out_gbs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic_in_gbs: Option<f64>,
    /// 4 KiB I/Os.
    pub iops: View,
    /// Large I/Os (`io_bytes` of each entry).
    pub bandwidth: View,
}

impl SystemReport {
    /// The aggregate the node delivers in a direction (bandwidth view, GB/s): with `--serve`
    /// the served-storage aggregate, min of drives, links, memory, CPU and NICs.
    pub fn served(&self, d: Dir) -> f64 {
        self.bandwidth.dir(d).gbs
    }
}

/// Analyses a checked build end to end. `opts` are the bandwidth options (memory target,
/// link model, scope); the workload is set per view.
pub fn analyze(
    report: &Report,
    opts: &Options,
    sys: &SystemOptions,
) -> Result<(SystemReport, Vec<Finding>), SystemError> {
    let mut findings = Vec::new();
    let plan_cpu: Option<PlanCpu> = match &sys.cpu {
        Some(id) => {
            let cat = crate::cpu::builtin();
            let Some(c) = cat.cpu(id) else {
                return Err(SystemError::Input(cat.unknown_cpu(id)));
            };
            let sockets = report.plan.topology.sockets().len().max(1) as u32;
            Some(PlanCpu {
                cpu: c.clone(),
                sockets,
                memory_mts: report
                    .cpu
                    .as_ref()
                    .map_or(c.memory_mts, |p| p.memory_mts.min(c.memory_mts)),
                from: "flag",
            })
        }
        None => report.cpu.clone(),
    };
    if sys.cost.is_some() && plan_cpu.is_none() {
        findings.push(
            Finding::of(
                Code::NoCpu,
                "a cost figure was given, but the build names no CPU and its platform no default: the CPU is not weighed",
            )
            .with_help("name one in the build (`cpu = \"xeon-gold-6130\"`) or with --cpu"),
        );
    }
    let analyze_with = |workload: Workload, scope: Scope| -> Result<FlowReport, NetError> {
        let o = Options {
            workload,
            scope,
            ..opts.clone()
        };
        super::analyze_plan(&report.plan, &o).map(|(f, _)| f)
    };
    let small = analyze_with(Workload::Rand4k, opts.scope)?;
    let seq = analyze_with(Workload::Seq, opts.scope)?;
    let (mut nic_out, mut nic_in) = (None, None);
    if sys.serve {
        let all = analyze_with(Workload::Seq, Scope::All)?;
        let nics: Vec<_> = all
            .devices
            .iter()
            .filter(|d| d.class == DeviceClass::Nic)
            .collect();
        if nics.is_empty() {
            findings.push(
                Finding::of(
                    Code::NoNic,
                    "--serve: the data leaves through the NICs, and the build has none",
                )
                .with_help("place a NIC, or drop --serve to weigh the drives into memory only"),
            );
        } else {
            nic_out = Some(nics.iter().map(|d| d.write.alone_gbs).sum::<f64>());
            nic_in = Some(nics.iter().map(|d| d.read.alone_gbs).sum::<f64>());
        }
    }
    // The memory a workload can use: every socket's with local memory, one socket's when
    // everything targets one.
    let memory_gbs = plan_cpu.as_ref().map(|c| match opts.memory {
        super::Memory::Local => c.memory_gbs(),
        super::Memory::Socket(_) => c.cpu.memory_gbs_at(c.memory_mts),
    });
    let ctx = Ctx {
        topology: &report.plan.topology,
        sys,
        cpu: plan_cpu.as_ref(),
        memory_gbs,
        nic_out,
        nic_in,
    };
    let view = |f: &FlowReport, io: f64| View {
        read: ctx.end_to_end(f, Dir::Read, io),
        write: ctx.end_to_end(f, Dir::Write, io),
    };
    let out = SystemReport {
        cpu: plan_cpu.as_ref().map(|c| CpuUse {
            id: c.cpu.id.clone(),
            name: c.cpu.name.clone(),
            sockets: c.sockets,
            cores: c.cores(),
            clock_ghz: c.cpu.clock_ghz(),
            clock: c.cpu.clock_kind(),
            utilisation: sys.utilisation,
            from: c.from,
            memory_mts: c.memory_mts,
            memory_channels: c.cpu.memory_channels,
            memory_gbs: c.memory_gbs(),
            source: c.cpu.source.clone(),
        }),
        cost: sys.cost.as_ref().map(cost_use),
        served: sys.serve,
        replication: sys.replication,
        nic_out_gbs: nic_out,
        nic_in_gbs: nic_in,
        iops: view(&small, SMALL_IO),
        bandwidth: view(&seq, sys.seq_io_bytes),
    };
    findings.extend(system_findings(&out));
    Ok((out, findings))
}

/// Why the end-to-end analysis could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SystemError {
    /// Bad input (an unknown CPU named on the command line), with did-you-mean.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Net(#[from] NetError),
}

fn cost_use(c: &Cost) -> CostUse {
    let none = CostUse {
        kind: "stack",
        stack: None,
        name: None,
        cycles_per_io: None,
        cycles_per_byte: None,
        cycles_per_op: None,
        ios_per_op: None,
        source: None,
    };
    match c {
        Cost::Stack(s) => CostUse {
            stack: Some(s.id.clone()),
            name: Some(s.name.clone()),
            cycles_per_io: Some(s.cycles_per_io),
            cycles_per_byte: Some(s.cycles_per_byte),
            source: s.source.clone(),
            ..none
        },
        Cost::PerIo {
            cycles_per_io,
            cycles_per_byte,
        } => CostUse {
            kind: "cycles-per-io",
            cycles_per_io: Some(*cycles_per_io),
            cycles_per_byte: Some(*cycles_per_byte),
            ..none
        },
        Cost::PerOp {
            cycles_per_op,
            ios_per_op,
        } => CostUse {
            kind: "cycles-per-op",
            cycles_per_op: Some(*cycles_per_op),
            ios_per_op: Some(*ios_per_op),
            ..none
        },
    }
}

struct Ctx<'a> {
    topology: &'a crate::topology::Topology,
    sys: &'a SystemOptions,
    cpu: Option<&'a PlanCpu>,
    memory_gbs: Option<f64>,
    nic_out: Option<f64>,
    nic_in: Option<f64>,
}

/// `1,792,000`: thousands separated, for the basis texts.
pub fn grouped(v: f64) -> String {
    let r = v.round();
    if !r.is_finite() || r.abs() >= 1e15 || (v - r).abs() > 1e-9 {
        return format!("{v}");
    }
    let s = format!("{}", r.abs() as u64);
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if r < 0.0 { format!("-{out}") } else { out }
}

impl Ctx<'_> {
    /// An element's label with the device it carries, where that is a card or controller
    /// whose name the label lacks: `Integrated storage controller slot link Gen3 x8 (HBA330
    /// Mini)`, so a SAS/SATA build's bottleneck names its controller.
    fn named(&self, e: &super::net::Element) -> String {
        let Some(ix) = e.node else {
            return e.label.clone();
        };
        let n = self.topology.node(ix);
        match &n.kind {
            crate::topology::NodeKind::Device { class, .. }
                if !class.is_drive() && !e.names_node(ix) =>
            {
                format!("{} ({})", e.label, n.label)
            }
            _ => e.label.clone(),
        }
    }

    /// The end-to-end view of one direction: every element's bound and the one that binds.
    fn end_to_end(&self, f: &FlowReport, dir: Dir, io: f64) -> EndToEnd {
        let w = Way::new(f, dir, io, self.sys.replication as f64);
        let mut el = vec![self.drives_bound(&w)];
        el.extend(self.controller_bound(&w));
        el.push(self.links_bound(&w));
        el.extend(self.memory_bound(&w));
        el.extend(self.nic_bound(&w));
        let cpu = self.cpu_bound(&w);
        let per_io_cycles = cpu.as_ref().map(|(_, cycles)| *cycles);
        el.extend(cpu.map(|(b, _)| b));
        let best = binding(&el, io);
        let (used, spare) = self.cpu_cores(best.iops, per_io_cycles);
        let ops = match &self.sys.cost {
            Some(Cost::PerOp { ios_per_op, .. }) if self.cpu.is_some() => {
                Some(best.iops / ios_per_op)
            }
            _ => None,
        };
        EndToEnd {
            io_bytes: io,
            binding: best.element,
            binding_id: best.id.clone(),
            binding_label: best.label.clone(),
            iops: best.iops,
            gbs: best.gbs,
            ops,
            cpu_cores_used: used,
            cpu_cores_spare: spare,
            elements: el,
        }
    }

    /// The drives' bound: their specs summed, over the copies each client I/O writes.
    fn drives_bound(&self, w: &Way) -> Bound {
        let agg = w.f.aggregate(w.dir);
        let what = match w.dir {
            Dir::Read => "read",
            Dir::Write => "write",
        };
        bound(
            Bind::Drives,
            None,
            "the drives (their specs)".into(),
            agg.demand_gbs * 1e9 / w.device_bytes(),
            w.io,
            format!("{:.2} GB/s of {what} specs{}", agg.demand_gbs, w.per),
        )
    }

    /// A controller's bound, only when its spec holds the expected max-flow measurably below
    /// both the drives and the links (a relative margin: summing 24 drives' specs must not
    /// make a controller out of rounding).
    fn controller_bound(&self, w: &Way) -> Option<Bound> {
        let (f, dir) = (w.f, w.dir);
        let agg = f.aggregate(dir);
        if agg.expected_gbs >= agg.demand_gbs.min(agg.ceiling_gbs) * (1.0 - 1e-6) {
            return None;
        }
        let ctrl = f
            .elements
            .iter()
            .filter(|e| e.element.kind == ElementKind::Transit)
            .find(|e| {
                e.dir(dir)
                    .capacity_gbs
                    .is_some_and(|c| e.dir(dir).fair_gbs >= c * (1.0 - 1e-6))
            });
        Some(bound(
            Bind::Controller,
            ctrl.map(|e| e.element.id.clone()),
            ctrl.map_or("a controller's spec".into(), |e| self.named(&e.element)),
            agg.expected_gbs * 1e9 / w.device_bytes(),
            w.io,
            format!("{:.2} GB/s expected max-flow{}", agg.expected_gbs, w.per),
        ))
    }

    /// The physical path's bound: the aggregate ceiling, named by its first bottleneck.
    fn links_bound(&self, w: &Way) -> Bound {
        let f = w.f;
        let agg = f.aggregate(w.dir);
        let link = agg
            .bottlenecks
            .first()
            .and_then(|id| f.elements.iter().find(|e| &e.element.id == id));
        bound(
            Bind::Links,
            link.map(|e| e.element.id.clone()),
            link.map_or("the physical path (aggregate ceiling)".into(), |e| {
                self.named(&e.element)
            }),
            agg.ceiling_gbs * 1e9 / w.device_bytes(),
            w.io,
            format!("{:.2} GB/s aggregate ceiling{}", agg.ceiling_gbs, w.per),
        )
    }

    /// Memory bandwidth's bound, where a CPU is known.
    fn memory_bound(&self, w: &Way) -> Option<Bound> {
        let (m, c) = (self.memory_gbs?, self.cpu?);
        let per_io = w.memory_per_io(self.sys.serve);
        Some(bound(
            Bind::Memory,
            None,
            "memory bandwidth".into(),
            m * 1e9 / per_io,
            w.io,
            format!(
                "{:.2} GB/s ({} x {} channels x {} MT/s x 8 B) / {} B per I/O",
                m,
                if m > c.cpu.memory_gbs_at(c.memory_mts) + 1e-9 {
                    c.sockets
                } else {
                    1
                },
                c.cpu.memory_channels,
                c.memory_mts,
                grouped(per_io)
            ),
        ))
    }

    /// The NICs' bound on served storage: out to the clients on reads; in (and out to the
    /// peers, for copies) on writes.
    fn nic_bound(&self, w: &Way) -> Option<Bound> {
        if !self.sys.serve {
            return None;
        }
        let (out, inn) = (self.nic_out?, self.nic_in?);
        let (io, r) = (w.io, w.r);
        let (iops, basis) = match w.dir {
            Dir::Read => (out * 1e9 / io, format!("{out:.2} GB/s to the clients")),
            Dir::Write => {
                let by_in = inn * 1e9 / (io * r);
                let by_out = if r > 1.0 {
                    out * 1e9 / (io * (r - 1.0))
                } else {
                    f64::INFINITY
                };
                (
                    by_in.min(by_out),
                    if r > 1.0 {
                        format!("{inn:.2} GB/s in for {r} copies, {out:.2} GB/s out")
                    } else {
                        format!("{inn:.2} GB/s from the clients")
                    },
                )
            }
        };
        Some(bound(Bind::Nic, None, "the NICs".into(), iops, io, basis))
    }

    /// The CPUs' bound where a cost and a CPU are known, with the cycles one client I/O
    /// costs.
    fn cpu_bound(&self, w: &Way) -> Option<(Bound, f64)> {
        let (cost, c) = (self.sys.cost.as_ref()?, self.cpu?);
        let r = w.r;
        let cycles_dev = cost.cycles(w.io);
        let cycles = match cost {
            Cost::PerOp { .. } => cycles_dev,
            _ => cycles_dev * r,
        };
        let hz = c.cores() as f64 * c.cpu.clock_ghz() * 1e9 * self.sys.utilisation;
        let basis = match cost {
            Cost::PerOp {
                cycles_per_op,
                ios_per_op,
            } => format!(
                "{} cores x {:.2} GHz x {:.0} % / {} cycles per op, {} I/Os per op",
                c.cores(),
                c.cpu.clock_ghz(),
                self.sys.utilisation * 100.0,
                grouped(*cycles_per_op),
                ios_per_op
            ),
            _ => format!(
                "{} cores x {:.2} GHz x {:.0} % / {} cycles{}",
                c.cores(),
                c.cpu.clock_ghz(),
                self.sys.utilisation * 100.0,
                grouped(cycles),
                if r > 1.0 {
                    format!(" ({r} copies)")
                } else {
                    String::new()
                }
            ),
        };
        let b = bound(
            Bind::Cpu,
            None,
            format!("the CPUs ({})", c.cpu.name),
            hz / cycles,
            w.io,
            basis,
        );
        Some((b, cycles))
    }

    /// Cores the CPU cost takes at `iops`, and the cores left of the utilisation's share.
    fn cpu_cores(&self, iops: f64, per_io_cycles: Option<f64>) -> (Option<f64>, Option<f64>) {
        match (per_io_cycles, self.cpu) {
            (Some(cy), Some(c)) => {
                let clock = c.cpu.clock_ghz() * 1e9;
                let used = iops * cy / clock;
                let avail = c.cores() as f64 * self.sys.utilisation;
                (Some(used), Some((avail - used).max(0.0)))
            }
            _ => (None, None),
        }
    }
}

/// One direction of one view: the flow report, the client I/O size and the copies.
struct Way<'f> {
    f: &'f FlowReport,
    dir: Dir,
    io: f64,
    /// Copies each client I/O makes on the drives (1 on reads).
    r: f64,
    /// ` / 3 copies` for the basis texts (empty for one copy).
    per: String,
}

impl<'f> Way<'f> {
    /// The direction's facts: reads make one copy, writes `replication`.
    fn new(f: &'f FlowReport, dir: Dir, io: f64, replication: f64) -> Self {
        let r = match dir {
            Dir::Read => 1.0,
            Dir::Write => replication,
        };
        let per = if r > 1.0 {
            format!(" / {r} copies")
        } else {
            String::new()
        };
        Way { f, dir, io, r, per }
    }

    /// Bytes per client I/O that cross the drives.
    fn device_bytes(&self) -> f64 {
        self.io * self.r
    }

    /// Bytes per client I/O that cross memory (served storage also sends to the NICs).
    fn memory_per_io(&self, serve: bool) -> f64 {
        let (io, r) = (self.io, self.r);
        match (self.dir, serve) {
            (Dir::Read, false) => io,
            (Dir::Read, true) => 2.0 * io,
            (Dir::Write, false) => io * r,
            // In from clients and peers (R), out to the drives (R), out to peers (R - 1).
            (Dir::Write, true) => io * (3.0 * r - 1.0),
        }
    }
}

/// One element's bound: `iops` client I/Os per second of `io` bytes.
fn bound(
    element: Bind,
    id: Option<String>,
    label: String,
    iops: f64,
    io: f64,
    basis: String,
) -> Bound {
    Bound {
        element,
        id,
        label,
        iops,
        gbs: iops * io / 1e9,
        basis,
    }
}

/// The bound that binds first: the smallest, the first in order on a tie.
fn binding(el: &[Bound], io: f64) -> Bound {
    el.iter()
        .fold(None::<&Bound>, |b, e| match b {
            Some(b) if b.iops <= e.iops * (1.0 + 1e-9) => Some(b),
            _ => Some(e),
        })
        .cloned()
        .unwrap_or_else(|| bound(Bind::Drives, None, String::new(), 0.0, io, String::new()))
}

/// `1.70 M`, `37.5 k`, `950`: an I/O rate for sentences.
pub fn rate(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1} k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

fn view_name(io: f64) -> String {
    if io >= 1024.0 && (io / 1024.0).fract() == 0.0 {
        format!("{}K", io / 1024.0)
    } else {
        format!("{io} B")
    }
}

fn system_findings(r: &SystemReport) -> Vec<Finding> {
    let mut out = Vec::new();
    for (view, v) in [("IOPS", &r.iops), ("bandwidth", &r.bandwidth)] {
        for dir in Dir::BOTH {
            let e = v.dir(dir);
            let size = view_name(e.io_bytes);
            let next = e
                .elements
                .iter()
                .filter(|b| b.element != e.binding)
                .min_by(|a, b| a.iops.total_cmp(&b.iops));
            let behind = next.map_or(String::new(), |n| {
                format!("; next: {} at {} IOPS", n.label, rate(n.iops))
            });
            match e.binding {
                Bind::Cpu => {
                    let b = e.bound(Bind::Cpu).map_or("", |b| b.basis.as_str());
                    let ops = e
                        .ops
                        .map_or(String::new(), |o| format!(" ({} ops/s)", rate(o)));
                    out.push(
                        Finding::of(
                            Code::CpuBound,
                            format!(
                                "{size} {}: CPU-bound at {} IOPS{ops} ({b}){behind}",
                                dir.name(),
                                rate(e.iops)
                            ),
                        )
                        .with_help("a cheaper I/O stack (--stack), more or faster cores, or fewer I/Os per operation"),
                    );
                }
                Bind::Memory => out.push(Finding::of(
                    Code::MemoryBound,
                    format!(
                        "{size} {}: memory-bound at {} IOPS ({:.2} GB/s){behind}",
                        dir.name(),
                        rate(e.iops),
                        e.gbs
                    ),
                )),
                Bind::Nic => out.push(
                    Finding::of(
                        Code::NicBound,
                        format!(
                            "{size} {}: the NICs bind: clients get {:.2} GB/s ({} IOPS){behind}",
                            dir.name(),
                            e.gbs,
                            rate(e.iops)
                        ),
                    )
                    .with_help("a faster NIC, or the NIC in a slot that gives it its full width"),
                ),
                _ if view == "IOPS" && dir == Dir::Read => {
                    if let (Some(used), Some(spare), Some(c)) =
                        (e.cpu_cores_used, e.cpu_cores_spare, &r.cpu)
                    {
                        out.push(Finding::of(
                            Code::CpuHeadroom,
                            format!(
                                "{size} read: {} bind at {} IOPS; the CPUs use {used:.1} of {} cores there, {spare:.1} to spare",
                                e.binding_label,
                                rate(e.iops),
                                c.cores
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_checked() {
        assert!(
            Cost::per_io(f64::NAN, 0.0)
                .unwrap_err()
                .starts_with("--cycles-per-io")
        );
        assert!(Cost::per_io(-5.0, 0.0).is_err());
        assert!(Cost::per_io(1e12, 0.0).is_err());
        assert!(
            Cost::per_io(10_000.0, -1.0)
                .unwrap_err()
                .starts_with("--cycles-per-byte")
        );
        assert_eq!(
            Cost::per_op(1e6, None).unwrap_err(),
            "--cycles-per-op needs --ios-per-op (how many I/Os one operation issues)"
        );
        assert!(Cost::per_op(1e6, Some(0.0)).is_err());
        assert_eq!(
            Cost::per_op(1e6, Some(4.0)).unwrap().cycles(4096.0),
            250_000.0
        );
    }

    #[test]
    fn grouped_and_rate() {
        assert_eq!(grouped(1_792_000.0), "1,792,000");
        assert_eq!(grouped(950.0), "950");
        assert_eq!(grouped(4.5), "4.5");
        assert_eq!(rate(3_000_000.0), "3.00 M");
        assert_eq!(rate(37_500.0), "37.5 k");
    }
}
