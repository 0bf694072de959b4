//! `parley-bench`: Parley's load benchmark (see BENCHMARKS.md; `scripts/bench.sh` starts
//! everything it needs and runs it).
//!
//! Against a running `parley api` + `parley worker` pair whose provider is
//! `parley-mock-llm`, it creates through the admin API a group, a chat tool and C students
//! with tokens, then for each concurrency level C: C users each run turns back to back
//! (`POST /v1/sessions/{id}/messages`, `Accept: text/event-stream`, read to `complete`),
//! after a warm-up, for a fixed time. Per turn it measures TTFT (request sent → first
//! `text_delta`), latency (→ `complete`) and tokens; it runs the same load straight
//! against the mock for the baseline TTFT, and samples the RSS and CPU of the processes
//! named with `--proc`.
//!
//! `--readers N` is the memory mode instead: one slow turn, N SSE readers of its events
//! on the api process, and the api's RSS before and with them.

mod load;
mod procs;
mod readers;
mod setup;
mod stats;

use std::{sync::Arc, time::Duration};

use anyhow::Context;
use clap::Parser;

use crate::{
    load::{Run, Timing},
    procs::{CpuSnapshot, Proc, RssSampler, mib},
    setup::Api,
    stats::{fmt_diff, fmt_ms},
};

/// Parley's load benchmark.
#[derive(Debug, Parser)]
#[command(name = "parley-bench", about)]
struct Args {
    /// The api's base URL, e.g. http://127.0.0.1:8080.
    #[arg(long, env = "PARLEY_BENCH_API_URL")]
    api_url: String,
    /// The mock LLM's base URL, e.g. http://127.0.0.1:9000/v1 (for the baseline TTFT).
    #[arg(long, env = "PARLEY_BENCH_MOCK_URL")]
    mock_url: String,
    /// The bootstrap admin's token.
    #[arg(long, env = "PARLEY_BENCH_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: String,
    /// The model the mock serves (for the direct calls).
    #[arg(long, default_value = "mock-model")]
    model: String,
    /// Concurrency levels: users running turns at the same time.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 8, 32])]
    levels: Vec<usize>,
    /// Measured seconds per level (after the warm-up).
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Warm-up seconds per level (turns run, not recorded).
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Tokens per reply (`[[mock tokens=N]]`).
    #[arg(long, default_value_t = 50)]
    tokens: usize,
    /// A turn taking longer than this many seconds is an error.
    #[arg(long, default_value_t = 30.0)]
    turn_timeout: f64,
    /// Skip the direct-to-mock baseline.
    #[arg(long)]
    no_direct: bool,
    /// Every turn makes one function call (`getCurrentTime`) and a second model call
    /// with its result (the agent loop's cost), instead of one plain model call.
    #[arg(long)]
    function_call: bool,
    /// The tool runs modules (the PII redactor, which redacts an email address in every
    /// message) and skills stay on, instead of a tool without modules.
    #[arg(long)]
    modules: bool,
    /// Memory mode: hold this many SSE readers on one slow turn instead of the levels.
    #[arg(long)]
    readers: Option<usize>,
    /// Memory mode: seconds the readers stay open together.
    #[arg(long, default_value_t = 10.0)]
    hold: f64,
    /// Memory mode: the slow turn's mock directive.
    #[arg(long, default_value = "tokens=2000 token_delay_ms=50")]
    slow_turn: String,
    /// Memory mode: tokio tasks the readers are spread over.
    #[arg(long, default_value_t = 8)]
    reader_tasks: usize,
    /// Diagnosis: run this many single turns one after the other and print when each
    /// kind of event first arrived (median), instead of the levels.
    #[arg(long)]
    timeline: Option<usize>,
    /// A process to watch: NAME=PID, or NAME=PID+ to add its children's CPU. The RSS of
    /// `api` and `worker` is reported.
    #[arg(long = "proc")]
    procs: Vec<Proc>,
    /// Clock ticks per second of /proc/PID/stat (`getconf CLK_TCK`).
    #[arg(long, default_value_t = 100)]
    clk_tck: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .tcp_nodelay(true)
        .build()
        .context("building the HTTP client")?;
    let api = Api {
        client: client.clone(),
        base: args.api_url.trim_end_matches('/').to_owned(),
        admin_token: args.admin_token.clone(),
    };
    api.wait_ready(Duration::from_secs(60)).await?;
    println!(
        "parley-bench: {} CPUs, load avg {}; api {}, mock {}",
        procs::cpus(),
        procs::loadavg(),
        api.base,
        args.mock_url
    );

