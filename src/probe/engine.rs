//! The direct-I/O engines: io_uring (one ring per job, set up with COOP_TASKRUN +
//! SINGLE_ISSUER + DEFER_TASKRUN where the kernel has them, registered buffers and file,
//! one completion reaped and its slot refilled per `io_uring_enter`) and a pread/pwrite thread engine
//! (one thread per outstanding I/O) for hosts where io_uring is unavailable.
//!
//! Nothing is allocated per I/O: buffers, slots and histograms are set up before the clock
//! starts. Latency runs from the issue time, or under a rate limit from the *scheduled* issue
//! time, so a stalled device cannot hide its queueing delay (no coordinated omission).

use super::workload::{IoGen, IoReq};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Which engine runs the I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    Sync,
    IoUring,
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EngineKind::Sync => "sync",
            EngineKind::IoUring => "io_uring",
        })
    }
}

/// A zeroed allocation aligned for direct I/O.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: a plain owned allocation.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    pub fn new(size: usize, align: usize) -> Self {
        let layout = Layout::from_size_align(size.max(1), align.max(8)).expect("buffer layout");
        // SAFETY: non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory allocating {size} bytes");
        AlignedBuf { ptr, layout }
    }
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: owned allocation of layout.size() bytes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.ptr
    }
    pub fn len(&self) -> usize {
        self.layout.size()
    }
    pub fn is_empty(&self) -> bool {
        self.layout.size() == 0
    }
    /// Fills with incompressible bytes (write payloads; zram compresses zeros away).
    pub fn fill_random(&mut self, seed: u64) {
        let mut rng = super::workload::Rng::new(seed);
        for w in self.as_mut_slice().chunks_exact_mut(8) {
            w.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Monotonic nanoseconds (CLOCK_MONOTONIC, through the vDSO).
#[inline]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// How long a run lasts after its ramp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Time(Duration),
    /// Exactly this many measured I/Os (per job, once split).
    Ios(u64),
}

/// Time a job may take to drain its in-flight I/Os after the bound before it gives up on
/// them (they are then reported as abandoned).
pub const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Longest any job waits (for a completion, or for the next I/O a rate schedules) before it
/// looks at the stop flag again: Ctrl-C ends a run within this, whatever `--rate` is.
pub const STOP_POLL: Duration = Duration::from_millis(50);

/// Sleeps until `at` (`now_ns`), in steps of at most [`STOP_POLL`]; `false` when `stop` was
/// set first.
pub fn sleep_until(at: u64, stop: &AtomicBool) -> bool {
    loop {
        let now = now_ns();
        if now >= at {
            return true;
        }
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_nanos(at - now).min(STOP_POLL));
    }
}

/// One job's parameters: one ring, or `qd` threads for the sync engine.
pub struct JobParams {
    pub file: Arc<File>,
    pub qd: u32,
    pub max_bs: usize,
    pub mem_align: usize,
    pub io_gen: IoGen,
    pub bound: Bound,
    /// Start of the run (`now_ns`), shared by all jobs.
    pub start_ns: u64,
    pub ramp_ns: u64,
    /// I/Os per second for this job, or as fast as possible.
    pub rate: Option<f64>,
    pub stop: Arc<AtomicBool>,
    /// Completed I/Os (ramp included), for progress.
    pub done: Arc<AtomicU64>,
    /// Bytes of the completed I/Os (ramp included), for progress.
    pub done_bytes: Arc<AtomicU64>,
    pub seed: u64,
}

/// What one job measured (I/Os issued after the ramp).
#[derive(Debug, Clone)]
pub struct JobStats {
    pub read_lat: Histogram<u64>,
    pub write_lat: Histogram<u64>,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    /// I/Os still in flight when the drain grace ran out.
    pub abandoned: u64,
    /// Last measured completion (`now_ns`), 0 when none.
    pub end_ns: u64,
    /// io_uring setup flags that took, e.g. `coop_taskrun+single_issuer+defer_taskrun`.
    pub ring_setup: Option<String>,
}

pub fn new_histogram() -> Histogram<u64> {
    // 1 ns .. 1 hour, 3 significant digits.
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("histogram bounds")
}

