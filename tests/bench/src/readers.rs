//! The memory mode: one slow turn, N SSE readers on `GET /v1/prompts/{id}/events` held
//! open while its events flow, and the api process's RSS before and with them.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::json;
use tokio::sync::Semaphore;

use crate::{
    procs::{self, Proc, RssSampler, mib},
    setup::{Api, User},
    stats::nearest_rank,
};

pub struct Options {
    pub readers: usize,
    /// How long all readers stay open together.
    pub hold: Duration,
    /// The slow turn's directive (its text after `[[mock `).
    pub directive: String,
    /// Tasks the readers are spread over.
    pub tasks: usize,
}

/// What each reader saw, shared with the driver.
struct Shared {
    events: Vec<AtomicU64>,
    /// The last event id (`seq`) each reader saw.
    last_id: Vec<AtomicU64>,
    /// Readers that saw an id that did not follow the previous one (a lost event).
    gaps: AtomicUsize,
    bytes: AtomicU64,
    connected: AtomicUsize,
    failed: AtomicUsize,
    /// Readers whose stream broke after it opened.
    broken: AtomicUsize,
    /// Readers whose stream the server ended before the terminal event.
    ended: AtomicUsize,
    terminal: AtomicUsize,
    first_failure: std::sync::Mutex<Option<String>>,
    /// Set once the driver stops waiting for readers to end.
    give_up: AtomicBool,
}

