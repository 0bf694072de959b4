//! What a load level prints: its figures beside the direct-mock baseline of the same
//! run, and at the end one Markdown table of every level for BENCHMARKS.md.

use crate::{
    load::Run,
    procs::{self, mib},
    stats::{fmt_diff, fmt_ms},
    stream::TokenCpu,
};

pub struct Level {
    pub users: usize,
    pub load_before: String,
    pub parley: Run,
    pub direct: Option<Run>,
    pub rss: Vec<(String, u64, u64)>,
    pub cpu: procs::CpuUse,
    /// CPU per 1,000 tokens streamed in the measured window (None when the CPU could
    /// not be read at its edges).
    pub token_cpu: Option<TokenCpu>,
    /// The same for the direct mock's run: the mock and the benchmark's own client.
    pub direct_cpu: Option<TokenCpu>,
    /// C / the model's time per turn: the rate the direct mock should reach (when it
    /// falls short, the machine, not the model, is the limit, and so is the ratio).
    pub bound: Option<f64>,
}

pub fn print_level(level: &Level) {
    let (users, load_before, parley, direct) = (
        level.users,
        level.load_before.as_str(),
        &level.parley,
        level.direct.as_ref(),
    );
    let (rss, cpu) = (&level.rss, &level.cpu);
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
        "  {:<22} {:>10.1} {:>10} {:>10}",
        "turns/s ended in window",
        parley.completed_per_s(),
        direct.map_or_else(|| "–".to_owned(), |d| format!("{:.1}", d.completed_per_s())),
        ratio(parley, direct).map_or_else(|| "–".to_owned(), |r| format!("×{r:.3}"))
    );
    if let (Some(bound), Some(d)) = (level.bound, direct) {
        println!(
            "  {:<22} {:>10} {:>10.1}   (the direct mock at {:.0} % of it)",
            "model-bound turns/s",
            "",
            bound,
            d.completed_per_s() / bound * 100.0
        );
    }
    let (pg, dg) = (parley.gaps(), direct.and_then(Run::gaps));
    for (label, pick) in [
        ("event gap p50 (ms)", 0),
        ("event gap p99 (ms)", 1),
        ("event gap max (ms)", 2),
    ] {
        let of = |g: crate::stream::GapStats| [g.p50, g.p99, g.max][pick];
        println!(
            "  {label:<22} {:>10} {:>10}",
            fmt_ms(pg.map(of)),
            fmt_ms(dg.map(of))
        );
    }
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
    if let Some(tc) = &level.token_cpu {
        println!(
            "  CPU ms per 1,000 tokens streamed in the {:.0} s window ({} tokens): servers {} = {}",
            tc.window.as_secs_f64(),
            tc.tokens,
            fmt_opt(tc.servers),
            per_process(tc)
        );
    }
    if let Some(tc) = &level.direct_cpu {
        println!(
            "  direct run, CPU ms per 1,000 tokens in its {:.0} s window ({} tokens; bench: a bare client reading the model's stream): {}",
            tc.window.as_secs_f64(),
            tc.tokens,
            per_process(tc)
        );
    }
}

/// `name ms, name ms, …` of each process.
fn per_process(tc: &TokenCpu) -> String {
    let per: Vec<String> = tc
        .procs
        .iter()
        .map(|(name, ms)| format!("{name} {}", fmt_opt(*ms)))
        .collect();
    per.join(", ")
}

/// Parley's turns/s (ended in the window) over the direct mock's.
pub fn ratio(parley: &Run, direct: Option<&Run>) -> Option<f64> {
    let d = direct?.completed_per_s();
    (d > 0.0).then(|| parley.completed_per_s() / d)
}

fn fmt_opt(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{v:.1}"))
}

/// The pace table: per level, what issue #16's targets are about — turns/s beside the
/// direct mock's and their ratio, added TTFT, the readers' p99 gap between events, and
/// CPU per 1,000 streamed tokens of every server process and their sum.
pub fn print_pace_summary(levels: &[Level]) {
    let names: Vec<&str> = levels
        .first()
        .and_then(|l| l.token_cpu.as_ref())
        .map(|tc| {
            tc.procs
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| crate::stream::SERVER_PROCS.contains(n))
                .collect()
        })
        .unwrap_or_default();
    println!();
    println!(
        "| C | turns/s Parley / direct (ratio) [direct % of model-bound] | TTFT p50 Parley / direct / added (ms) | TTFT p99 Parley / direct / added (ms) | event gap p99 Parley / direct (ms) | CPU ms / 1k tokens {} / servers | tokens in window | errors Parley / direct |",
        names.join(" / ")
    );
    println!("|---:|---|---|---|---|---|---:|---|");
    for level in levels {
        let direct = level.direct.as_ref();
        let (pt, dt) = (level.parley.ttft(), direct.and_then(Run::ttft));
        let (pg, dg) = (level.parley.gaps(), direct.and_then(Run::gaps));
        let cpu = level.token_cpu.as_ref().map_or_else(
            || "–".to_owned(),
            |tc| {
                let mut cells: Vec<String> = tc
                    .procs
                    .iter()
                    .filter(|(n, _)| names.contains(&n.as_str()))
                    .map(|(_, ms)| fmt_opt(*ms))
                    .collect();
                cells.push(format!("**{}**", fmt_opt(tc.servers)));
                cells.join(" / ")
            },
        );
        println!(
            "| {} | {:.1} / {} ({}) [{}] | {} / {} / {} | {} / {} / {} | {} / {} | {} | {} | {} / {} |",
            level.users,
            level.parley.completed_per_s(),
            direct.map_or_else(|| "–".to_owned(), |d| format!("{:.1}", d.completed_per_s())),
            ratio(&level.parley, direct).map_or_else(|| "–".to_owned(), |r| format!("{r:.3}")),
            match (level.bound, direct) {
                (Some(b), Some(d)) => format!("{:.0} %", d.completed_per_s() / b * 100.0),
                _ => "–".to_owned(),
            },
            fmt_ms(pt.map(|p| p.p50)),
            fmt_ms(dt.map(|p| p.p50)),
            fmt_diff(pt.map(|p| p.p50), dt.map(|p| p.p50)),
            fmt_ms(pt.map(|p| p.p99)),
            fmt_ms(dt.map(|p| p.p99)),
            fmt_diff(pt.map(|p| p.p99), dt.map(|p| p.p99)),
            fmt_ms(pg.map(|g| g.p99)),
            fmt_ms(dg.map(|g| g.p99)),
            cpu,
            level.token_cpu.as_ref().map_or(0, |tc| tc.tokens),
            level.parley.errors(),
            direct.map_or_else(|| "–".to_owned(), |d| d.errors().to_string()),
        );
    }
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