impl JobStats {
    pub fn new() -> Self {
        JobStats {
            read_lat: new_histogram(),
            write_lat: new_histogram(),
            reads: 0,
            writes: 0,
            read_bytes: 0,
            write_bytes: 0,
            errors: 0,
            first_error: None,
            abandoned: 0,
            end_ns: 0,
            ring_setup: None,
        }
    }

    pub fn merge(&mut self, o: &JobStats) {
        self.read_lat.add(&o.read_lat).expect("same bounds");
        self.write_lat.add(&o.write_lat).expect("same bounds");
        self.reads += o.reads;
        self.writes += o.writes;
        self.read_bytes += o.read_bytes;
        self.write_bytes += o.write_bytes;
        self.errors += o.errors;
        if self.first_error.is_none() {
            self.first_error.clone_from(&o.first_error);
        }
        self.abandoned += o.abandoned;
        self.end_ns = self.end_ns.max(o.end_ns);
        if self.ring_setup.is_none() {
            self.ring_setup.clone_from(&o.ring_setup);
        }
    }

    #[inline]
    fn record(&mut self, write: bool, len: u32, lat_ns: u64, at: u64) {
        if write {
            self.writes += 1;
            self.write_bytes += len as u64;
            self.write_lat.saturating_record(lat_ns.max(1));
        } else {
            self.reads += 1;
            self.read_bytes += len as u64;
            self.read_lat.saturating_record(lat_ns.max(1));
        }
        self.end_ns = at;
    }

    fn error(&mut self, what: String) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(what);
        }
    }
}

impl Default for JobStats {
    fn default() -> Self {
        Self::new()
    }
}

/// The issue schedule shared by both engines: which I/O may go next, when, and whether it
/// is measured.
#[derive(Debug, Clone, Copy)]
struct Schedule {
    ramp_end: u64,
    /// Hard end of issuing (time bound); `u64::MAX` for I/O-count bounds.
    deadline: u64,
    /// For a count bound: the number of measured I/Os.
    count: Option<u64>,
    /// Rate: nanoseconds between scheduled issues, and the first measured ticket.
    interval: Option<f64>,
    first_measured: u64,
}

impl Schedule {
    fn new(p: &JobParams) -> Self {
        let ramp_end = p.start_ns + p.ramp_ns;
        let (deadline, count) = match p.bound {
            Bound::Time(d) => (ramp_end + d.as_nanos() as u64, None),
            Bound::Ios(n) => (u64::MAX, Some(n)),
        };
        let interval = p.rate.map(|r| 1e9 / r.max(1e-3));
        let first_measured = interval.map_or(0, |i| (p.ramp_ns as f64 / i).ceil() as u64);
        Schedule {
            ramp_end,
            deadline,
            count,
            interval,
            first_measured,
        }
    }

    /// Scheduled time of rate ticket `k`.
    #[inline]
    fn at(&self, start: u64, k: u64) -> u64 {
        start + (k as f64 * self.interval.unwrap_or(0.0)) as u64
    }
}

/// One in-flight I/O of the io_uring engine, by its slot (the buffer it uses).
#[derive(Clone, Copy, Default)]
struct Slot {
    issued: u64,
    len: u32,
    write: bool,
    measured: bool,
    offset: u64,
}

impl Slot {
    /// Records the completion of this slot's I/O with result `res` at `now`: an error unless
    /// it moved all its bytes, a latency sample if it is measured.
    #[inline]
    fn complete(&self, res: i32, now: u64, stats: &mut JobStats) {
        if res != self.len as i32 {
            let what = if res < 0 {
                std::io::Error::from_raw_os_error(-res).to_string()
            } else {
                format!("short transfer of {res} bytes")
            };
            stats.error(format!(
                "{} of {} bytes at offset {}: {what}",
                if self.write { "write" } else { "read" },
                self.len,
                self.offset
            ));
        } else if self.measured {
            stats.record(self.write, self.len, now.saturating_sub(self.issued), now);
        }
    }
}