pub async fn run(
    api: &Api,
    user: &User,
    tool_id: &str,
    procs: &[Proc],
    options: Options,
) -> anyhow::Result<()> {
    let api_proc = procs
        .iter()
        .find(|p| p.name == "api" || p.name == "serve")
        .context("--readers needs --proc api=PID (or serve=PID)")?;
    let worker_pid = procs.iter().find(|p| p.name == "worker").map(|p| p.pid);
    let rss_idle = procs::rss(api_proc.pid).unwrap_or(0);

    let session = api.open_session(user, tool_id).await?;
    let accepted = api
        .send(
            reqwest::Method::POST,
            &format!("/v1/sessions/{session}/messages?background=true"),
            &user.token,
            &json!({"content": format!("[[mock {}]] hi", options.directive)}),
            202,
        )
        .await?;
    let prompt_id = accepted["prompt_id"]
        .as_str()
        .context("no prompt_id in the 202")?
        .to_owned();
    let events_url = api.url(&format!("/v1/prompts/{prompt_id}/events"));

    // A probe reader, drained in the background: the turn has begun at its first event,
    // and streams once it sees text. A directive with a first-token delay
    // (`first_token_delay_ms=…`) lets every reader connect before the text flows, so
    // each gets a short backlog and the hold measures the live fan-out.
    let probe = api
        .client
        .get(&events_url)
        .bearer_auth(&user.token)
        .send()
        .await?;
    let mut probe = probe.bytes_stream().eventsource();
    let (begun_tx, mut begun) = tokio::sync::watch::channel(0u8);
    let probe = tokio::spawn(async move {
        while let Some(Ok(event)) = probe.next().await {
            let stage = if event.event == "text_delta" { 2 } else { 1 };
            begun_tx.send_if_modified(|s| {
                let later = stage > *s;
                *s = (*s).max(stage);
                later
            });
        }
    });
    let started = matches!(
        tokio::time::timeout(Duration::from_secs(30), begun.wait_for(|s| *s >= 1)).await,
        Ok(Ok(_))
    );
    if !started {
        bail!("the slow turn {prompt_id} did not begin within 30 s");
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_before = procs::rss(api_proc.pid).unwrap_or(0);
    let hwm_before = procs::hwm(api_proc.pid).unwrap_or(0);
    let mut pids = vec![api_proc.pid];
    pids.extend(worker_pid);
    let sampler = RssSampler::start(pids);

    let n = options.readers;
    let shared = Arc::new(Shared {
        events: (0..n).map(|_| AtomicU64::new(0)).collect(),
        last_id: (0..n).map(|_| AtomicU64::new(0)).collect(),
        gaps: AtomicUsize::new(0),
        bytes: AtomicU64::new(0),
        connected: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
        broken: AtomicUsize::new(0),
        ended: AtomicUsize::new(0),
        terminal: AtomicUsize::new(0),
        first_failure: std::sync::Mutex::new(None),
        give_up: AtomicBool::new(false),
    });
    // Connects are throttled a little so the listen backlog does not overflow; once
    // open, every reader holds its own connection.
    let connecting = Arc::new(Semaphore::new(64));
    let opened_at = Instant::now();
    let tasks: Vec<_> = (0..options.tasks.max(1))
        .map(|task| {
            let mine: Vec<usize> = (task..n).step_by(options.tasks.max(1)).collect();
            let (client, url, token) = (api.client.clone(), events_url.clone(), user.token.clone());
            let (shared, connecting) = (shared.clone(), connecting.clone());
            tokio::spawn(async move {
                futures::future::join_all(
                    mine.into_iter()
                        .map(|i| reader(i, &client, &url, &token, &shared, &connecting)),
                )
                .await;
            })
        })
        .collect();

    // Wait for every reader to be connected (or failed), at most 120 s.
    let deadline = Instant::now() + Duration::from_secs(120);
    while shared.connected.load(Ordering::Relaxed) + shared.failed.load(Ordering::Relaxed) < n
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let open_took = opened_at.elapsed();
    let connected = shared.connected.load(Ordering::Relaxed);
    let streaming = matches!(
        tokio::time::timeout(Duration::from_secs(120), begun.wait_for(|s| *s >= 2)).await,
        Ok(Ok(_))
    );
    if !streaming {
        bail!("the slow turn {prompt_id} did not stream within 120 s of the readers");
    }
    let at_open: Vec<u64> = shared
        .events
        .iter()
        .map(|e| e.load(Ordering::Relaxed))
        .collect();
    let bytes_at_open = shared.bytes.load(Ordering::Relaxed);
    tokio::time::sleep(options.hold).await;
    let rss_held = procs::rss(api_proc.pid).unwrap_or(0);
    let at_end: Vec<u64> = shared
        .events
        .iter()
        .map(|e| e.load(Ordering::Relaxed))
        .collect();
    let bytes_held = shared.bytes.load(Ordering::Relaxed) - bytes_at_open;
    let peaks = sampler.finish();
    let hwm_after = procs::hwm(api_proc.pid).unwrap_or(0);

    // End the turn: every reader should get `cancelled`.
    let cancel = api
        .send(
            reqwest::Method::POST,
            &format!("/v1/prompts/{prompt_id}/cancel"),
            &user.token,
            &json!({}),
            202,
        )
        .await;
    let end_deadline = Instant::now() + Duration::from_secs(20);
    while shared.terminal.load(Ordering::Relaxed) < connected && Instant::now() < end_deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    shared.give_up.store(true, Ordering::Relaxed);
    for task in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
    }

    let mut live: Vec<u64> = at_end.iter().zip(&at_open).map(|(e, o)| e - o).collect();
    live.sort_unstable();
    let mut total: Vec<u64> = at_end.clone();
    total.sort_unstable();
    let receiving = live.iter().filter(|n| **n > 0).count();
    // Every reader read the feed from its start: it has every event when it saw ids
    // 1, 2, … up to the terminal event's, with none missing.
    let last_ids: Vec<u64> = shared
        .last_id
        .iter()
        .map(|e| e.load(Ordering::Relaxed))
        .collect();
    let final_seq = last_ids.iter().copied().max().unwrap_or(0);
    let complete = last_ids
        .iter()
        .zip(&at_end_total(&shared))
        .filter(|(last, count)| **last == final_seq && **count == final_seq)
        .count();
    let gaps = shared.gaps.load(Ordering::Relaxed);
    let failed = shared.failed.load(Ordering::Relaxed);
    let broken = shared.broken.load(Ordering::Relaxed);
    let terminal = shared.terminal.load(Ordering::Relaxed);
    let with_readers = peaks[0].max(rss_held);
    let per_reader = with_readers.saturating_sub(rss_before) as f64 / connected.max(1) as f64;

    println!();
    println!(
        "== {n} SSE readers on one api process (slow turn: [[mock {}]]), load avg {}",
        options.directive,
        procs::loadavg()
    );
    println!(
        "  readers: {connected} connected in {:.2} s, {failed} failed to connect, {broken} broken later, {} ended by the server before the terminal event{}",
        open_took.as_secs_f64(),
        shared.ended.load(Ordering::Relaxed),
        shared
            .first_failure
            .lock()
            .ok()
            .and_then(|f| f.clone())
            .map(|f| format!(" (first: {f})"))
            .unwrap_or_default()
    );
    let q = |v: &[u64], p: f64| nearest_rank(v, p).unwrap_or(0);
    println!(
        "  events per reader during the {:.0} s hold: min {} / p50 {} / max {}; readers that received live events: {receiving}/{n}; {:.1} MiB of SSE received in the hold",
        options.hold.as_secs_f64(),
        q(&live, 0.0),
        q(&live, 50.0),
        q(&live, 100.0),
        mib(bytes_held),
    );
    println!(
        "  events per reader in all (backlog + live): min {} / p50 {} / max {}",
        q(&total, 0.0),
        q(&total, 50.0),
        q(&total, 100.0)
    );
    println!(
        "  after cancel: {terminal}/{connected} readers received the terminal event{}",
        match &cancel {
            Ok(_) => String::new(),
            Err(err) => format!(" (cancel failed: {err})"),
        }
    );
    println!(
        "  every event: {complete}/{n} readers received all {final_seq} events of the turn (ids 1..={final_seq}); {gaps} readers saw a gap"
    );
    println!(
        "  api RSS: idle {:.1} MiB, before readers {:.1} MiB, with readers {:.1} MiB (peak sampled; {:.1} MiB at the end of the hold), VmHWM {:.1} → {:.1} MiB",
        mib(rss_idle),
        mib(rss_before),
        mib(with_readers),
        mib(rss_held),
        mib(hwm_before),
        mib(hwm_after)
    );
    println!(
        "  per reader: {:.1} KiB ({:.1} MiB for {connected} readers)",
        per_reader / 1024.0,
        mib(with_readers.saturating_sub(rss_before))
    );
    if let Some(worker) = peaks.get(1) {
        println!("  worker RSS peak: {:.1} MiB", mib(*worker));
    }
    // #3: 1,000 readers within 150 MiB; #16: 10,000 within 150 MB (#9: 200 MB), each
    // with every event.
    let (goal, limit, label) = if n >= 10_000 {
        (10_000, 150_000_000, "150 MB")
    } else {
        (1000, 150 * 1024 * 1024, "150 MiB")
    };
    println!(
        "  target: RSS with {goal} readers ≤ {label}, every reader with every event → {:.1} MiB: {}",
        mib(with_readers),
        if n < goal || connected < n || receiving < n {
            "not shown (fewer live readers than the target's)"
        } else if with_readers <= limit && complete == n {
            "met"
        } else {
            "missed"
        }
    );
    // The probe stayed open until here, so the prompt always had a reader.
    probe.abort();
    Ok(())
}

