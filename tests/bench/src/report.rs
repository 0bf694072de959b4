//! What a load level prints: its figures beside the direct-mock baseline of the same
//! run, and at the end one Markdown table of every level for BENCHMARKS.md.

use crate::{
    load::Run,
    procs::{self, mib},
    stats::{fmt_diff, fmt_ms},
};

pub struct Level {
    pub users: usize,
    pub load_before: String,
    pub parley: Run,
    pub direct: Option<Run>,
    pub rss: Vec<(String, u64, u64)>,
    pub cpu: procs::CpuUse,
}

pub fn print_level(
    users: usize,
    load_before: &str,
    parley: &Run,
    direct: Option<&Run>,
    rss: &[(String, u64, u64)],
    cpu: &procs::CpuUse,
) {
    let (pt, dt) = (parley.ttft(), direct.and_then(Run::ttft));
    let lat = parley.latency();
    println!();
    println!("== C = {users} users (load avg before: {load_before})");
    println!(
        "  {:<22} {:>10} {:>10} {:>10}",
        "", "Parley", "direct", "added"
    );
    println!(
        "  {:<22} {:>10} {:>10} {:>10}",
        "TTFT p50 (ms)",
        fmt_ms(pt.map(|p| p.p50)),
        fmt_ms(dt.map(|p| p.p50)),
        fmt_diff(pt.map(|p| p.p50), dt.map(|p| p.p50))
    );
    println!(
        "  {:<22} {:>10} {:>10} {:>10}",
        "TTFT p99 (ms)",
        fmt_ms(pt.map(|p| p.p99)),
        fmt_ms(dt.map(|p| p.p99)),
        fmt_diff(pt.map(|p| p.p99), dt.map(|p| p.p99))
    );
    let dl = direct.and_then(Run::latency);
    println!(
        "  {:<22} {:>10} {:>10}",
        "latency p50 (ms)",
        fmt_ms(lat.map(|p| p.p50)),
        fmt_ms(dl.map(|p| p.p50))
    );
    println!(
        "  {:<22} {:>10} {:>10}",
        "latency p99 (ms)",
        fmt_ms(lat.map(|p| p.p99)),
        fmt_ms(dl.map(|p| p.p99))
    );
    if let Some(session) = parley.session() {
        println!(
            "  {:<22} {:>10} {:>10}",
            "new session p50 (ms)",
            fmt_ms(Some(session.p50)),
            "–"
        );
        println!(
            "  {:<22} {:>10} {:>10}",
            "new session p99 (ms)",
            fmt_ms(Some(session.p99)),
            "–"
        );
    }
    println!(
        "  {:<22} {:>10} {:>10}",
        "turns",
        parley.turns.len(),
        direct.map_or(0, |d| d.turns.len())
    );
    println!(
        "  {:<22} {:>10.1} {:>10.1}",
        "turns/s",
        parley.turns_per_s(),
        direct.map_or(0.0, Run::turns_per_s)
    );
    println!(
        "  {:<22} {:>10.0} {:>10.0}",
        "tokens/s",
        parley.tokens_per_s(),
        direct.map_or(0.0, Run::tokens_per_s)
    );
    println!(
        "  {:<22} {:>10.1} {:>10.1}",
        "SSE events per turn",
        parley.events_per_turn(),
        direct.map_or(0.0, Run::events_per_turn)
    );
    println!(
        "  {:<22} {:>10} {:>10}",
        "errors",
        parley.errors(),
        direct.map_or(0, Run::errors)
    );
    for (label, run) in [("Parley", Some(parley)), ("direct", direct)] {
        for (kind, (n, example)) in run.map(|r| &r.failures).into_iter().flatten() {
            println!("    {label} error {kind} ×{n}: {example}");
        }
    }
    let rss_line: Vec<String> = rss
        .iter()
        .map(|(name, peak, hwm)| {
            format!("{name} {:.1} MiB (VmHWM {:.1} MiB)", mib(*peak), mib(*hwm))
        })
        .collect();
    println!("  peak RSS: {}", rss_line.join(", "));
    let cpu_line: Vec<String> = cpu
        .procs
        .iter()
        .map(|(name, pct)| format!("{name} {pct:.0}%"))
        .collect();
    println!(
        "  CPU (% of one core, Parley phase incl. warm-up): {}, other processes {:.0}%; machine {:.0}% busy of {} cores",
        cpu_line.join(", "),
        cpu.others,
        cpu.machine_busy,
        procs::cpus()
    );
}

/// One Markdown table of every level, to paste into BENCHMARKS.md.
pub fn print_summary(levels: &[Level]) {
    println!();
    let rss_names: Vec<&str> = levels
        .first()
        .map(|l| l.rss.iter().map(|(n, _, _)| n.as_str()).collect())
        .unwrap_or_default();
    println!(
        "| C | turns | turns/s (direct) | tokens/s | TTFT p50 Parley / direct / added (ms) | TTFT p99 Parley / direct / added (ms) | latency p50 / p99 (ms) | new session p50 / p99 (ms) | SSE events / turn (direct) | errors | peak RSS {} (MiB) |",
        rss_names.join(" / ")
    );
    println!("|---:|---:|---:|---:|---|---|---|---|---|---:|---|");
    for level in levels {
        let direct = level.direct.as_ref();
        let (pt, dt) = (level.parley.ttft(), direct.and_then(Run::ttft));
        let lat = level.parley.latency();
        let session = level.parley.session();
        let rss: Vec<String> = level
            .rss
            .iter()
            .map(|(_, peak, _)| format!("{:.1}", mib(*peak)))
            .collect();
        println!(
            "| {} | {} | {:.1} ({}) | {:.0} | {} / {} / {} | {} / {} / {} | {} / {} | {} / {} | {:.1} ({}) | {} | {} |",
            level.users,
            level.parley.turns.len(),
            level.parley.turns_per_s(),
            direct.map_or_else(|| "–".to_owned(), |d| format!("{:.0}", d.turns_per_s())),
            level.parley.tokens_per_s(),
            fmt_ms(pt.map(|p| p.p50)),
            fmt_ms(dt.map(|p| p.p50)),
            fmt_diff(pt.map(|p| p.p50), dt.map(|p| p.p50)),
            fmt_ms(pt.map(|p| p.p99)),
            fmt_ms(dt.map(|p| p.p99)),
            fmt_diff(pt.map(|p| p.p99), dt.map(|p| p.p99)),
            fmt_ms(lat.map(|p| p.p50)),
            fmt_ms(lat.map(|p| p.p99)),
            fmt_ms(session.map(|p| p.p50)),
            fmt_ms(session.map(|p| p.p99)),
            level.parley.events_per_turn(),
            direct.map_or_else(|| "–".to_owned(), |d| format!("{:.1}", d.events_per_turn())),
            level.parley.errors(),
            rss.join(" / "),
        );
    }
    println!();
    let names: Vec<&str> = levels
        .first()
        .map(|l| l.cpu.procs.iter().map(|(n, _)| n.as_str()).collect())
        .unwrap_or_default();
    println!(
        "| C | {} | other processes CPU % | machine busy | load avg before |",
        names
            .iter()
            .map(|n| format!("{n} CPU %"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---:|{}---:|---:|---|", "---:|".repeat(names.len()));
    for level in levels {
        let cells: Vec<String> = level
            .cpu
            .procs
            .iter()
            .map(|(_, pct)| format!("{pct:.0}"))
            .collect();
        println!(
            "| {} | {} | {:.0} | {:.0} % | {} |",
            level.users,
            cells.join(" | "),
            level.cpu.others,
            level.cpu.machine_busy,
            level.load_before
        );
    }
}
