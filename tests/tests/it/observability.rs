//! What operators read (DESIGN §11): the Prometheus metrics of `GET /metrics` on the api
//! (all-in-one: the workers' too) and of a worker's own listener
//! (`parley worker --metrics-listen`), after real turns — a function call, a skill
//! answer, a module's rewrite, a cancel.

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{ToolDefinition, ToolModule};
use parley_tests::metrics::Scrape;
use parley_tests::otlp::{OtlpReceiver, ReceivedSpan};
use parley_tests::turns::{config_path, mock_provider_config, prompt_id_of};
use parley_tests::{ApiResult, Backend, Cluster, SseEvent, TestApp, both_backends, run_test};
use serde_json::json;

use crate::fixtures::api::{self, uuid};

const WAIT: Duration = Duration::from_secs(20);

/// Every metric DESIGN §11 names, as `/metrics` renders it (a histogram by its count).
const DESIGN_METRICS: [&str; 13] = [
    "parley_sessions_created_total",
    "parley_turn_duration_seconds_count",
    "parley_llm_time_to_first_token_seconds_count",
    "parley_hook_duration_seconds_count",
    "parley_hook_runs_total",
    "parley_provider_calls_total",
    "parley_provider_breaker_state",
    "parley_stream_cancellations_total",
    "parley_skill_confidence_count",
    "parley_skill_hits_total",
    "parley_function_calls_total",
    "parley_prompts",
    "parley_queue_depth",
];

async fn scrape(app: &TestApp) -> Scrape {
    let response = app.get("/metrics", None).await;
    response.assert_status(200);
    assert!(
        response
            .content_type()
            .starts_with("text/plain; version=0.0.4"),
        "{}",
        response.content_type()
    );
    Scrape::parse(&response.text)
}

/// `promtool check metrics` (Debian's `prometheus` package, installed by
/// `scripts/test.sh`) accepts the scrape: names, types, HELP and units by convention.
fn promtool_accepts(text: &str) {
    use std::io::Write;
    let mut child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool (scripts/test.sh installs it)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("writing to promtool");
    let out = child.wait_with_output().expect("promtool ran");
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A student's session on a tool with `getCurrentTime` and the PII redactor: returns
/// the student's token, client and session id.
async fn observed_session(app: &TestApp) -> (String, Client, String) {
    let admin = app.admin_client();
    let (user_id, token) = app.create_user("observed@example.com", "student").await;
    let group = api::group(&admin, "Observed", None, json!({})).await;
    api::add_member(&admin, group.id, uuid(&user_id)).await;
    let definition = ToolDefinition {
        functions: Some(vec!["getCurrentTime".into()]),
        modules: Some(vec![ToolModule {
            name: "pii_redactor".into(),
            config: None,
        }]),
        ..api::definition("Help with homework.")
    };
    let tool = api::tool_with(&admin, group.id, "Observed", definition).await;
    let client = app.client_as(&token);
    let session = api::session(&client, tool.id).await.id.to_string();
    (token, client, session)
}

async fn until_terminal(app: &TestApp, token: &str, session: &str, content: &str) -> Vec<SseEvent> {
    let mut feed = app.stream_message(token, session, content).await;
    assert_eq!(feed.status, 200);
    feed.until_terminal(WAIT).await
}

both_backends!(
    metrics_show_every_design_metric_after_real_turns,
    |backend: Backend| async move {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "");
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
        let before = scrape(&app).await;
        let (token, client, session) = observed_session(&app).await;

        // A function call (the PII redactor rewrites the message first), a skill's
        // answer, and a turn cancelled mid-stream.
        let called = until_terminal(
            &app,
            &token,
            &session,
            "[[mock tool_call='getCurrentTime:{}']] the time, and mail jane@example.org",
        )
        .await;
        assert_eq!(called.last().map(|e| e.event.as_str()), Some("complete"));
        let skilled = until_terminal(&app, &token, &session, "what is 2+2?").await;
        assert_eq!(skilled.last().map(|e| e.event.as_str()), Some("complete"));
        let mut feed = app
            .stream_message(
                &token,
                &session,
                "[[mock tokens=400 token_delay_ms=20]] long",
            )
            .await;
        let mut seen = Vec::new();
        while !seen.iter().any(|e: &SseEvent| e.event == "text_delta") {
            seen.push(feed.next(WAIT).await.expect("a delta"));
        }
        client
            .cancel_prompt()
            .id(uuid(&prompt_id_of(&seen)))
            .send()
            .await
            .assert_status(202);
        let rest = feed.until_terminal(WAIT).await;
        assert_eq!(rest.last().map(|e| e.event.as_str()), Some("cancelled"));

        let after = scrape(&app).await;
        for name in DESIGN_METRICS {
            assert!(
                after.matching(name, &[]).next().is_some(),
                "{name} has no sample:\n{}",
                after.text
            );
        }
        // The samples count what happened, not merely exist.
        let delta = |name: &str, labels: &[(&str, &str)]| {
            after.sum(name, labels).unwrap_or(0.0) - before.sum(name, labels).unwrap_or(0.0)
        };
        assert_eq!(delta("parley_sessions_created_total", &[]), 1.0);
        assert_eq!(delta("parley_turns_total", &[("state", "completed")]), 2.0);
        assert_eq!(
            delta(
                "parley_turn_duration_seconds_count",
                &[("state", "canceled")]
            ),
            1.0
        );
        assert_eq!(
            delta("parley_stream_cancellations_total", &[("stage", "running")]),
            1.0
        );
        assert_eq!(
            delta(
                "parley_function_calls_total",
                &[("function", "getCurrentTime"), ("state", "success")]
            ),
            1.0
        );
        assert_eq!(
            delta("parley_skill_hits_total", &[("skill", "MathSkill")]),
            1.0
        );
        assert_eq!(
            delta(
                "parley_hook_runs_total",
                &[
                    ("module", "pii_redactor"),
                    ("hook", "chat:before_ai"),
                    ("outcome", "modify")
                ]
            ),
            1.0
        );
        // Three model calls (the call, the answer after it, the cancelled stream), all
        // to the mock provider; the cancelled one says so.
        assert_eq!(
            delta("parley_provider_calls_total", &[("provider", "mock")]),
            3.0,
            "{}",
            after.text
        );
        assert_eq!(
            delta(
                "parley_provider_calls_total",
                &[("provider", "mock"), ("outcome", "cancelled")]
            ),
            1.0
        );
        assert!(delta("parley_llm_tokens_total", &[("kind", "output")]) > 0.0);
        assert_eq!(
            after.sum(
                "parley_provider_breaker_state",
                &[("provider", "mock"), ("state", "closed")]
            ),
            Some(1.0)
        );
        assert_eq!(after.sum("parley_prompts", &[]), Some(0.0));
        assert_eq!(after.sum("parley_queue_depth", &[]), Some(0.0));
        assert!(
            delta(
                "parley_http_requests_total",
                &[
                    ("route", "/v1/sessions/{id}/messages"),
                    ("method", "POST"),
                    ("status", "200")
                ]
            ) >= 3.0
        );
        // No label carries an id.
        for sample in &after.samples {
            for value in sample.labels.values() {
                assert!(
                    uuid::Uuid::parse_str(value).is_err(),
                    "an id as a label value: {sample:?}"
                );
            }
        }
        promtool_accepts(&after.text);
    }
);