/// The submission entry of `io` into slot `idx`'s buffer `ptr`: fixed buffers and a fixed
/// file where they registered (`fixed` = (buffers, file)), else the plain opcodes on `fd`.
#[inline]
fn uring_entry(
    io: &IoReq,
    ptr: *mut u8,
    idx: u32,
    fixed: (bool, bool),
    fd: std::os::fd::RawFd,
) -> io_uring::squeue::Entry {
    use io_uring::{opcode, types};
    let buf = idx as u16;
    match (io.write, fixed) {
        (false, (true, true)) => opcode::ReadFixed::new(types::Fixed(0), ptr, io.len, buf)
            .offset(io.offset)
            .build(),
        (true, (true, true)) => opcode::WriteFixed::new(types::Fixed(0), ptr, io.len, buf)
            .offset(io.offset)
            .build(),
        (false, (true, false)) => opcode::ReadFixed::new(types::Fd(fd), ptr, io.len, buf)
            .offset(io.offset)
            .build(),
        (true, (true, false)) => opcode::WriteFixed::new(types::Fd(fd), ptr, io.len, buf)
            .offset(io.offset)
            .build(),
        (false, (false, true)) => opcode::Read::new(types::Fixed(0), ptr, io.len)
            .offset(io.offset)
            .build(),
        (true, (false, true)) => opcode::Write::new(types::Fixed(0), ptr, io.len)
            .offset(io.offset)
            .build(),
        (false, (false, false)) => opcode::Read::new(types::Fd(fd), ptr, io.len)
            .offset(io.offset)
            .build(),
        (true, (false, false)) => opcode::Write::new(types::Fd(fd), ptr, io.len)
            .offset(io.offset)
            .build(),
    }
}

/// Submits what is queued and waits up to `left` ns: for a completion while I/O is in
/// flight, else by sleeping (the next scheduled issue). `left` 0 only submits. The
/// interruptions a wait may end with (EINTR, ETIME, EBUSY, EAGAIN) are not errors.
fn submit_and_wait(
    submitter: &io_uring::Submitter<'_>,
    left: u64,
    inflight: usize,
) -> std::io::Result<()> {
    use io_uring::types;
    let r = if left == 0 {
        submitter.submit()
    } else {
        let ts = types::Timespec::from(Duration::from_nanos(left));
        let args = types::SubmitArgs::new().timespec(&ts);
        if inflight > 0 {
            submitter.submit_with_args(1, &args)
        } else {
            let r = submitter.submit();
            std::thread::sleep(Duration::from_nanos(left));
            r
        }
    };
    match r {
        Err(e)
            if !matches!(
                e.raw_os_error(),
                Some(libc::EINTR) | Some(libc::ETIME) | Some(libc::EBUSY) | Some(libc::EAGAIN)
            ) =>
        {
            Err(e)
        }
        _ => Ok(()),
    }
}

/// The job's I/O buffers, one slot of `max_bs` (rounded to the memory alignment) per queue
/// entry, filled with random bytes, and whether the ring took them as fixed buffers.
fn register_buffers(ring: &mut io_uring::IoUring, p: &JobParams) -> (AlignedBuf, usize, bool) {
    let qd = p.qd as usize;
    let slot_size = p.max_bs.next_multiple_of(p.mem_align.max(512));
    let mut buf = AlignedBuf::new(slot_size * qd, p.mem_align.max(4096));
    buf.fill_random(p.seed);
    let base = buf.as_mut_ptr();
    let iovecs: Vec<libc::iovec> = (0..qd)
        .map(|i| libc::iovec {
            // SAFETY: within the allocation.
            iov_base: unsafe { base.add(i * slot_size) } as *mut libc::c_void,
            iov_len: slot_size,
        })
        .collect();
    // SAFETY: the buffers outlive the ring's use of them (unregistered when the ring drops;
    // leaked by the caller if I/O is abandoned).
    let fixed = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
    (buf, slot_size, fixed)
}

