//! Live progress of a probe, fio-style: one line per refresh with the step (k of n), each
//! device's IOPS and MB/s over the last second, the elapsed time and the ETA, both of the
//! whole probe (every step). [`line`] formats; the CLI decides where (and whether) to show it.

use std::collections::VecDeque;
use std::time::Duration;

/// One device's live rate, over the last second or so.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceRate {
    pub label: String,
    pub iops: f64,
    /// 1e6 bytes per second, like the results.
    pub mb_per_s: f64,
}

/// Rates over a sliding window of (time, I/Os, bytes) samples per device.
#[derive(Debug)]
pub(crate) struct RateWindow {
    window: Duration,
    samples: VecDeque<(Duration, Vec<(u64, u64)>)>,
}

impl RateWindow {
    pub(crate) fn new(window: Duration) -> Self {
        RateWindow {
            window,
            samples: VecDeque::new(),
        }
    }

    /// Adds the counters read at `at` and returns each device's rate since the oldest
    /// sample still in the window (0 until two samples exist).
    pub(crate) fn push(&mut self, at: Duration, counts: Vec<(u64, u64)>) -> Vec<(f64, f64)> {
        while self.samples.len() > 1 && at.saturating_sub(self.samples[1].0) >= self.window {
            self.samples.pop_front();
        }
        let rates = match self.samples.front() {
            Some((t0, c0)) if at > *t0 => {
                let dt = (at - *t0).as_secs_f64();
                counts
                    .iter()
                    .zip(c0)
                    .map(|((n, b), (n0, b0))| {
                        (
                            n.saturating_sub(*n0) as f64 / dt,
                            b.saturating_sub(*b0) as f64 / dt / 1e6,
                        )
                    })
                    .collect()
            }
            _ => vec![(0.0, 0.0); counts.len()],
        };
        self.samples.push_back((at, counts));
        rates
    }
}

