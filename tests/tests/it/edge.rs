//! The HTTP edge's hardening: credentials before the body, failed authentication
//! throttled per client address, CORS, `/metrics` behind a token or on a listener of
//! its own, and a readiness check that notices a database refusing writes.

use std::time::{Duration, Instant};

use parley_tests::metrics::Scrape;
use parley_tests::{ApiResult, Backend, TestApp, both_backends};
use reqwest::Method;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The resident memory of a process, in KiB (`/proc/<pid>/status`).
fn rss_kib(pid: u32) -> u64 {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server's status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

/// Sends `head` (a request's head, no body) on a raw connection and returns the status
/// line of the answer, or None when none came within `within`.
async fn status_line_of_head(app: &TestApp, head: &str, within: Duration) -> Option<String> {
    let addr = app.base_url.trim_start_matches("http://").to_owned();
    let mut conn = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connecting");
    conn.write_all(head.as_bytes())
        .await
        .expect("writing the head");
    let mut buf = vec![0u8; 4096];
    let read = tokio::time::timeout(within, conn.read(&mut buf))
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&buf[..read]).into_owned();
    text.lines().next().map(str::to_owned)
}

both_backends!(
    a_request_without_credentials_is_answered_before_its_body,
    |app| async move {
        // A 10 MiB upload announced, not one byte of it sent: the 401 comes anyway, at once.
        let head = "POST /v1/files HTTP/1.1\r\nHost: parley\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 10485760\r\n\r\n";
        let status = status_line_of_head(&app, head, Duration::from_secs(3)).await;
        assert_eq!(
            status.as_deref(),
            Some("HTTP/1.1 401 Unauthorized"),
            "the body was waited for"
        );
        // With wrong credentials too (and a JSON body that is never read).
        let head = "POST /v1/sessions HTTP/1.1\r\nHost: parley\r\nAuthorization: Bearer prl_wrong\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n";
        let status = status_line_of_head(&app, head, Duration::from_secs(3)).await;
        assert_eq!(status.as_deref(), Some("HTTP/1.1 401 Unauthorized"));
        // Valid credentials: the body is read (nothing comes until it is sent).
        let head = format!(
            "POST /v1/sessions HTTP/1.1\r\nHost: parley\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
            app.admin_token
        );
        let status = status_line_of_head(&app, &head, Duration::from_millis(700)).await;
        assert_eq!(status, None, "an authenticated request waits for its body");
    }
);

both_backends!(
    anonymous_uploads_cost_the_server_no_memory,
    |app| async move {
        let pid = app.pid().expect("the server's pid");
        let body = vec![b'x'; 10 * 1024 * 1024];
        // Warm up the paths once, then measure 40 concurrent anonymous 10 MiB uploads.
        let upload = |body: Vec<u8>| {
            let form = reqwest::multipart::Form::new().part(
                "file",
                reqwest::multipart::Part::bytes(body).file_name("big.txt"),
            );
            app.client.post(app.url("/v1/files")).multipart(form).send()
        };
        let _ = upload(body.clone()).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before = rss_kib(pid);
        let uploads: Vec<_> = (0..40).map(|_| upload(body.clone())).collect();
        let results = futures::future::join_all(uploads).await;
        // A sender still writing may see the connection closed instead of the 401.
        for response in results.iter().flatten() {
            assert_eq!(response.status().as_u16(), 401);
        }
        let after = rss_kib(pid);
        assert!(
            after < before + 8 * 1024,
            "RSS grew from {before} KiB to {after} KiB for 40 anonymous uploads"
        );
    }
);