/// Runs one job with io_uring. Errors only when the ring cannot be set up at all.
pub fn run_uring(mut p: JobParams) -> std::io::Result<JobStats> {
    let qd = p.qd as usize;
    let (mut ring, setup) = build_ring(p.qd)?;
    let mut stats = JobStats::new();
    stats.ring_setup = Some(setup);
    let (buf, slot_size, fixed_bufs) = register_buffers(&mut ring, &p);
    let base = buf.as_mut_ptr();
    let raw_fd = p.file.as_raw_fd();
    let fixed_file = ring.submitter().register_files(&[raw_fd]).is_ok();
    let _ = ring.submitter().register_ring_fd();

    let mut slots = vec![Slot::default(); qd];
    let mut free: Vec<u32> = (0..qd as u32).rev().collect();
    let mut inflight = 0usize;
    let sched = Schedule::new(&p);
    let mut ticket = 0u64; // rate tickets issued (ramp included)
    let mut measured_issued = 0u64;
    let mut stopping = false;
    let mut drain_deadline = u64::MAX;
    let mut now = now_ns();
    let (submitter, mut sq, mut cq) = ring.split();
    loop {
        // Reap everything available; see what the kernel consumed of the SQ.
        cq.sync();
        sq.sync();
        let mut reaped = 0u64;
        let mut reaped_bytes = 0u64;
        // One completion per turn: its slot is refilled and submitted at once, and the next
        // `io_uring_enter` returns at once while more completions wait. Reaping every
        // available completion first (8 or so per wake-up) left the device queue short by
        // that many while they were processed: 0.87x fio's IOPS at QD 32 on a file, against
        // 0.98x this way (docs/probe.md).
        for cqe in (&mut cq).take(1) {
            let idx = cqe.user_data() as usize;
            let s = slots[idx];
            s.complete(cqe.result(), now, &mut stats);
            free.push(idx as u32);
            inflight -= 1;
            reaped += 1;
            reaped_bytes += u64::from(s.len);
        }
        if reaped > 0 {
            p.done.fetch_add(reaped, Ordering::Relaxed);
            p.done_bytes.fetch_add(reaped_bytes, Ordering::Relaxed);
        }
        if !stopping
            && (now >= sched.deadline || p.stop.load(Ordering::Relaxed) || stats.errors > 0)
        {
            stopping = true;
            drain_deadline = now + DRAIN_GRACE.as_nanos() as u64;
        }
        // Issue into every free slot that may go now.
        let mut wait_until = None;
        if !stopping {
            while let Some(&idx) = free.last() {
                let (issued, measured) = if sched.interval.is_some() {
                    let at = sched.at(p.start_ns, ticket);
                    if at > now {
                        wait_until = Some(at);
                        break;
                    }
                    (at, ticket >= sched.first_measured)
                } else {
                    (now, now >= sched.ramp_end)
                };
                if measured && let Some(n) = sched.count {
                    if measured_issued == n {
                        break;
                    }
                    measured_issued += 1;
                }
                if issued >= sched.deadline {
                    break;
                }
                ticket += 1;
                free.pop();
                let io = p.io_gen.next_io();
                slots[idx as usize] = Slot {
                    issued,
                    len: io.len,
                    write: io.write,
                    measured,
                    offset: io.offset,
                };
                // SAFETY: within the allocation; the slot's buffer is not in use.
                let ptr = unsafe { base.add(idx as usize * slot_size) };
                let entry = uring_entry(&io, ptr, idx, (fixed_bufs, fixed_file), raw_fd);
                // SAFETY: the buffer stays valid until the completion is reaped.
                unsafe {
                    sq.push(&entry.user_data(idx as u64))
                        .expect("ring has one entry per slot");
                }
                inflight += 1;
            }
            if free.is_empty() {
                wait_until = None;
            }
            if wait_until.is_none() && inflight == 0 {
                // Nothing in flight and nothing may be issued: the bound is reached.
                break;
            }
        } else if inflight == 0 {
            break;
        }
        sq.sync();
        // Submit and wait: for a completion, or until the next scheduled issue, or (when
        // draining) until the grace runs out.
        // Every wait is bounded by STOP_POLL, so a stop (Ctrl-C) is seen even while a rate
        // schedules the next I/O far ahead or a stalled device completes nothing.
        let limit = if stopping {
            drain_deadline
        } else {
            let poll_end = now_ns() + STOP_POLL.as_nanos() as u64;
            wait_until.map_or(poll_end, |t| t.min(poll_end))
        };
        let left = limit.saturating_sub(now_ns());
        if left == 0 && stopping {
            break;
        }
        if let Err(e) = submit_and_wait(&submitter, left, inflight) {
            stats.error(format!("io_uring_enter: {e}"));
            stopping = true;
        }
        now = now_ns();
        if stopping && now >= drain_deadline && inflight > 0 {
            cq.sync();
            if cq.is_empty() {
                break;
            }
        }
    }
    drop((submitter, sq, cq));
    if inflight > 0 {
        // The kernel may still write into these buffers: never free them.
        stats.abandoned = inflight as u64;
        std::mem::forget(buf);
        std::mem::forget(ring);
    }
    Ok(stats)
}