async fn reader(
    i: usize,
    client: &reqwest::Client,
    url: &str,
    token: &str,
    shared: &Shared,
    connecting: &Semaphore,
) {
    let response = {
        let _permit = connecting.acquire().await;
        client.get(url).bearer_auth(token).send().await
    };
    let response = match response {
        Ok(r) if r.status().as_u16() == 200 => r,
        Ok(r) => return fail(shared, format!("http {}", r.status())),
        Err(err) => return fail(shared, err.to_string()),
    };
    shared.connected.fetch_add(1, Ordering::Relaxed);
    let mut bytes = response.bytes_stream();
    // Count bytes as they come, then parse: wrap the byte stream.
    let counted = futures::stream::poll_fn(move |cx| {
        let item = bytes.poll_next_unpin(cx);
        if let std::task::Poll::Ready(Some(Ok(chunk))) = &item {
            shared
                .bytes
                .fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
        item
    });
    let mut events = counted.eventsource();
    loop {
        if shared.give_up.load(Ordering::Relaxed) {
            return;
        }
        // Wake now and then to notice `give_up` even on a silent stream.
        let next = tokio::time::timeout(Duration::from_secs(1), events.next()).await;
        let event = match next {
            Err(_) => continue,
            Ok(None) => {
                shared.ended.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Ok(Some(Err(err))) => {
                shared.broken.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut first) = shared.first_failure.lock() {
                    first.get_or_insert(format!("stream: {err}"));
                }
                return;
            }
            Ok(Some(Ok(event))) => event,
        };
        if event.event == "ping" {
            continue;
        }
        shared.events[i].fetch_add(1, Ordering::Relaxed);
        let id: u64 = event.id.parse().unwrap_or(0);
        let previous = shared.last_id[i].swap(id, Ordering::Relaxed);
        if id != previous + 1 {
            shared.gaps.fetch_add(1, Ordering::Relaxed);
        }
        if matches!(event.event.as_str(), "complete" | "error" | "cancelled") {
            shared.terminal.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
}

fn at_end_total(shared: &Shared) -> Vec<u64> {
    shared
        .events
        .iter()
        .map(|e| e.load(Ordering::Relaxed))
        .collect()
}

fn fail(shared: &Shared, why: String) {
    shared.failed.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut first) = shared.first_failure.lock() {
        first.get_or_insert(why);
    }
}
