#![allow(
    clippy::disallowed_methods,
    reason = "a benchmark driver: it reads its settings from the environment and /proc, and writes its reports, outside any turn"
)]
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
//! Per level it also reports the turns that ended in the measured window per second
//! beside the mock's, the gaps between the events a reader sees, and the CPU of each
//! process per 1,000 tokens streamed in the window ([`stream`]): what matters at a real
//! model's pace (`--token-delay-ms 20 --tokens 200 --ramp 4`, as `scripts/bench.sh
//! --pace` runs it), where a turn lasts seconds.
//!
//! `--readers N` is the memory mode instead: one slow turn, N SSE readers of its events
//! on the api process, and the api's RSS before and with them. `--cost N` counts what N
//! turns cost on the servers (statements, transactions, Redis commands, SSE events), for
//! a matrix of paces, reply lengths and turn kinds with `--cost-delays`, `--cost-tokens`
//! and `--cost-variants` (`scripts/bench-counts.sh`);
//! `--growth 500,5000` reads the RSS after that many turns; `--drill SECONDS` is the
//! fault drills' load (`scripts/drill.sh`). `--session-per-turn` makes
//! every turn open a session of its own. In embedded mode the one process is
//! `--proc serve=PID` (API, workers, SQLite and the in-process event log).

mod closed_loop;
mod cost;
mod cost_report;
mod counters;
mod drill;
mod growth;
mod levels;
mod load;
mod procs;
mod readers;
mod report;
mod setup;
mod stats;
mod stream;
mod timeline;

use std::{sync::Arc, time::Duration};

use anyhow::Context;
use clap::Parser;

use crate::{load::Timing, procs::Proc, setup::Api};