/// Whether io_uring hands reads of `file` to its `iou-wrk` worker threads instead of issuing
/// them inline: drivers that take no non-blocking issue (zram, brd) get every I/O punted, and
/// when such I/O also completes without sleeping, one worker does them all, one after another.
/// Submits `PROBE_READS` reads of `len` bytes (offsets below `size`) from a fresh thread and
/// looks in /proc for that thread's workers. `None` when it cannot tell (no io_uring, no /proc,
/// a read failed).
pub fn uring_punts(file: &Arc<File>, len: u32, align: usize, size: u64) -> Option<bool> {
    const PROBE_READS: u32 = 8;
    let file = file.clone();
    let run = move || -> Option<bool> {
        use io_uring::{opcode, types};
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        let (mut ring, _) = build_ring(PROBE_READS).ok()?;
        let buf = AlignedBuf::new(len as usize * PROBE_READS as usize, align.max(4096));
        let slots = (size / u64::from(len)).max(1);
        for i in 0..PROBE_READS {
            let offset = (u64::from(i) % slots) * u64::from(len);
            // SAFETY: within the allocation.
            let ptr = unsafe { buf.as_mut_ptr().add(i as usize * len as usize) };
            let e = opcode::Read::new(types::Fd(file.as_raw_fd()), ptr, len)
                .offset(offset)
                .build()
                .user_data(u64::from(i));
            // SAFETY: `buf` outlives the ring's use of it: every read is reaped below.
            unsafe { ring.submission().push(&e).ok()? };
        }
        let mut left = PROBE_READS;
        while left > 0 {
            ring.submit_and_wait(left as usize).ok()?;
            for cqe in ring.completion() {
                if cqe.result() < 0 {
                    return None;
                }
                left -= 1;
            }
        }
        let worker = format!("iou-wrk-{tid}");
        let found = std::fs::read_dir("/proc/self/task")
            .ok()?
            .flatten()
            .any(|t| {
                std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == worker)
            });
        Some(found)
    };
    std::thread::spawn(run).join().ok().flatten()
}

