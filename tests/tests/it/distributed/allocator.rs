//! The allocator's settings per role (cli/src/alloc.rs): an api process and `parley
//! serve`, which hold the open feeds, run with the settings that give their untouched
//! pages back; workers keep jemalloc's defaults. What the settings save is measured in
//! BENCHMARKS.md (10,000 readers), not here.

use std::time::Duration;

use parley_tests::{Backend, TestApp};

use super::{distributed, to_terminal};

/// What `parley api` and `parley serve` set for themselves when started without settings of its own.
const FEEDS_CONF: &[u8] = b"_RJEM_MALLOC_CONF=tcache_max:4096,dirty_decay_ms:0,muzzy_decay_ms:0";

fn environment(pid: u32) -> Vec<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap_or_else(|err| panic!("reading the environment of {pid}: {err}"))
        .split(|b| *b == 0)
        .map(<[u8]>::to_vec)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_process_runs_with_the_allocator_settings_for_feeds() {
    let d = distributed().await;
    // The process the test started, run again with the settings (same pid, `exec`).
    let api = d.cluster.pid().expect("the api runs");
    assert!(
        environment(api).iter().any(|var| var == FEEDS_CONF),
        "the api process runs with {}",
        String::from_utf8_lossy(FEEDS_CONF)
    );
    for worker in d.cluster.worker_pids() {
        assert!(
            !environment(worker)
                .iter()
                .any(|var| var.starts_with(b"_RJEM_MALLOC_CONF=")),
            "a worker keeps jemalloc's defaults"
        );
    }
    // And it serves a turn's feed as before.
    let (_, mut feed) = d.start_turn("[[mock tokens=20]] hello").await;
    let events = to_terminal(&mut feed, Duration::from_secs(30), "the turn").await;
    assert_eq!(events.last().map(|e| e.event.as_str()), Some("complete"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_server_runs_with_the_allocator_settings_for_feeds() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let serve = app.pid().expect("the server runs");
    assert!(
        environment(serve).iter().any(|var| var == FEEDS_CONF),
        "parley serve runs with {}",
        String::from_utf8_lossy(FEEDS_CONF)
    );
    app.get("/healthz", None).await.assert_status(200);
}