/// Parley's load benchmark.
#[derive(Debug, Parser)]
#[command(name = "parley-bench", about)]
struct Args {
    /// The api's base URL, e.g. http://127.0.0.1:8080.
    #[arg(long, env = "PARLEY_BENCH_API_URL")]
    api_url: String,
    /// Another api process of the same deployment (repeatable): the load levels spread
    /// their users' turns over every api, round robin.
    #[arg(long)]
    more_api_url: Vec<String>,
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
    /// The mock's pause between tokens, asked per request (`[[mock token_delay_ms=D]]`,
    /// for Parley's turns and the direct baseline alike); absent: the mock's own
    /// (`parley-mock-llm --token-delay-ms`). 20 is a real model's pace.
    #[arg(long)]
    token_delay_ms: Option<u64>,
    /// The users' first turns start spread evenly over this many seconds (at most the
    /// warm-up), so turns of equal length do not start and end in lockstep; about one
    /// turn's length at a real model's pace.
    #[arg(long, default_value_t = 0.0)]
    ramp: f64,
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
    /// Every turn opens a new session first (`POST /v1/sessions`, timed apart), as every
    /// new conversation does, instead of each user keeping one session per level.
    #[arg(long)]
    session_per_turn: bool,
    /// Turn-cost mode: run this many turns one after the other and report SQL
    /// statements, transactions, Redis commands and SSE events per turn, from the
    /// servers' own counters, beside the same turns sent straight to the mock.
    #[arg(long)]
    cost: Option<usize>,
    /// Turn-cost mode: the mock's pauses between tokens (ms) to count at, e.g. 0,5,20;
    /// absent: the mock's own pace only.
    #[arg(long, value_delimiter = ',')]
    cost_delays: Vec<u64>,
    /// Turn-cost mode: the reply lengths to count, e.g. 50,200; absent: `--tokens`.
    #[arg(long, value_delimiter = ',')]
    cost_tokens: Vec<usize>,
    /// Turn-cost mode: plain turns, turns with one function call, or both
    /// (`plain,function-call`); absent: plain (function-call with `--function-call`).
    #[arg(long, value_delimiter = ',', value_enum)]
    cost_variants: Vec<cost::Variant>,
    /// Turn-cost mode: a case at a real model's pace counts about this many seconds of
    /// turns (at least 10 turns, at most `--cost`).
    #[arg(long, default_value_t = 30.0)]
    cost_seconds: f64,
    /// The app's PostgreSQL URL, to count statements and transactions (`--cost`).
    #[arg(long, env = "PARLEY_BENCH_PG_URL")]
    pg_url: Option<String>,
    /// Redis's URL, to count commands (`--cost`).
    #[arg(long, env = "PARLEY_BENCH_REDIS_URL")]
    redis_url: Option<String>,
    /// Memory-growth mode: run turns (C = the first level) up to each of these totals
    /// and read the RSS of the `serve` (else `api`) process at each.
    #[arg(long, value_delimiter = ',')]
    growth: Vec<usize>,
    /// Write every measured Parley turn of each level to this CSV file
    /// (`users,started_s,headers_ms,claimed_ms,ttft_ms,latency_ms`), to see when the slow ones happened.
    #[arg(long)]
    series: Option<std::path::PathBuf>,
    /// Memory-growth mode: a user opens a new session after this many turns.
    #[arg(long, default_value_t = 20)]
    turns_per_session: usize,
    /// Memory-growth mode: before each reading wait this many seconds, then run one
    /// more turn (its append sweeps the finished logs past their retention).
    #[arg(long, default_value_t = 0)]
    growth_settle_s: u64,
    /// Fault-drill mode (scripts/drill.sh injects the faults): C = the first level users
    /// run function-calling turns for this many seconds, as careful clients (retries with
    /// an Idempotency-Key, feeds followed again with Last-Event-ID).
    #[arg(long)]
    drill: Option<f64>,
    /// Fault-drill mode: when the load starts (epoch ms).
    #[arg(long)]
    drill_start: Option<u64>,
    /// Fault-drill mode: seconds the last turns may take to end after the load.
    #[arg(long, default_value_t = 120.0)]
    drill_settle: f64,
    /// Fault-drill mode: where the per-turn records go (JSON lines).
    #[arg(long, default_value = "drill.jsonl")]
    drill_out: std::path::PathBuf,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .tcp_nodelay(true)
        .build()
        .context("building the HTTP client")?;
    let api = Api {
        client: client.clone(),
        base: args.api_url.trim_end_matches('/').to_owned(),
        more: (args.more_api_url.iter())
            .map(|url| url.trim_end_matches('/').to_owned())
            .collect(),
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

    if let Some(seconds) = args.drill {
        let users = args.levels.first().copied().unwrap_or(32);
        let fixtures = api
            .fixtures(users, &["createTodo"], &[])
            .await
            .context("creating fixtures")?;
        let options = drill::Options {
            users,
            seconds,
            start_ms: args.drill_start,
            settle: Duration::from_secs_f64(args.drill_settle),
            out: args.drill_out.clone(),
        };
        return drill::run(&api, &fixtures, options).await;
    }

    if let Some(turns) = args.timeline {
        return timeline::print(&api, args.tokens, turns).await;
    }

    if let Some(turns) = args.cost {
        let servers = counters::Servers {
            pg_url: args.pg_url.clone(),
            redis_url: args.redis_url.clone(),
        };
        let options = cost::Options {
            turns,
            tokens: if args.cost_tokens.is_empty() {
                vec![args.tokens]
            } else {
                args.cost_tokens.clone()
            },
            delays: if args.cost_delays.is_empty() {
                vec![args.token_delay_ms]
            } else {
                args.cost_delays.iter().map(|ms| Some(*ms)).collect()
            },
            variants: match (args.cost_variants.is_empty(), args.function_call) {
                (false, _) => args.cost_variants.clone(),
                (true, false) => vec![cost::Variant::Plain],
                (true, true) => vec![cost::Variant::FunctionCall],
            },
            seconds: args.cost_seconds,
            session_per_turn: args.session_per_turn,
            mock_url: args.mock_url.clone(),
            model: args.model.clone(),
        };
        return cost::run(&api, &servers, &options).await;
    }

    if !args.growth.is_empty() {
        let users = args.levels.first().copied().unwrap_or(1);
        let fixtures = api
            .fixtures(users, &[], &[])
            .await
            .context("creating fixtures")?;
        let proc = args
            .procs
            .iter()
            .find(|p| p.name == "serve")
            .or_else(|| args.procs.iter().find(|p| p.name == "api"))
            .context("--growth needs --proc serve=PID (or api=PID)")?;
        let mut at = args.growth.clone();
        at.sort_unstable();
        let options = growth::Options {
            at,
            users,
            content: format!("[[mock tokens={}]] hi", args.tokens),
            expected: load::Expected::Tokens(args.tokens),
            turns_per_session: args.turns_per_session,
            settle: Duration::from_secs(args.growth_settle_s),
        };
        return growth::run(&api, &fixtures, proc.pid, &proc.name, options).await;
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
    let pace = args.token_delay_ms.map_or_else(
        || "at the mock's own pace".to_owned(),
        |ms| format!("{ms} ms between tokens"),
    );
    println!(
        "fixtures: 1 group, 1 chat tool, {max_users} students; {}; {} s warm-up (first turns spread over {} s) + {} s measured per level; {}-token replies, {pace}",
        if args.session_per_turn {
            "every turn opens a new session (POST /v1/sessions, then the message)"
        } else {
            "each level opens a fresh session per user"
        },
        args.warmup,
        args.ramp,
        args.duration,
        args.tokens
    );
    let timing = Timing {
        warmup: Duration::from_secs_f64(args.warmup),
        duration: Duration::from_secs_f64(args.duration),
        turn_timeout: Duration::from_secs_f64(args.turn_timeout),
        ramp: Duration::from_secs_f64(args.ramp.min(args.warmup)),
    };
    let directive = load::plain_directive(args.tokens, args.token_delay_ms);
    let content: Arc<str> = if args.function_call {
        match args.token_delay_ms {
            Some(ms) => {
                format!("[[mock tool_call=getCurrentTime token_delay_ms={ms}]] what time is it")
            }
            None => "[[mock tool_call=getCurrentTime]] what time is it".to_owned(),
        }
        .into()
    } else if args.modules {
        format!("{directive} hi, write to me at kim@example.net").into()
    } else {
        format!("{directive} hi").into()
    };
    let options = levels::Options {
        levels: args.levels.clone(),
        timing,
        tokens: args.tokens,
        content,
        expected: if args.function_call {
            load::Expected::FunctionCall
        } else {
            load::Expected::Tokens(args.tokens)
        },
        no_direct: args.no_direct,
        session_per_turn: args.session_per_turn,
        mock_url: args.mock_url.clone(),
        model: args.model.clone(),
        procs: args.procs.clone(),
        clk_tck: args.clk_tck,
        series: args.series.clone(),
        token_delay_ms: args.token_delay_ms,
    };
    levels::run(&api, &fixtures, &options).await
}