/// A ring with the fastest setup flags the kernel accepts.
fn build_ring(qd: u32) -> std::io::Result<(io_uring::IoUring, String)> {
    let entries = qd.next_power_of_two().max(2);
    type Setup = fn(&mut io_uring::Builder);
    let attempts: [(&str, Setup); 3] = [
        ("coop_taskrun+single_issuer+defer_taskrun", |b| {
            b.setup_coop_taskrun()
                .setup_single_issuer()
                .setup_defer_taskrun();
        }),
        ("coop_taskrun", |b| {
            b.setup_coop_taskrun();
        }),
        ("plain", |_| {}),
    ];
    let mut last = None;
    // LANEPLAN_RING_SETUP=coop_taskrun|plain starts lower in the list (for comparisons).
    let from = std::env::var("LANEPLAN_RING_SETUP")
        .ok()
        .and_then(|v| attempts.iter().position(|a| a.0 == v))
        .unwrap_or(0);
    for &(name, f) in &attempts[from..] {
        let mut b = io_uring::IoUring::builder();
        b.setup_cqsize(entries * 2);
        f(&mut b);
        match b.build(entries) {
            Ok(r) => return Ok((r, name.to_string())),
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("at least one attempt"))
}

/// Whether io_uring works here (seccomp and containers often block it), and why not.
pub fn io_uring_available() -> Result<(), String> {
    match io_uring::IoUring::new(2) {
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs one job with `qd` threads, each doing pread/pwrite on its own buffer.
pub fn run_sync(p: JobParams) -> JobStats {
    let sched = Schedule::new(&p);
    let ticket = Arc::new(AtomicU64::new(0));
    let measured_issued = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicBool::new(false));
    let shared_gen = Arc::new(std::sync::Mutex::new(p.io_gen.clone()));
    let cursor = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..p.qd)
        .map(|t| {
            let file = p.file.clone();
            let stop = p.stop.clone();
            let done = p.done.clone();
            let done_bytes = p.done_bytes.clone();
            let ticket = ticket.clone();
            let measured_issued = measured_issued.clone();
            let failed = failed.clone();
            let shared_gen = shared_gen.clone();
            // A generator per thread (sequential ones share an atomic cursor). One shared
            // generator behind a mutex was this engine's cost with more threads than CPUs (a
            // preempted holder stalls the rest): 0.94x fio's psync threads at 4K QD 32 on
            // zram, 1.07x without (docs/probe.md).
            let mut own_gen = p.io_gen.fork(t, &cursor);
            let (max_bs, align, start, seed) = (p.max_bs, p.mem_align, p.start_ns, p.seed);
            std::thread::spawn(move || {
                use std::os::unix::fs::FileExt;
                let mut stats = JobStats::new();
                let mut buf = AlignedBuf::new(max_bs.next_multiple_of(align), align.max(4096));
                buf.fill_random(seed ^ t as u64);
                // The clock is read twice per I/O, around the call; the loop's checks use the
                // end of the previous one.
                let mut now = now_ns();
                loop {
                    if now >= sched.deadline
                        || stop.load(Ordering::Relaxed)
                        || failed.load(Ordering::Relaxed)
                    {
                        break;
                    }
                    // `scheduled`: the issue time a rate limit fixed (latency runs from it,
                    // no coordinated omission); otherwise I/O is timed from just before the
                    // call, as fio's `lat` is.
                    let (scheduled, measured) = if sched.interval.is_some() {
                        let k = ticket.fetch_add(1, Ordering::Relaxed);
                        if let Some(n) = sched.count
                            && k >= sched.first_measured + n
                        {
                            break;
                        }
                        let at = sched.at(start, k);
                        if at >= sched.deadline {
                            break;
                        }
                        if at > now && !sleep_until(at, &stop) {
                            break;
                        }
                        (Some(at), k >= sched.first_measured)
                    } else {
                        let measured = now >= sched.ramp_end;
                        if measured
                            && let Some(n) = sched.count
                            && measured_issued.fetch_add(1, Ordering::Relaxed) >= n
                        {
                            break;
                        }
                        (None, measured)
                    };
                    // Each thread's own generator; a trace's one, shared, keeps its order.
                    let io = match &mut own_gen {
                        Some(g) => g.next_io(),
                        None => match shared_gen.lock() {
                            Ok(mut g) => g.next_io(),
                            Err(_) => break,
                        },
                    };
                    let slice = &mut buf.as_mut_slice()[..io.len as usize];
                    let issued = scheduled.unwrap_or_else(now_ns);
                    let r = if io.write {
                        file.write_at(slice, io.offset)
                    } else {
                        file.read_at(slice, io.offset)
                    };
                    let end = now_ns();
                    match r {
                        Ok(n) if n == io.len as usize => {
                            if measured {
                                stats.record(io.write, io.len, end.saturating_sub(issued), end);
                            }
                        }
                        other => {
                            let what = match other {
                                Err(e) => e.to_string(),
                                Ok(n) => format!("short transfer of {n} bytes"),
                            };
                            stats.error(format!(
                                "{} of {} bytes at offset {}: {what}",
                                if io.write { "write" } else { "read" },
                                io.len,
                                io.offset
                            ));
                            failed.store(true, Ordering::Relaxed);
                        }
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                    done_bytes.fetch_add(u64::from(io.len), Ordering::Relaxed);
                    now = end;
                }
                stats
            })
        })
        .collect();
    let mut total = JobStats::new();
    for t in threads {
        if let Ok(s) = t.join() {
            total.merge(&s);
        }
    }
    total
}
