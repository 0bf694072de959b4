//! The memory-growth check (`--growth 500,5000`): C users run turns until the totals
//! given, and the RSS of the measured process is read at each total. In embedded mode
//! the in-process event log must let go of finished turns' events, so RSS follows the
//! turns in flight, not the traffic (#9: RSS after 5,000 turns within 10 MiB of RSS
//! after 500).

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::Context;

use crate::{
    load::{self, Expected, Failure},
    procs::{self, mib},
    setup::{Api, Fixtures},
};

/// How much RSS may grow from the first total to the last (the bound).
const BOUND: u64 = 10 * 1024 * 1024;

pub struct Options {
    /// Turn totals at which RSS is read, ascending.
    pub at: Vec<usize>,
    pub users: usize,
    pub content: String,
    pub expected: Expected,
    /// A user opens a new session after this many turns (a session's context stays
    /// short, as in real use).
    pub turns_per_session: usize,
    /// Before each reading, wait this long and run one more turn: the in-process log
    /// sweeps finished logs past their retention at most every 10 s, on an append, so a
    /// reading straight after a burst also holds whatever the last sweep did not reach
    /// (with jemalloc handing freed pages back at once, up to ~18 MiB). Zero reads at
    /// once.
    pub settle: Duration,
}

pub async fn run(
    api: &Api,
    fixtures: &Fixtures,
    pid: u32,
    name: &str,
    options: Options,
) -> anyhow::Result<()> {
    let started = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(AtomicUsize::new(0));
    let first_failure: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let content: Arc<str> = options.content.into();
    let tool_id: Arc<str> = fixtures.tool_id.as_str().into();
    let mut readings = Vec::new();
    println!();
    println!(
        "== RSS of {name} (pid {pid}) after N turns: {} users, a new session every {} turns, {}",
        options.users, options.turns_per_session, content
    );
    let rss0 = procs::rss(pid).context("reading the RSS")?;
    println!("  before any turn: {:.1} MiB", mib(rss0));
    let began = Instant::now();
    for &target in &options.at {
        let phase = Instant::now();
        let from = started.load(Ordering::Relaxed).min(target);
        let tasks: Vec<_> = fixtures.users[..options.users.min(fixtures.users.len())]
            .iter()
            .cloned()
            .map(|user| {
                let (api, started, failures, first_failure) = (
                    api.clone(),
                    started.clone(),
                    failures.clone(),
                    first_failure.clone(),
                );
                let (content, tool_id) = (content.clone(), tool_id.clone());
                let (expected, per_session) = (options.expected, options.turns_per_session.max(1));
                tokio::spawn(async move {
                    let mut url = None;
                    let mut in_session = 0;
                    while started.fetch_add(1, Ordering::Relaxed) < target {
                        if url.is_none() || in_session >= per_session {
                            let session = api.open_session(&user, &tool_id).await?;
                            url = Some(api.url(&format!("/v1/sessions/{session}/messages")));
                            in_session = 0;
                        }
                        in_session += 1;
                        let turn = tokio::time::timeout(
                            Duration::from_secs(30),
                            load::parley_turn(
                                &api.client,
                                url.as_deref().unwrap_or_default(),
                                &user.token,
                                &content,
                                expected,
                            ),
                        )
                        .await;
                        let failure = match turn {
                            Ok(Ok(_)) => None,
                            Ok(Err(Failure { kind, detail })) => Some(format!("{kind}: {detail}")),
                            Err(_) => Some("no end within 30 s".to_owned()),
                        };
                        if let Some(why) = failure {
                            failures.fetch_add(1, Ordering::Relaxed);
                            if let Ok(mut first) = first_failure.lock() {
                                first.get_or_insert(why);
                            }
                        }
                    }
                    started.fetch_sub(1, Ordering::Relaxed);
                    anyhow::Ok(())
                })
            })
            .collect();
        for task in tasks {
            task.await.context("a user task panicked")??;
        }
        let took = phase.elapsed().as_secs_f64();
        let mut rss = procs::rss(pid).context("reading the RSS")?;
        let mut settled = String::new();
        if !options.settle.is_zero() {
            settled = format!(" (at once: {:.1} MiB)", mib(rss));
            tokio::time::sleep(options.settle).await;
            let user = fixtures.users.first().context("no user")?;
            let session = api.open_session(user, &tool_id).await?;
            let url = api.url(&format!("/v1/sessions/{session}/messages"));
            if let Err(Failure { kind, detail }) =
                load::parley_turn(&api.client, &url, &user.token, &content, options.expected).await
            {
                anyhow::bail!("the settling turn failed: {kind}: {detail}");
            }
            rss = procs::rss(pid).context("reading the RSS")?;
        }
        println!(
            "  after {target:>6} turns: RSS {:>6.1} MiB{settled} (VmHWM {:.1} MiB); {:.1} turns/s over the last {} turns; {} failed so far",
            mib(rss),
            mib(procs::hwm(pid).unwrap_or(0)),
            (target - from) as f64 / took.max(1e-9),
            target - from,
            failures.load(Ordering::Relaxed),
        );
        readings.push((target, rss));
    }
    if let Some(why) = first_failure.lock().ok().and_then(|f| f.clone()) {
        println!("  first failure: {why}");
    }
    if let (Some((n0, r0)), Some((n1, r1))) = (readings.first(), readings.last())
        && n1 > n0
    {
        let growth = r1.saturating_sub(*r0);
        println!(
            "  growth from {n0} to {n1} turns: {:+.1} MiB ({:.2} KiB per turn) in {:.0} s; bound ≤ {:.0} MiB: {}",
            (*r1 as f64 - *r0 as f64) / (1024.0 * 1024.0),
            growth as f64 / 1024.0 / (n1 - n0) as f64,
            began.elapsed().as_secs_f64(),
            mib(BOUND),
            if growth <= BOUND && failures.load(Ordering::Relaxed) == 0 {
                "met"
            } else {
                "missed"
            }
        );
    }
    Ok(())
}
