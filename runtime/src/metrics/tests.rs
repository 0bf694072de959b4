use parley_protocol::error::ErrorCode;

use super::*;

/// The value of the sample `series` (name with labels, as rendered) in `text`.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn renders_recorded_samples_with_conventional_names() {
    let m = Metrics::new();
    m.sessions_created.inc();
    m.turn_ended("completed", None, 1.5);
    m.turn_ended("failed", Some(ErrorCode::UpstreamError), 0.2);
    m.llm_call(LlmCall {
        provider: "openai",
        model: "gpt",
        outcome: "ok",
        tokens: parley_protocol::events::Usage {
            cached_input_tokens: 8,
            reasoning_tokens: 2,
            ..parley_protocol::events::Usage::plain(12, 3)
        },
        ttft_seconds: Some(0.3),
    });
    m.hook_ran("pii", "chat:before_ai", "modify", 0.004);
    m.skill_routed("math", 0.9, true);
    m.function_called("getCurrentTime", "success");
    m.cancelled("running");
    m.feedback_given("Tutor", Some("gpt"), "down");
    m.feedback_given("Tutor", None, "up");
    let text = m.render();
    assert_eq!(sample(&text, "parley_sessions_created_total"), Some(1.0));
    assert_eq!(
        sample(
            &text,
            "parley_turns_total{state=\"failed\",code=\"upstream_error\"}"
        ),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            "parley_turn_duration_seconds_bucket{le=\"2.5\",state=\"completed\"}"
        )
        .or_else(|| sample(
            &text,
            "parley_turn_duration_seconds_bucket{state=\"completed\",le=\"2.5\"}"
        )),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            "parley_llm_tokens_total{model=\"gpt\",kind=\"input\"}"
        ),
        Some(12.0)
    );
    for (kind, n) in [
        ("cached_input", 8.0),
        ("cache_write", 0.0),
        ("reasoning", 2.0),
    ] {
        assert_eq!(
            sample(
                &text,
                &format!("parley_llm_tokens_total{{model=\"gpt\",kind=\"{kind}\"}}")
            ),
            Some(n),
            "{kind}"
        );
    }
    assert_eq!(
        sample(
            &text,
            "parley_hook_runs_total{module=\"pii\",hook=\"chat:before_ai\",outcome=\"modify\"}"
        ),
        Some(1.0)
    );
    assert_eq!(
        sample(&text, "parley_skill_hits_total{skill=\"math\"}"),
        Some(1.0)
    );
    assert!(text.contains("# TYPE parley_llm_time_to_first_token_seconds histogram"));
    assert_eq!(
        sample(
            &text,
            "parley_feedback_total{tool=\"Tutor\",model=\"gpt\",rating=\"down\"}"
        ),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            "parley_feedback_total{tool=\"Tutor\",model=\"none\",rating=\"up\"}"
        ),
        Some(1.0)
    );
}

/// A registry with a sample in every family.
fn every_family_recorded() -> Metrics {
    let m = Metrics::new();
    m.sessions_created.inc();
    m.turn_ended("failed", Some(ErrorCode::UpstreamError), 1.0);
    m.llm_call(LlmCall {
        provider: "p",
        model: "m",
        outcome: "ok",
        tokens: parley_protocol::events::Usage::plain(1, 1),
        ttft_seconds: Some(0.1),
    });
    m.set_breakers([("p", "open")]);
    m.hook_ran("pii", "chat:before_ai", "block", 0.01);
    m.cancelled("queued");
    m.skill_routed("MathSkill", 1.0, true);
    m.function_called("f", "success");
    m.set_prompts(&["running"], &[("running", 1)], 1.0);
    m.queue_depth.set(1);
    m.rate_limited
        .get_or_create(&LimitLabels {
            limit: "turns_per_minute",
        })
        .inc();
    m.http_request("GET", "/healthz", 200, 0.001);
    m.feedback_given("t", Some("m"), "up");
    m
}

/// The `parley_…` names in `text`.
fn names_in(text: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("parley_") {
        let name: String = rest[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        rest = &rest[at + name.len()..];
        names.insert(name);
    }
    names
}

/// The dashboard, the alert rules and their tests (deploy/) query metrics by name:
/// each name must be a series Parley renders (a family's name, or a histogram's
/// `_bucket`, `_count` or `_sum`).
#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "a test reads its servers (PARLEY_TEST_*) and files from the environment"
)]
fn the_dashboard_and_the_alerts_name_metrics_that_exist() {
    let rendered = every_family_recorded().render();
    let series: std::collections::BTreeSet<&str> = rendered
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .collect();
    let deploy = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy");
    for file in [
        "grafana/dashboards/parley.json",
        "prometheus/alerts.yml",
        "prometheus/alerts.test.yml",
    ] {
        let text = std::fs::read_to_string(deploy.join(file))
            .unwrap_or_else(|err| panic!("{file}: {err}"));
        let names = names_in(&text);
        assert!(!names.is_empty(), "{file} names no metric");
        for name in names {
            assert!(
                series.contains(name.as_str()),
                "deploy/{file} names {name}, which Parley does not export; it does: {series:?}"
            );
        }
    }
}

#[test]
fn gauges_read_at_scrape_time_replace_the_last_reading() {
    let m = Metrics::new();
    let states = ["queued", "running"];
    m.set_prompts(&states, &[("running", 2)], 130.4);
    m.set_breakers([("openai", "open")]);
    let text = m.render();
    assert_eq!(
        sample(&text, "parley_prompts{state=\"running\"}"),
        Some(2.0)
    );
    assert_eq!(sample(&text, "parley_prompts{state=\"queued\"}"), Some(0.0));
    assert_eq!(
        sample(&text, "parley_oldest_active_prompt_age_seconds"),
        Some(130.0)
    );
    m.set_prompts(&states, &[], 0.0);
    m.set_breakers([("openai", "closed")]);
    let text = m.render();
    assert_eq!(
        sample(&text, "parley_prompts{state=\"running\"}"),
        Some(0.0)
    );
    assert_eq!(
        sample(
            &text,
            "parley_provider_breaker_state{provider=\"openai\",state=\"open\"}"
        ),
        Some(0.0)
    );
    assert_eq!(
        sample(
            &text,
            "parley_provider_breaker_state{provider=\"openai\",state=\"closed\"}"
        ),
        Some(1.0)
    );
}

#[test]
fn every_process_says_which_build_it_is_and_what_it_uses() {
    let text = Metrics::new().render();
    let build = format!(
        "parley_build_info{{version=\"{}\",revision=\"{}\"}}",
        process::VERSION,
        process::REVISION
    );
    assert_eq!(sample(&text, &build), Some(1.0), "{text}");
    for series in [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_virtual_memory_bytes",
        "process_open_fds",
        "process_threads",
        "process_start_time_seconds",
    ] {
        let value = sample(&text, series).unwrap_or_else(|| panic!("no {series} in\n{text}"));
        assert!(
            value > 0.0 || series == "process_cpu_seconds_total",
            "{series} = {value}"
        );
    }
    // The standard names: not under Parley's prefix.
    assert!(!text.contains("parley_process_"), "{text}");
}