#[tokio::test]
async fn a_worker_serves_its_own_metrics() {
    run_test(Backend::Postgres, |_| async move {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "");
        let path = config_path(&config);
        let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &path)]).await;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let listen = format!("127.0.0.1:{port}");
        // Only the worker with the listener takes jobs.
        let others = cluster.worker_pids();
        cluster
            .start_worker_with(&["--metrics-listen", &listen])
            .await;
        for pid in others {
            cluster.kill_worker(pid).await;
        }
        let student = api::student_with_tool(&cluster, "worker-metrics@example.com").await;
        let client = cluster.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await.id.to_string();
        let http = parley_tests::http_client().build().expect("an HTTP client");
        let get = |path: &str| http.get(format!("http://{listen}{path}")).send();
        assert_eq!(
            get("/healthz").await.expect("healthz").status().as_u16(),
            200
        );
        let events = until_terminal(&cluster, &student.token, &session, "hello").await;
        assert_eq!(events.last().map(|e| e.event.as_str()), Some("complete"));
        let response = get("/metrics").await.expect("metrics");
        assert_eq!(response.status().as_u16(), 200);
        let worker = Scrape::parse(&response.text().await.expect("a body"));
        assert_eq!(
            worker.sum("parley_turns_total", &[("state", "completed")]),
            Some(1.0),
            "{}",
            worker.text
        );
        assert!(worker.sum("parley_turn_duration_seconds_count", &[]) >= Some(1.0));
        assert!(
            worker.sum("parley_provider_calls_total", &[("outcome", "ok")]) >= Some(1.0),
            "{}",
            worker.text
        );
        assert_eq!(worker.sum("parley_queue_depth", &[]), Some(0.0));
        // The api's scrape counts what the api did; the turns are the workers'.
        let api = scrape(&cluster).await;
        assert!(api.sum("parley_sessions_created_total", &[]) >= Some(1.0));
        assert_eq!(
            api.sum("parley_turns_total", &[]),
            None,
            "the api process runs no turn"
        );
        // Both processes say which build they are and what they use of the machine.
        for process in [&worker, &api] {
            assert_eq!(
                process.sum(
                    "parley_build_info",
                    &[("version", env!("CARGO_PKG_VERSION"))]
                ),
                Some(1.0),
                "{}",
                process.text
            );
            for series in ["process_resident_memory_bytes", "process_open_fds"] {
                assert!(
                    process.sum(series, &[]) > Some(0.0),
                    "{series}: {}",
                    process.text
                );
            }
            assert!(process.sum("process_cpu_seconds_total", &[]).is_some());
        }
        promtool_accepts(&worker.text);
    })
    .await;
}

