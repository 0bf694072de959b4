//! The process as operators see it: liveness, readiness (database, Redis), the OpenAPI
//! document and the interactive docs, a bad setting named at start-up, the runtime's
//! threads, a clean exit on SIGTERM and `parley probe` (the image's health check).
//!
//! `/healthz` and `/readyz` through the typed client (`parley_tests::client`);
//! `/openapi.json` and `/docs` are no operations of the document, so they stay raw.

use parley_tests::client::types::Readiness;
use parley_tests::{ApiResult, Backend, TestApp, both_backends, test_redis_url};

/// Whether the readiness report has a check `name` that passed (`ok`, as documented).
fn check_passed(readiness: &Readiness, name: &str) -> bool {
    readiness.checks.get(name).map(String::as_str) == Some("ok")
}

both_backends!(healthz_answers_200, |app| async move {
    let health = app
        .anonymous_client()
        .healthz()
        .send()
        .await
        .unwrap_or_else(|err| panic!("/healthz: {err:?}"));
    assert_eq!(health.status().as_u16(), 200, "{:?}", *health);
});

both_backends!(readyz_checks_the_database, |app| async move {
    let readiness = app
        .anonymous_client()
        .readyz()
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert!(
        check_passed(&readiness, "database"),
        "/readyz must report a passing database check: {readiness:?}"
    );
});

both_backends!(
    readyz_checks_redis_when_configured,
    |backend: Backend| async move {
        let redis = test_redis_url();
        let app = TestApp::spawn_with_env(backend, &[("PARLEY_REDIS_URL", &redis)]).await;
        let readiness = app
            .anonymous_client()
            .readyz()
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert!(
            check_passed(&readiness, "database") && check_passed(&readiness, "redis"),
            "/readyz must report passing database and redis checks: {readiness:?}"
        );
    }
);

both_backends!(
    readyz_is_503_when_redis_is_down,
    |backend: Backend| async move {
        // Nothing listens on port 1: the server must still start, and say it is not ready.
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_REDIS_URL", "redis://127.0.0.1:1/")]).await;
        let anonymous = app.anonymous_client();
        let health = anonymous
            .healthz()
            .send()
            .await
            .unwrap_or_else(|err| panic!("/healthz: {err:?}"));
        assert_eq!(health.status().as_u16(), 200, "{:?}", *health);
        let code = anonymous.readyz().send().await.assert_problem(503);
        assert!(!code.is_empty(), "the problem needs a code");
    }
);

both_backends!(openapi_document_lists_the_api, |app| async move {
    // The document itself is no operation of the document: a raw request.
    let response = app.get("/openapi.json", None).await;
    response.assert_status(200);
    let version = response.body["openapi"].as_str().unwrap_or_default();
    assert!(version.starts_with("3."), "openapi version {version:?}");
    assert!(
        response.body["paths"].get("/v1/sessions").is_some(),
        "the document's paths must include /v1/sessions: {}",
        response.body["paths"]
    );
});

both_backends!(interactive_docs_are_served, |app| async move {
    // An HTML page, no operation of the document: a raw request.
    let response = app.get("/docs", None).await;
    response.assert_status(200);
    assert!(
        response.content_type().starts_with("text/html"),
        "{response}"
    );
    assert!(
        response.text.contains("openapi.json") || response.text.to_lowercase().contains("swagger")
    );
});

both_backends!(
    api_role_refuses_to_start_on_pending_migrations,
    |app| async move {
        let mut app = app;
        app.stop().await;
        let down = app.cli(&["migrate", "down", "--all"]).await;
        assert!(
            down.status.success(),
            "migrate down: {}",
            String::from_utf8_lossy(&down.stderr)
        );
        let started = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            app.cli(&["api", "--listen", "127.0.0.1:0"]),
        )
        .await
        .expect("`parley api` must exit instead of serving on an unmigrated database");
        assert!(!started.status.success());
        let stderr = String::from_utf8_lossy(&started.stderr);
        assert!(
            stderr.contains("parley migrate up"),
            "the error says what to do: {stderr}"
        );
    }
);

both_backends!(a_bad_setting_names_its_key, |app| async move {
    let output = app
        .cli_with_env(
            &["migrate", "status"],
            &[("PARLEY_LIMITS__MAX_BODY_BYTES", "lots")],
        )
        .await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("limits.max_body_bytes"), "{stderr}");
});

// `runtime.threads` sizes the process's runtime (cli/src/main.rs); unset, one thread per
// CPU the process may use. The start-up line says how many it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_runs_the_threads_it_is_given() {
    // The server's output reaches its log file through a copier: the line may land a
    // moment after the server answers, so look for up to 5 s.
    let started = async |app: &TestApp| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let log = app.full_server_log();
            let threads = log
                .lines()
                .find(|line| line.contains("parley started"))
                .and_then(|line| line.split("threads=").nth(1))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse::<usize>().ok());
            match threads {
                Some(n) => return n,
                None if std::time::Instant::now() < deadline => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                None => panic!("no `parley started` line with threads=N:\n{log}"),
            }
        }
    };
    let given = TestApp::spawn_with_env(
        Backend::Sqlite,
        &[("PARLEY_RUNTIME__THREADS", "3"), ("PARLEY_LOG", "info")],
    )
    .await;
    given.get("/healthz", None).await.assert_status(200);
    assert_eq!(started(&given).await, 3);
    let default = TestApp::spawn_with_env(Backend::Sqlite, &[("PARLEY_LOG", "info")]).await;
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(
        started(&default).await,
        cpus,
        "one thread per CPU when unset"
    );
    // Zero is refused, naming the key.
    let output = default
        .cli_with_env(&["migrate", "status"], &[("PARLEY_RUNTIME__THREADS", "0")])
        .await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("runtime.threads"), "{stderr}");
}