    if let Some(n) = args.readers {
        let fixtures = api
            .fixtures(1, &[], &[])
            .await
            .context("creating fixtures")?;
        let options = readers::Options {
            readers: n,
            hold: Duration::from_secs_f64(args.hold),
            directive: args.slow_turn.clone(),
            tasks: args.reader_tasks,
        };
        return readers::run(
            &api,
            &fixtures.users[0],
            &fixtures.tool_id,
            &args.procs,
            options,
        )
        .await;
    }

    if let Some(turns) = args.timeline {
        return print_timeline(&api, &args, turns).await;
    }

    let max_users = args.levels.iter().copied().max().unwrap_or(1);
    // A plain turn offers no function, so it costs what a plain turn did before the
    // agent loop; the function-call level offers the one it calls.
    let functions: &[&str] = if args.function_call {
        &["getCurrentTime"]
    } else {
        &[]
    };
    let fixtures = api
        .fixtures(
            max_users,
            functions,
            if args.modules { &["pii_redactor"] } else { &[] },
        )
        .await
        .context("creating fixtures")?;
    println!(
        "fixtures: 1 group, 1 chat tool, {max_users} students; each level opens a fresh session per user; {} s warm-up + {} s measured per level; {}-token replies",
        args.warmup, args.duration, args.tokens
    );
    let timing = Timing {
        warmup: Duration::from_secs_f64(args.warmup),
        duration: Duration::from_secs_f64(args.duration),
        turn_timeout: Duration::from_secs_f64(args.turn_timeout),
    };
    let content: Arc<str> = if args.function_call {
        "[[mock tool_call=getCurrentTime]] what time is it".into()
    } else if args.modules {
        format!(
            "[[mock tokens={}]] hi, write to me at kim@example.net",
            args.tokens
        )
        .into()
    } else {
        format!("[[mock tokens={}]] hi", args.tokens).into()
    };
    let mut summary = Vec::new();
    for &users in &args.levels {
        let load_before = procs::loadavg();
        let direct = if args.no_direct {
            None
        } else {
            let client = client.clone();
            let url: Arc<str> =
                format!("{}/chat/completions", args.mock_url.trim_end_matches('/')).into();
            let (model, content) = (Arc::<str>::from(args.model.as_str()), content.clone());
            let tokens = args.tokens;
            Some(
                load::run_users(users, timing, move |_| {
                    let (client, url, model, content) =
                        (client.clone(), url.clone(), model.clone(), content.clone());
                    async move { load::direct_turn(&client, &url, &model, &content, tokens).await }
                })
                .await,
            )
        };

        let mut urls = Vec::with_capacity(users);
        for user in &fixtures.users[..users] {
            let session = api.open_session(user, &fixtures.tool_id).await?;
            urls.push(api.url(&format!("/v1/sessions/{session}/messages")));
        }
        let tokens: Vec<String> = fixtures.users[..users]
            .iter()
            .map(|u| u.token.clone())
            .collect();
        let (urls, tokens) = (Arc::new(urls), Arc::new(tokens));
        let rss_pids: Vec<(String, u32)> = args
            .procs
            .iter()
            .filter(|p| p.name == "api" || p.name == "worker")
            .map(|p| (p.name.clone(), p.pid))
            .collect();
        let sampler = RssSampler::start(rss_pids.iter().map(|(_, pid)| *pid).collect());
        let cpu_before = CpuSnapshot::take(&args.procs);
        let parley = {
            let client = client.clone();
            let content = content.clone();
            let expected = if args.function_call {
                load::Expected::FunctionCall
            } else {
                load::Expected::Tokens(args.tokens)
            };
            load::run_users(users, timing, move |user| {
                let (client, urls, tokens, content) = (
                    client.clone(),
                    urls.clone(),
                    tokens.clone(),
                    content.clone(),
                );
                async move {
                    load::parley_turn(&client, &urls[user], &tokens[user], &content, expected).await
                }
            })
            .await
        };
        let cpu_after = CpuSnapshot::take(&args.procs);
        let peaks = sampler.finish();
        let cpu = procs::cpu_use(&args.procs, &cpu_before, &cpu_after, args.clk_tck);
        let rss: Vec<(String, u64, u64)> = rss_pids
            .iter()
            .zip(&peaks)
            .map(|((name, pid), peak)| (name.clone(), *peak, procs::hwm(*pid).unwrap_or_default()))
            .collect();
        print_level(users, &load_before, &parley, direct.as_ref(), &rss, &cpu);
        summary.push(Level {
            users,
            load_before: load_before.clone(),
            parley,
            direct,
            rss,
            cpu,
        });
    }
    print_summary(&summary);
    println!("\nload avg at the end: {}", procs::loadavg());
    Ok(())
}

