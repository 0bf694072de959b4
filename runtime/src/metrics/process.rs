//! What every Parley process says about itself on `/metrics`: which build it is
//! (`parley_build_info`) and what it uses of the machine (the `process_*` metrics).
//!
//! The process metrics carry the names and meanings of the official Prometheus clients'
//! process collectors (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
//! `process_open_fds`, …), so existing dashboards and alerts read them as they read any
//! other service's. They are read from `/proc` when a scrape asks, never on a timer:
//! a process that nobody scrapes spends nothing on them. Off Linux there is no `/proc`
//! and the collector reports nothing (the build info is still there).

use prometheus_client::{
    collector::Collector,
    encoding::{DescriptorEncoder, EncodeMetric},
    metrics::{MetricType, counter::ConstCounter, gauge::ConstGauge},
    registry::Unit,
};

/// The version of this build (the workspace's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The source revision this build was made from: `PARLEY_BUILD_REVISION` when the
/// binary was compiled (the Dockerfile passes the commit), else `unknown`.
pub const REVISION: &str = match option_env!("PARLEY_BUILD_REVISION") {
    Some(revision) => revision,
    None => "unknown",
};

/// The labels of `parley_build_info` (always 1): which build answers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, prometheus_client::encoding::EncodeLabelSet)]
pub struct BuildLabels {
    pub version: &'static str,
    pub revision: &'static str,
}

/// This process's use of the machine, read from `/proc/self` at each scrape.
#[derive(Debug, Default)]
pub struct ProcessCollector;

/// One reading of `/proc/self` (and of the kernel's boot time and tick rate).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Reading {
    cpu_seconds: f64,
    resident_bytes: u64,
    virtual_bytes: u64,
    open_fds: u64,
    max_fds: Option<u64>,
    threads: i64,
    start_time_seconds: f64,
}

impl Reading {
    /// This process now; `None` when `/proc` cannot be read (not Linux, or hidden).
    fn now() -> Option<Self> {
        use procfs::process::{LimitValue, Process};
        let me = Process::myself().ok()?;
        let stat = me.stat().ok()?;
        let ticks = procfs::ticks_per_second() as f64;
        let boot = procfs::boot_time_secs().ok()? as f64;
        let max_fds = me
            .limits()
            .ok()
            .and_then(|limits| match limits.max_open_files.soft_limit {
                LimitValue::Value(n) => Some(n),
                LimitValue::Unlimited => None,
            });
        Some(Self {
            cpu_seconds: (stat.utime + stat.stime) as f64 / ticks,
            resident_bytes: stat.rss * procfs::page_size(),
            virtual_bytes: stat.vsize,
            open_fds: me.fd_count().ok()? as u64,
            max_fds,
            threads: stat.num_threads,
            start_time_seconds: boot + stat.starttime as f64 / ticks,
        })
    }
}

/// Writes one gauge.
fn gauge<N>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    value: N,
) -> Result<(), std::fmt::Error>
where
    ConstGauge<N>: EncodeMetric,
{
    let metric = encoder.encode_descriptor(name, help, unit, MetricType::Gauge)?;
    ConstGauge::new(value).encode(metric)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(now) = Reading::now() else {
            return Ok(());
        };
        let cpu = encoder.encode_descriptor(
            "process_cpu",
            "Total user and system CPU time spent in seconds",
            Some(&Unit::Seconds),
            MetricType::Counter,
        )?;
        ConstCounter::new(now.cpu_seconds).encode(cpu)?;
        let bytes = Some(&Unit::Bytes);
        gauge(
            &mut encoder,
            "process_resident_memory",
            "Resident memory size in bytes",
            bytes,
            now.resident_bytes as i64,
        )?;
        gauge(
            &mut encoder,
            "process_virtual_memory",
            "Virtual memory size in bytes",
            bytes,
            now.virtual_bytes as i64,
        )?;
        gauge(
            &mut encoder,
            "process_open_fds",
            "Number of open file descriptors",
            None,
            now.open_fds as i64,
        )?;
        if let Some(max) = now.max_fds {
            gauge(
                &mut encoder,
                "process_max_fds",
                "Maximum number of open file descriptors",
                None,
                max as i64,
            )?;
        }
        gauge(
            &mut encoder,
            "process_threads",
            "Number of OS threads in the process",
            None,
            now.threads,
        )?;
        gauge(
            &mut encoder,
            "process_start_time",
            "Start time of the process since unix epoch in seconds",
            Some(&Unit::Seconds),
            now.start_time_seconds,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_of_this_process_is_plausible() {
        let before = Reading::now().expect("/proc is readable on Linux");
        // Spend some CPU and open a file, then read again.
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let file = std::fs::File::open("/proc/self/stat").expect("open");
        let after = Reading::now().expect("/proc is readable on Linux");
        drop(file);
        assert!(after.cpu_seconds >= before.cpu_seconds);
        assert!(after.open_fds >= 1);
        assert!(after.resident_bytes > 1024 * 1024, "{after:?}");
        assert!(after.virtual_bytes >= after.resident_bytes, "{after:?}");
        assert!(after.threads >= 1);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs_f64();
        assert!(
            after.start_time_seconds <= now + 1.0 && after.start_time_seconds > now - 86_400.0,
            "started {} (now {now})",
            after.start_time_seconds
        );
    }
}