/// Reads one HTTP/1.1 response (head and `Content-Length` body) from `conn`.
async fn read_response(conn: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().to_owned())
                })
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("no Content-Length: {head}"));
            if body.len() >= length {
                return text;
            }
        }
        let n = conn.read(&mut chunk).await.expect("reading the response");
        assert!(n > 0, "the connection closed mid-response: {text}");
        bytes.extend_from_slice(&chunk[..n]);
    }
}

// The HTTP server loop (`cli/src/http.rs`): on SIGTERM it stops accepting, closes idle
// keep-alive connections at once instead of waiting out the grace period, and exits 0.
both_backends!(
    sigterm_closes_idle_connections_and_exits_cleanly,
    |backend: Backend| async move {
        use std::time::{Duration, Instant};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let mut app = TestApp::spawn(backend).await;
        let addr = app.base_url.trim_start_matches("http://").to_owned();
        // Two requests on one connection (keep-alive), then the connection stays open.
        let mut conn = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connecting");
        for _ in 0..2 {
            conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: parley\r\n\r\n")
                .await
                .expect("sending a request");
            let response = read_response(&mut conn).await;
            assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        }
        let started = Instant::now();
        let status = app.terminate(Duration::from_secs(9)).await;
        assert!(
            status.is_some_and(|s| s.success()),
            "parley must exit 0 after SIGTERM within 9 s: {status:?}"
        );
        // The shutdown grace is 10 s: an idle connection must not hold it.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "an idle keep-alive connection held the shutdown for {:?}",
            started.elapsed()
        );
        let mut rest = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_secs(2), conn.read(&mut rest))
            .await
            .expect("the idle connection was not closed");
        assert!(
            matches!(read, Ok(0) | Err(_)),
            "the idle connection got bytes after the shutdown: {read:?}"
        );
        assert!(
            tokio::net::TcpStream::connect(&addr).await.is_err(),
            "something still listens on {addr} after the exit"
        );
    }
);

both_backends!(
    a_cluster_node_named_as_one_server_is_refused_at_start_up_with_the_fix,
    |app| async move {
        // One node of the test cluster, written as a one-server URL: its keys would
        // answer `MOVED` from the nodes that do not hold them.
        let cluster = parley_tests::test_redis_cluster_url();
        let node = cluster
            .trim_start_matches("redis+cluster://")
            .split(',')
            .next()
            .expect("a seed node")
            .to_owned();
        let url = format!("redis://{node}/");
        let output = app
            // Its own port: `api` binds before it connects, and the default port is
            // shared by every test that starts one.
            .cli_with_env(
                &["api", "--listen", "127.0.0.1:0"],
                &[("PARLEY_REDIS_URL", &url)],
            )
            .await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "refused: {stderr}");
        assert!(
            stderr.contains("redis.url")
                && stderr.contains("cluster mode")
                && stderr.contains("redis+cluster://"),
            "the message names the setting, the reason and the fix: {stderr}"
        );
    }
);

both_backends!(parley_probe_is_the_images_health_check, |app| async move {
    // What the image's HEALTHCHECK and the compose file run: exit 0 on a 2xx.
    app.cli_ok(&["probe", &app.url("/readyz")]).await;
    let missing = app.cli(&["probe", &app.url("/no-such-path")]).await;
    assert!(!missing.status.success(), "a 404 is unhealthy");
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("404"), "{stderr}");
    let nobody = app.cli(&["probe", "http://127.0.0.1:1/healthz"]).await;
    assert!(!nobody.status.success(), "nothing listening is unhealthy");
});

both_backends!(
    the_pages_are_served_with_their_assets_and_a_strict_csp,
    |app| async move {
        for (path, script) in [("/chat", "/assets/chat.js"), ("/admin", "/assets/admin.js")] {
            let page = app.get(path, None).await;
            page.assert_status(200);
            assert!(page.content_type().starts_with("text/html"), "{path}");
            assert!(page.text.contains(script), "{path} loads {script}");
            let csp = page.header("content-security-policy").unwrap_or_default();
            assert!(
                csp.contains("script-src 'self'") && csp.contains("connect-src 'self'"),
                "{csp}"
            );
            let js = app.get(script, None).await;
            js.assert_status(200);
            assert!(js.content_type().starts_with("text/javascript"));
            assert!(js.text.len() > 1000, "{script} is the bundle");
        }
        let css = app.get("/assets/pages.css", None).await;
        css.assert_status(200);
        assert!(css.content_type().starts_with("text/css"));
    }
);