/// `410`, `41.2k`, `1.23M`: IOPS as fio prints them.
pub fn iops(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// `0:07`, `2:36`, `1:02:03`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// Time left for the whole run: the rest of this step, then the steps after it at this
/// step's length (time-bounded) or at its rate (I/O-bounded). None when unknown yet.
pub fn eta(p: &super::Progress) -> Option<Duration> {
    let later = p.steps.saturating_sub(p.step) as u32;
    if let Some(d) = p.expected {
        return Some(d.saturating_sub(p.elapsed) + d * later);
    }
    let n = p.expected_ios?;
    let rate: f64 = p.devices.iter().map(|d| d.iops).sum();
    if rate <= 0.0 {
        return None;
    }
    let left = n.saturating_sub(p.done) as f64 / rate + f64::from(later) * n as f64 / rate;
    Some(Duration::from_secs_f64(left.min(1e9)))
}

/// The progress line, e.g.
/// `[2/13] nvme0n1 at 10 %: 41.2k IOPS, 168.8 MB/s; 0:05 elapsed, eta 2:31`.
pub fn line(p: &super::Progress) -> String {
    let mut s = String::new();
    if p.steps > 1 {
        s.push_str(&format!("[{}/{}] ", p.step, p.steps));
    }
    s.push_str(&p.phase);
    s.push_str(": ");
    let rate = |d: &DeviceRate| format!("{} IOPS, {:.1} MB/s", iops(d.iops), d.mb_per_s);
    match &p.devices[..] {
        [one] => s.push_str(&rate(one)),
        many => {
            let total = DeviceRate {
                label: String::new(),
                iops: many.iter().map(|d| d.iops).sum(),
                mb_per_s: many.iter().map(|d| d.mb_per_s).sum(),
            };
            s.push_str(&rate(&total));
            let each: Vec<String> = many
                .iter()
                .map(|d| format!("{} {}", d.label, rate(d)))
                .collect();
            s.push_str(&format!(" ({})", each.join("; ")));
        }
    }
    s.push_str(&format!("; {} elapsed", clock(p.total_elapsed)));
    if let Some(e) = eta(p) {
        s.push_str(&format!(", eta {}", clock(e)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::Progress;
    use super::*;

    fn dev(label: &str, iops: f64, mb: f64) -> DeviceRate {
        DeviceRate {
            label: label.into(),
            iops,
            mb_per_s: mb,
        }
    }

    #[test]
    fn one_device_curve_step() {
        // A default --curve on one device: 13 runs of 2 s ramp + 10 s.
        let p = Progress {
            phase: "nvme0n1 at 10 %".into(),
            step: 2,
            steps: 13,
            devices: vec![dev("nvme0n1", 41_234.0, 168.9)],
            done: 200_000,
            elapsed: Duration::from_millis(5_400),
            // Step 1 took its 12 s: the line counts the whole probe, as its ETA does.
            total_elapsed: Duration::from_millis(17_400),
            expected: Some(Duration::from_secs(12)),
            expected_ios: None,
        };
        assert_eq!(
            line(&p),
            "[2/13] nvme0n1 at 10 %: 41.2k IOPS, 168.9 MB/s; 0:17 elapsed, eta 2:18"
        );
    }

    #[test]
    fn together_shows_each_device_and_the_total() {
        let p = Progress {
            phase: "all devices".into(),
            step: 1,
            steps: 1,
            devices: vec![
                dev("nvme0n1", 612_000.0, 2506.8),
                dev("nvme1n1", 598_400.0, 2451.0),
            ],
            done: 9_000_000,
            elapsed: Duration::from_secs(4),
            total_elapsed: Duration::from_secs(4),
            expected: Some(Duration::from_secs(12)),
            expected_ios: None,
        };
        assert_eq!(
            line(&p),
            "all devices: 1.21M IOPS, 4957.8 MB/s (nvme0n1 612.0k IOPS, 2506.8 MB/s; \
             nvme1n1 598.4k IOPS, 2451.0 MB/s); 0:04 elapsed, eta 0:08"
        );
    }

    #[test]
    fn start_of_an_io_bounded_run_has_no_eta_and_no_empty_bar() {
        let p = Progress {
            phase: "data.img".into(),
            step: 1,
            steps: 1,
            devices: vec![dev("data.img", 0.0, 0.0)],
            done: 0,
            elapsed: Duration::ZERO,
            total_elapsed: Duration::ZERO,
            expected: None,
            expected_ios: Some(100_000),
        };
        assert_eq!(line(&p), "data.img: 0 IOPS, 0.0 MB/s; 0:00 elapsed");
        let p = Progress {
            done: 50_000,
            elapsed: Duration::from_secs(5),
            total_elapsed: Duration::from_secs(5),
            devices: vec![dev("data.img", 10_000.0, 41.0)],
            ..p
        };
        assert_eq!(
            line(&p),
            "data.img: 10.0k IOPS, 41.0 MB/s; 0:05 elapsed, eta 0:05"
        );
    }

    #[test]
    fn clock_and_iops_units() {
        assert_eq!(clock(Duration::from_secs(3723)), "1:02:03");
        assert_eq!(clock(Duration::from_secs(156)), "2:36");
        assert_eq!(iops(999.4), "999");
        assert_eq!(iops(1_234_567.0), "1.23M");
    }

    #[test]
    fn rate_window_measures_the_last_second() {
        let mut w = RateWindow::new(Duration::from_secs(1));
        let ms = Duration::from_millis;
        assert_eq!(w.push(ms(0), vec![(0, 0)]), vec![(0.0, 0.0)]);
        assert_eq!(w.push(ms(500), vec![(500, 2_000_000)]), vec![(1000.0, 4.0)]);
        assert_eq!(
            w.push(ms(1000), vec![(1000, 4_000_000)]),
            vec![(1000.0, 4.0)]
        );
        // Faster now: the window forgets the first samples.
        assert_eq!(
            w.push(ms(2000), vec![(4000, 16_000_000)]),
            vec![(3000.0, 12.0)]
        );
    }
}