both_backends!(
    failed_authentication_is_throttled_per_client_address,
    |backend: Backend| async move {
        let app = TestApp::spawn_with_env(
            backend,
            &[
                ("PARLEY_HTTP__AUTH_FAILURES_PER_MINUTE", "5"),
                ("PARLEY_HTTP__TRUSTED_PROXY_HOPS", "1"),
            ],
        )
        .await;
        let from = |ip: &str, token: &str| {
            app.request(Method::GET, "/v1/sessions", Some(token))
                .header("x-forwarded-for", format!("203.0.113.7, {ip}"))
        };
        for i in 0..5 {
            let wrong = app
                .send(from("198.51.100.1", &format!("prl_guess{i}")))
                .await;
            assert_eq!(wrong.assert_problem(401), "unauthenticated");
        }
        // The sixth attempt from that address is not even looked at: even the right
        // token is refused until the minute is over.
        let started = Instant::now();
        let refused = app.send(from("198.51.100.1", &app.admin_token)).await;
        assert_eq!(refused.assert_problem(429), "auth_throttled");
        let retry: u64 = refused
            .header("retry-after")
            .and_then(|v| v.parse().ok())
            .expect("Retry-After");
        assert!((1..=60).contains(&retry), "Retry-After {retry}");
        assert!(started.elapsed() < Duration::from_secs(2));
        // A request without credentials is no guess: 401, not 429.
        let anonymous = app
            .send(
                app.request(Method::GET, "/v1/sessions", None)
                    .header("x-forwarded-for", "203.0.113.7, 198.51.100.1"),
            )
            .await;
        assert_eq!(anonymous.assert_problem(401), "unauthenticated");
        // Another address is not held; a request that needs no credentials neither.
        app.send(from("198.51.100.2", &app.admin_token))
            .await
            .assert_status(200);
        app.send(
            app.request(Method::GET, "/healthz", None)
                .header("x-forwarded-for", "198.51.100.1"),
        )
        .await
        .assert_status(200);
        // Counted in the metrics.
        let scrape = Scrape::parse(&app.get("/metrics", None).await.text);
        assert_eq!(
            scrape.sum("parley_auth_failures_total", &[("outcome", "refused")]),
            Some(5.0)
        );
        assert_eq!(
            scrape.sum("parley_auth_failures_total", &[("outcome", "throttled")]),
            Some(1.0)
        );
    }
);

both_backends!(
    cors_lets_the_configured_origins_in_and_no_other,
    |backend: Backend| async move {
        let app = TestApp::spawn_with_env(
            backend,
            &[("PARLEY_HTTP__CORS_ORIGINS", "[\"http://app.example:5173\"]")],
        )
        .await;
        let preflight = |origin: &str, path: &str| {
            app.request(Method::OPTIONS, path, None)
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header(
                    "access-control-request-headers",
                    "authorization, content-type, idempotency-key, last-event-id",
                )
        };
        for path in [
            "/v1/sessions",
            "/v1/sessions/0192d1c8-0000-7000-8000-000000000000/messages",
            "/openapi.json",
        ] {
            let ok = app.send(preflight("http://app.example:5173", path)).await;
            ok.assert_status(204);
            assert_eq!(
                ok.header("access-control-allow-origin"),
                Some("http://app.example:5173"),
                "{path}"
            );
            assert_eq!(
                ok.header("access-control-allow-headers"),
                Some("authorization, content-type, idempotency-key, last-event-id")
            );
            assert!(
                ok.header("access-control-allow-methods")
                    .is_some_and(|m| m.contains("POST") || m.contains("GET")),
                "{path}"
            );
            let refused = app.send(preflight("http://evil.example", path)).await;
            assert_eq!(refused.assert_problem(403), "cors_origin_refused");
            assert_eq!(refused.header("access-control-allow-origin"), None);
        }
        // An actual request, an error included, carries the headers a client reads.
        let listed = app
            .send(
                app.request(Method::GET, "/v1/sessions", Some(&app.admin_token))
                    .header("origin", "http://app.example:5173"),
            )
            .await;
        listed.assert_status(200);
        assert_eq!(
            listed.header("access-control-allow-origin"),
            Some("http://app.example:5173")
        );
        let exposed = listed
            .header("access-control-expose-headers")
            .unwrap_or_default();
        for header in ["Location", "Retry-After", "Parley-Rid"] {
            assert!(exposed.contains(header), "{exposed}");
        }
        let unauthenticated = app
            .send(
                app.request(Method::GET, "/v1/sessions", None)
                    .header("origin", "http://app.example:5173"),
            )
            .await;
        unauthenticated.assert_status(401);
        assert_eq!(
            unauthenticated.header("access-control-allow-origin"),
            Some("http://app.example:5173")
        );
        let foreign = app
            .send(
                app.request(Method::GET, "/v1/sessions", Some(&app.admin_token))
                    .header("origin", "http://evil.example"),
            )
            .await;
        assert_eq!(foreign.header("access-control-allow-origin"), None);
    }
);

