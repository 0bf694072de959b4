//! What the benchmark reads about the processes it measures, from `/proc`: resident
//! memory (VmRSS now, VmHWM = the peak since the process started) and CPU time, plus the
//! whole machine's CPU and load average (other work on the machine skews the figures).

use std::{
    str::FromStr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

/// A process to watch, given on the command line as `NAME=PID`, or `NAME=PID+` to add
/// its children's CPU (PostgreSQL runs one backend process per connection).
#[derive(Debug, Clone)]
pub struct Proc {
    pub name: String,
    pub pid: u32,
    pub with_children: bool,
}

impl FromStr for Proc {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let (name, pid) = spec
            .split_once('=')
            .ok_or_else(|| format!("expected NAME=PID or NAME=PID+, got {spec:?}"))?;
        let (pid, with_children) = match pid.strip_suffix('+') {
            Some(pid) => (pid, true),
            None => (pid, false),
        };
        let pid = pid.parse().map_err(|_| format!("not a PID: {pid:?}"))?;
        Ok(Self {
            name: name.to_owned(),
            pid,
            with_children,
        })
    }
}

/// A `kB` field of `/proc/PID/status` (`VmRSS`, `VmHWM`), in bytes.
pub fn status_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    })
}

pub fn rss(pid: u32) -> Option<u64> {
    status_bytes(pid, "VmRSS")
}

pub fn hwm(pid: u32) -> Option<u64> {
    status_bytes(pid, "VmHWM")
}

/// (ppid, utime + stime, cutime + cstime) in clock ticks, from `/proc/PID/stat`.
fn stat(path: &str) -> Option<(u32, u64, u64)> {
    let stat = std::fs::read_to_string(path).ok()?;
    // The command name is in parentheses and may hold spaces: split after the last ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    let field = |i: usize| -> Option<u64> { fields.get(i)?.parse().ok() };
    let ppid = fields.get(1)?.parse().ok()?;
    Some((ppid, field(11)? + field(12)?, field(13)? + field(14)?))
}

/// CPU ticks used so far by a process, and when asked by its children: the live ones,
/// plus those that ended and were reaped (the parent's cutime + cstime), so a child that
/// exits between two snapshots is not lost.
fn cpu_ticks(proc: &Proc) -> u64 {
    let (own, reaped) =
        stat(&format!("/proc/{}/stat", proc.pid)).map_or((0, 0), |(_, t, c)| (t, c));
    if !proc.with_children {
        return own;
    }
    let children: u64 = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|entry| stat(&format!("{}/stat", entry.path().display())))
        .filter(|(ppid, _, _)| *ppid == proc.pid)
        .map(|(_, ticks, _)| ticks)
        .sum();
    own + reaped + children
}

/// (busy, total) ticks of all CPUs, from the first line of `/proc/stat`.
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let values: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    let total: u64 = values.iter().take(8).sum();
    // idle(3) + iowait(4) are not busy.
    let idle = values.get(3).copied().unwrap_or(0) + values.get(4).copied().unwrap_or(0);
    (total.saturating_sub(idle), total)
}

/// The 1, 5 and 15 minute load averages.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// CPU counters at one moment.
pub struct CpuSnapshot {
    at: Instant,
    procs: Vec<u64>,
    own: u64,
    machine: (u64, u64),
}

impl CpuSnapshot {
    pub fn take(procs: &[Proc]) -> Self {
        let own = Proc {
            name: "bench".into(),
            pid: std::process::id(),
            with_children: false,
        };
        Self {
            at: Instant::now(),
            procs: procs.iter().map(cpu_ticks).collect(),
            own: cpu_ticks(&own),
            machine: machine_ticks(),
        }
    }
}

/// CPU use between two snapshots: per process (and this benchmark) in % of one core, and
/// the whole machine in % of all its cores.
pub struct CpuUse {
    pub procs: Vec<(String, f64)>,
    pub machine_busy: f64,
    /// What the rest of the machine used, in % of one core: the machine's busy time less
    /// the processes above.
    pub others: f64,
}

pub fn cpu_use(procs: &[Proc], a: &CpuSnapshot, b: &CpuSnapshot, clk_tck: u64) -> CpuUse {
    let seconds = b.at.duration_since(a.at).as_secs_f64().max(1e-3);
    let pct = |ticks: u64| ticks as f64 / clk_tck as f64 / seconds * 100.0;
    let mut out: Vec<(String, f64)> = procs
        .iter()
        .zip(a.procs.iter().zip(&b.procs))
        .map(|(p, (x, y))| (p.name.clone(), pct(y.saturating_sub(*x))))
        .collect();
    out.push(("bench".into(), pct(b.own.saturating_sub(a.own))));
    let busy = b.machine.0.saturating_sub(a.machine.0) as f64;
    let total = b.machine.1.saturating_sub(a.machine.1) as f64;
    let machine_busy = if total > 0.0 {
        busy / total * 100.0
    } else {
        0.0
    };
    let ours: f64 = out.iter().map(|(_, pct)| pct).sum();
    CpuUse {
        others: (machine_busy * cpus() as f64 - ours).max(0.0),
        procs: out,
        machine_busy,
    }
}

/// CPU seconds per process between two snapshots, this benchmark last (`bench`).
pub type CpuSeconds = Vec<(String, f64)>;

pub fn cpu_seconds(procs: &[Proc], a: &CpuSnapshot, b: &CpuSnapshot, clk_tck: u64) -> CpuSeconds {
    let seconds = |x: u64, y: u64| y.saturating_sub(x) as f64 / clk_tck.max(1) as f64;
    let mut out: CpuSeconds = procs
        .iter()
        .zip(a.procs.iter().zip(&b.procs))
        .map(|(p, (x, y))| (p.name.clone(), seconds(*x, *y)))
        .collect();
    out.push(("bench".into(), seconds(a.own, b.own)));
    out
}

/// Samples the RSS of some processes every 50 ms on a thread of its own and keeps each
/// one's peak.
pub struct RssSampler {
    stop: Arc<AtomicBool>,
    peaks: Arc<Mutex<Vec<u64>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RssSampler {
    pub fn start(pids: Vec<u32>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peaks = Arc::new(Mutex::new(vec![0; pids.len()]));
        let thread = {
            let (stop, peaks) = (stop.clone(), peaks.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let now: Vec<u64> = pids.iter().map(|p| rss(*p).unwrap_or(0)).collect();
                    if let Ok(mut peaks) = peaks.lock() {
                        for (peak, now) in peaks.iter_mut().zip(now) {
                            *peak = (*peak).max(now);
                        }
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
        };
        Self {
            stop,
            peaks,
            thread: Some(thread),
        }
    }

    /// The peaks so far, in the order of the PIDs given.
    pub fn peaks(&self) -> Vec<u64> {
        self.peaks.lock().map(|p| p.clone()).unwrap_or_default()
    }

    pub fn finish(mut self) -> Vec<u64> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.peaks()
    }
}

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The processes whose RSS the benchmark reports: `api` and `worker` (distributed mode)
/// or `serve` (embedded mode), in the order given.
pub fn rss_pids(procs: &[Proc]) -> Vec<(String, u32)> {
    procs
        .iter()
        .filter(|p| matches!(p.name.as_str(), "api" | "worker" | "serve"))
        .map(|p| (p.name.clone(), p.pid))
        .collect()
}