async fn print_timeline(api: &Api, args: &Args, turns: usize) -> anyhow::Result<()> {
    let fixtures = api
        .fixtures(1, &[], &[])
        .await
        .context("creating fixtures")?;
    let user = &fixtures.users[0];
    let session = api.open_session(user, &fixtures.tool_id).await?;
    let url = api.url(&format!("/v1/sessions/{session}/messages"));
    let content = format!("[[mock tokens={}]] hi", args.tokens);
    let mut all: Vec<Vec<(String, Duration)>> = Vec::new();
    for _ in 0..turns.max(1) {
        all.push(load::timeline(&api.client, &url, &user.token, &content).await?);
    }
    println!(
        "\n== timeline of {} turns at C = 1: median ms from the request",
        all.len()
    );
    let names: Vec<String> = all[0].iter().map(|(n, _)| n.clone()).collect();
    for name in names {
        let mut at: Vec<Duration> = all
            .iter()
            .filter_map(|marks| marks.iter().find(|(n, _)| *n == name).map(|(_, d)| *d))
            .collect();
        at.sort_unstable();
        println!(
            "  {name:<16} p50 {:>8} ms   min {:>8} ms   max {:>8} ms",
            fmt_ms(stats::nearest_rank(&at, 50.0)),
            fmt_ms(at.first().copied()),
            fmt_ms(at.last().copied()),
        );
    }
    Ok(())
}

struct Level {
    users: usize,
    load_before: String,
    parley: Run,
    direct: Option<Run>,
    rss: Vec<(String, u64, u64)>,
    cpu: procs::CpuUse,
}

fn print_level(
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
fn print_summary(levels: &[Level]) {
    println!();
    println!(
        "| C | turns | turns/s | tokens/s | TTFT p50 Parley / direct / added (ms) | TTFT p99 Parley / direct / added (ms) | latency p50 / p99 (ms) | errors | peak RSS api / worker (MiB) |"
    );
    println!("|---:|---:|---:|---:|---|---|---|---:|---|");
    for level in levels {
        let (pt, dt) = (
            level.parley.ttft(),
            level.direct.as_ref().and_then(Run::ttft),
        );
        let lat = level.parley.latency();
        let rss_of = |name: &str| {
            level.rss.iter().find(|(n, _, _)| n == name).map_or_else(
                || "–".to_owned(),
                |(_, peak, _)| format!("{:.1}", mib(*peak)),
            )
        };
        println!(
            "| {} | {} | {:.1} | {:.0} | {} / {} / {} | {} / {} / {} | {} / {} | {} | {} / {} |",
            level.users,
            level.parley.turns.len(),
            level.parley.turns_per_s(),
            level.parley.tokens_per_s(),
            fmt_ms(pt.map(|p| p.p50)),
            fmt_ms(dt.map(|p| p.p50)),
            fmt_diff(pt.map(|p| p.p50), dt.map(|p| p.p50)),
            fmt_ms(pt.map(|p| p.p99)),
            fmt_ms(dt.map(|p| p.p99)),
            fmt_diff(pt.map(|p| p.p99), dt.map(|p| p.p99)),
            fmt_ms(lat.map(|p| p.p50)),
            fmt_ms(lat.map(|p| p.p99)),
            level.parley.errors(),
            rss_of("api"),
            rss_of("worker"),
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