/// The spans of `trace`, and the one named `name` of `service` among them.
fn span<'a>(spans: &'a [ReceivedSpan], service: &str, name: &str) -> Option<&'a ReceivedSpan> {
    spans
        .iter()
        .find(|s| s.service == service && s.name == name)
}

/// Whether `child` descends from `ancestor` within `spans`.
fn descends(spans: &[ReceivedSpan], child: &ReceivedSpan, ancestor: &ReceivedSpan) -> bool {
    let mut at = child;
    for _ in 0..64 {
        if at.parent_span_id == ancestor.span_id {
            return true;
        }
        match spans.iter().find(|s| s.span_id == at.parent_span_id) {
            Some(parent) => at = parent,
            None => return false,
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_turn_is_one_trace_from_the_api_through_the_queue_to_the_worker() {
    run_test(Backend::Postgres, |_| async move {
        let receiver = OtlpReceiver::start().await;
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "");
        let path = config_path(&config);
        let endpoint = receiver.endpoint();
        let cluster = Cluster::spawn(&[
            ("PARLEY_CONFIG", &path),
            ("PARLEY_TELEMETRY__OTLP_ENDPOINT", &endpoint),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ])
        .await;
        let (token, _, session) = observed_session(&cluster).await;
        // The caller's trace: every span of the turn joins it.
        let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
        let traceparent = format!("00-{trace_id}-00f067aa0ba902b7-01");
        let mut feed = cluster
            .stream_message_with(
                &token,
                &session,
                "[[mock tool_call='getCurrentTime:{}']] what time is it?",
                &[("traceparent", &traceparent)],
            )
            .await;
        let events = feed.until_terminal(WAIT).await;
        assert_eq!(events.last().map(|e| e.event.as_str()), Some("complete"));

        let of_trace = |spans: &[ReceivedSpan]| -> Vec<ReceivedSpan> {
            spans
                .iter()
                .filter(|s| s.trace_id == trace_id)
                .cloned()
                .collect()
        };
        let spans = receiver
            .wait_for(WAIT, |spans| {
                let spans = of_trace(spans);
                spans.iter().filter(|s| s.name == "llm_call").count() >= 2
                    && span(&spans, "parley-worker", "generation").is_some()
                    && span(&spans, "parley-worker", "job").is_some()
                    && span(&spans, "parley-api", "request").is_some()
            })
            .await
            .map(|spans| of_trace(&spans))
            .unwrap_or_else(|| panic!("the turn's spans did not arrive: {:#?}", receiver.spans()));
        let request = span(&spans, "parley-api", "request").expect("the api's request span");
        assert_eq!(
            request.parent_span_id, "00f067aa0ba902b7",
            "the caller's span is the parent"
        );
        assert_eq!(request.attribute("method"), Some("POST"));
        let turn = span(&spans, "parley-worker", "turn").expect("the worker's turn span");
        assert!(
            descends(&spans, turn, request),
            "the worker's turn continues the request through the queue: {spans:#?}"
        );
        // The apalis worker's job span (its trace layer) holds the turn.
        let job = span(&spans, "parley-worker", "job").expect("the queue's job span");
        assert_eq!(turn.parent_span_id, job.span_id, "{spans:#?}");
        assert!(job.attribute("prompt_id").is_some(), "{job:?}");
        let generate = span(&spans, "parley-worker", "generation").expect("the generation stage");
        assert!(
            descends(&spans, generate, turn),
            "the generation stage runs within the turn: {spans:#?}"
        );
        let calls: Vec<&ReceivedSpan> = spans.iter().filter(|s| s.name == "llm_call").collect();
        assert_eq!(
            calls.len(),
            2,
            "the call and the answer after it: {spans:#?}"
        );
        for call in &calls {
            assert!(descends(&spans, call, generate), "{call:?}");
            assert_eq!(call.attribute("provider"), Some("mock"));
        }
        let function = span(&spans, "parley-worker", "function_call").expect("function_call");
        assert!(descends(&spans, function, generate));
        assert_eq!(function.attribute("function"), Some("getCurrentTime"));
        // No secret or message text rides on a span.
        for s in &spans {
            for (key, value) in &s.attributes {
                assert!(
                    !value.contains(&token) && !value.contains("what time is it"),
                    "{key}={value} on {s:?}"
                );
            }
        }
    })
    .await;
}