both_backends!(by_default_no_origin_is_allowed, |app| async move {
    let refused = app
        .send(
            app.request(Method::OPTIONS, "/v1/sessions", None)
                .header("origin", "http://localhost:3000")
                .header("access-control-request-method", "GET"),
        )
        .await;
    assert_eq!(refused.assert_problem(403), "cors_origin_refused");
});

both_backends!(
    metrics_can_need_a_token_or_move_to_their_own_port,
    |backend: Backend| async move {
        let token = "metrics-token-0123456789";
        let app = TestApp::spawn_with_env(backend, &[("PARLEY_HTTP__METRICS_TOKEN", token)]).await;
        assert_eq!(
            app.get("/metrics", None).await.assert_problem(401),
            "unauthenticated"
        );
        assert_eq!(
            app.get("/metrics", Some(&app.admin_token))
                .await
                .assert_problem(401),
            "unauthenticated"
        );
        let scraped = app.get("/metrics", Some(token)).await;
        scraped.assert_status(200);
        assert!(scraped.text.contains("parley_http_requests_total"));
        drop(app);

        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let listen = format!("127.0.0.1:{port}");
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_HTTP__METRICS_LISTEN", &listen)]).await;
        assert_eq!(
            app.get("/metrics", None).await.assert_problem(404),
            "not_found"
        );
        let own = app
            .client
            .get(format!("http://{listen}/metrics"))
            .send()
            .await
            .expect("the metrics port");
        assert_eq!(own.status().as_u16(), 200);
        assert!(
            own.text()
                .await
                .unwrap_or_default()
                .contains("parley_http_requests_total")
        );
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_fails_while_the_database_refuses_writes() {
    parley_tests::run_test(Backend::Postgres, |backend| async move {
        let app = TestApp::spawn(backend).await;
        let app = &app;
        app.anonymous_client().readyz().send().await.assert_status(200);
        // Every transaction of the database becomes read-only, as on a full disk or a
        // replica: reads still answer, writes fail. The server's pooled connections
        // are ended so that new ones read the setting.
        let url = app.database_url().expect("PostgreSQL").to_owned();
        let name = url.rsplit('/').next().expect("a database name").to_owned();
        let read_only = |on: bool| {
            vec![
                "SET TRANSACTION READ WRITE".to_owned(),
                format!("ALTER DATABASE {name} SET default_transaction_read_only = {on}"),
                format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}' AND pid <> pg_backend_pid()"
                ),
            ]
        };
        // The ended connections fail once ("unreachable") before the pool replaces them.
        let readiness_until = |wanted: &'static str| async move {
            let deadline = Instant::now() + Duration::from_secs(15);
            loop {
                let response = app.get("/readyz", None).await;
                if response.text.contains(wanted) || Instant::now() > deadline {
                    return response;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        app.execute(&read_only(true)).await;
        let not_ready = readiness_until("database: refuses writes").await;
        assert_eq!(not_ready.assert_problem(503), "not_ready");
        assert!(not_ready.text.contains("database: refuses writes"), "{}", not_ready.text);
        app.execute(&read_only(false)).await;
        readiness_until("\"status\":\"ok\"").await.assert_status(200);
    })
    .await;
}
