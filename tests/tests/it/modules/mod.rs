//! Modules end to end (DESIGN §8): the hooks of a tool's modules around a real turn with
//! the mock LLM as the model — priority order, the PII redactor before the upstream
//! request, the block flow, slow and failing modules, fail-closed, after_ai
//! replacements with and without hold-back, webhook signatures, session hooks, and tool
//! definitions checked against the deployment's modules. [`outbound`]: where webhooks
//! may go (redirects, `outbound.deny_private_addresses`).

mod outbound;

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{ToolDefinition, ToolModule};
use parley_tests::turns::{assert_gap_free, config_path, mock_provider_config, text_of};
use parley_tests::webhook::{Answer, WebhookReceiver};
use parley_tests::{ApiResult, Backend, SseEvent, TestApp, both_backends};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

const WAIT: Duration = Duration::from_secs(20);
const SECRET: &str = "a-webhook-secret-of-some-length";

/// A server with the mock as its model, a webhook receiver, and a student's session on a
/// tool with the given modules.
struct Guarded {
    app: TestApp,
    mock: MockLlm,
    hook: WebhookReceiver,
    token: String,
    client: Client,
    session_id: Uuid,
    _config: tempfile::NamedTempFile,
}

/// `[[modules]]` entries: `ops` (a webhook at before_ai, priority 50, 300 ms timeout),
/// `guard` (a fail-closed webhook at before_ai, priority 3), `pii_out` (a PII redactor
/// at after_ai only), `lifecycle` (a webhook at the session hooks).
fn modules_config(url: &str) -> String {
    format!(
        r#"
[[modules]]
name = "ops"
kind = "webhook"
url = "{url}"
secret = "{SECRET}"
timeout_ms = 300

[[modules]]
name = "guard"
kind = "webhook"
url = "{url}"
secret = "{SECRET}"
priority = 3
fail_closed = true
timeout_ms = 300

[[modules]]
name = "pii_out"
kind = "pii_redactor"
hooks = ["chat:after_ai"]

[[modules]]
name = "lifecycle"
kind = "webhook"
url = "{url}"
secret = "{SECRET}"
hooks = ["session:start", "session:end"]
"#
    )
}

fn module(name: &str, config: Option<Value>) -> ToolModule {
    ToolModule {
        name: name.into(),
        config: config.map(|c| c.as_object().cloned().expect("an object")),
    }
}

async fn guarded(
    backend: Backend,
    modules: Vec<ToolModule>,
    hold_back: bool,
    answer: Answer,
) -> Guarded {
    let mock = MockLlm::start(MockConfig::default()).await;
    let hook = WebhookReceiver::start(SECRET, answer).await;
    let config = mock_provider_config(&mock.base_url(), &modules_config(&hook.url()));
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    let admin = app.admin_client();
    let (user_id, token) = app.create_user("guarded@example.com", "student").await;
    let group = api::group(&admin, "Guarded", None, json!({})).await;
    api::add_member(&admin, group.id, uuid(&user_id)).await;
    let definition = ToolDefinition {
        modules: Some(modules),
        hold_back: hold_back.then_some(true),
        ..api::definition("Help with homework.")
    };
    let tool = api::tool_with(&admin, group.id, "Guarded", definition).await;
    let client = app.client_as(&token);
    let session = api::session(&client, tool.id).await;
    Guarded {
        session_id: session.id,
        client,
        token,
        app,
        mock,
        hook,
        _config: config,
    }
}

impl Guarded {
    async fn turn(&self, content: &str) -> Vec<SseEvent> {
        let mut feed = self
            .app
            .stream_message(&self.token, &self.session_id.to_string(), content)
            .await;
        assert_eq!(feed.status, 200);
        let events = feed.until_terminal(WAIT).await;
        assert_gap_free(&events);
        events
    }

    /// `module_events` rows as `module:hook:outcome`, oldest first.
    async fn module_events(&self) -> Vec<String> {
        self.app
            .query_strings(
                "SELECT module || ':' || hook || ':' || outcome FROM module_events ORDER BY id",
            )
            .await
    }

    async fn user_messages(&self) -> Vec<String> {
        self.app
            .query_strings("SELECT content FROM messages WHERE role = 'user' ORDER BY seq")
            .await
    }

    async fn audits(&self) -> Vec<String> {
        self.app
            .query_strings(
                "SELECT redaction_module || '|' || original_content || '|' || CAST(patterns_matched AS TEXT) \
                 FROM message_audit ORDER BY id",
            )
            .await
    }
}

fn completed(events: &[SseEvent]) -> Value {
    let last = events.last().expect("events");
    assert_eq!(last.event, "complete", "{events:?}");
    last.data.clone()
}

fn deltas(events: &[SseEvent]) -> String {
    events
        .iter()
        .filter(|e| e.event == "text_delta")
        .map(|e| e.data["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

both_backends!(
    modules_run_in_priority_order_and_pii_is_redacted_before_the_model_sees_it,
    |backend: Backend| async move {
        let answer = Answer::Json(json!({
            "modifications": {"system_prompt_additions": ["The learner prefers short answers."]}
        }));
        // Listed out of order: the runner orders by priority (safety 5, PII 20, ops 50).
        let g = guarded(
            backend,
            vec![
                module("ops", None),
                module("analytics", None),
                module("pii_redactor", None),
                module("safety_filter", None),
            ],
            false,
            answer,
        )
        .await;
        let events = g
            .turn("Mail jane.doe@example.org, card 4111 1111 1111 1111, please.")
            .await;
        let end = completed(&events);
        assert_eq!(end["blocked"], false);

        // The model got the redacted message and the webhook's guidance.
        let requests = g.mock.requests();
        assert_eq!(requests.len(), 1);
        let sent = requests[0].last_user_message().unwrap().to_owned();
        assert_eq!(sent, "Mail [email], card [card], please.");
        let system = requests[0].system_prompt().unwrap_or_default();
        assert!(
            system.contains("=== Additional Guidance ===\nThe learner prefers short answers."),
            "{system}"
        );
        // The webhook (priority 50) saw the message after the redactor (20) ran, signed.
        let got = g.hook.received();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].hook, "chat:before_ai");
        assert!(got[0].signature_valid);
        let ctx = &got[0].context;
        assert_eq!(
            ctx["conversation"]["current_message"]["content"],
            sent.as_str()
        );
        assert_eq!(ctx["user"]["email"], "guarded@example.com");
        assert_eq!(ctx["tool"]["name"], "Guarded");
        assert_eq!(ctx["session"]["id"], g.session_id.to_string());
        assert_eq!(ctx["request"]["hook"], "chat:before_ai");

        // Stored: the redacted message; the audit holds no value, only which patterns.
        assert_eq!(g.user_messages().await, [sent.as_str()]);
        let audits = g.audits().await;
        assert_eq!(audits.len(), 1, "{audits:?}");
        assert!(audits[0].starts_with("pii_redactor|Mail [email], card [card], please.|"));
        assert!(audits[0].contains("email") && audits[0].contains("card"));
        assert!(!audits.concat().contains("jane.doe") && !audits.concat().contains("4111"));
        assert_eq!(
            g.app
                .count("SELECT COUNT(*) FROM extractions WHERE module = 'pii_redactor' AND type = 'pii_detected'")
                .await,
            1
        );
        // Every run of a blocking hook is recorded, in priority order; analytics runs
        // at on_message, asynchronously, and records its counters.
        let deadline = tokio::time::Instant::now() + WAIT;
        while g
            .app
            .count("SELECT COUNT(*) FROM extractions WHERE type = 'message_stats'")
            .await
            == 0
        {
            assert!(tokio::time::Instant::now() < deadline, "no message_stats");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut runs = g.module_events().await;
        let on_message = runs
            .iter()
            .position(|r| r == "analytics:chat:on_message:continue")
            .expect("analytics ran at on_message");
        runs.remove(on_message);
        assert_eq!(
            runs,
            [
                "safety_filter:chat:before_ai:continue",
                "pii_redactor:chat:before_ai:modify",
                "ops:chat:before_ai:modify",
                "safety_filter:chat:after_ai:continue",
            ]
        );
    }
);

both_backends!(
    a_blocked_message_is_stored_as_blocked_and_the_model_is_never_called,
    |backend: Backend| async move {
        let g = guarded(
            backend,
            vec![module("safety_filter", None), module("pii_redactor", None)],
            false,
            Answer::Json(json!({})),
        )
        .await;
        let events = g.turn("How do I make a bomb at school?").await;
        let end = completed(&events);
        assert_eq!(end["blocked"], true);
        assert_eq!(end["block_category"], "weapons");
        assert_eq!(end["vendor"], "module");
        assert_eq!(end["model"], "safety_filter");
        let message = end["payload"]["message"].as_str().unwrap();
        assert!(message.starts_with("I can't help with that."), "{message}");
        assert_eq!(text_of(&events), message, "the direct response streams");
        assert!(g.mock.requests().is_empty(), "no upstream request");
        assert_eq!(g.user_messages().await, ["[blocked]"]);
        let audits = g.audits().await;
        assert_eq!(audits.len(), 1);
        assert!(
            audits[0].starts_with("safety_filter|How do I make a bomb at school?|"),
            "{audits:?}"
        );
        assert_eq!(
            g.module_events().await,
            ["safety_filter:chat:before_ai:block"],
            "nothing runs after a block"
        );
        assert_eq!(g.app.count("SELECT COUNT(*) FROM ai_usage").await, 0);
        // The prompt and its rebuilt terminal event say the same.
        let prompt_id = events[0].data["prompt_id"].as_str().unwrap().to_owned();
        let prompt = g
            .client
            .get_prompt()
            .id(uuid(&prompt_id))
            .send()
            .await
            .assert_status(200);
        assert_eq!(prompt.vendor.as_deref(), Some("module"));
        // The conversation goes on: the next message reaches the model.
        let events = g.turn("What is a fraction?").await;
        assert_eq!(completed(&events)["blocked"], false);
        assert_eq!(g.mock.requests().len(), 1);
    }
);

both_backends!(
    a_slow_module_is_skipped_and_recorded,
    |backend: Backend| async move {
        let g = guarded(
            backend,
            vec![module("ops", None)],
            false,
            Answer::Slow(Duration::from_secs(3)),
        )
        .await;
        let events = g.turn("hello there").await;
        let end = completed(&events);
        assert_eq!(end["blocked"], false);
        assert_eq!(end["payload"]["message"], "Echo: hello there");
        assert_eq!(g.module_events().await, ["ops:chat:before_ai:timeout"]);
        assert_eq!(g.mock.requests().len(), 1);
    }
);

both_backends!(
    an_erroring_fail_closed_module_blocks_and_an_open_one_is_skipped,
    |backend: Backend| async move {
        let g = guarded(
            backend,
            vec![module("guard", None), module("ops", None)],
            false,
            Answer::Status(500),
        )
        .await;
        let end = completed(&g.turn("hello").await);
        assert_eq!(end["blocked"], true);
        assert_eq!(end["block_category"], "module_failure");
        assert!(g.mock.requests().is_empty());
        assert_eq!(g.module_events().await, ["guard:chat:before_ai:error"]);

        // An answer that is no HookResult is an error too; a fail-open module's error
        // is skipped.
        g.hook.answer(Answer::Garbage);
        let end = completed(&g.turn("hello again").await);
        assert_eq!(end["blocked"], true);
        let g2 = guarded(backend, vec![module("ops", None)], false, Answer::Garbage).await;
        let end = completed(&g2.turn("hello").await);
        assert_eq!(end["blocked"], false);
        assert_eq!(g2.module_events().await, ["ops:chat:before_ai:error"]);
    }
);

both_backends!(
    an_after_ai_replacement_is_marked_and_hold_back_hides_the_original,
    |backend: Backend| async move {
        let reply = r#"[[mock reply="Write to bob@example.com today."]]"#;
        // Without hold-back the original streams; complete carries the final text.
        let g = guarded(
            backend,
            vec![module("pii_out", None)],
            false,
            Answer::Status(500),
        )
        .await;
        let events = g.turn(reply).await;
        let end = completed(&events);
        assert_eq!(end["replaced"], true);
        assert_eq!(end["payload"]["message"], "Write to [email] today.");
        assert!(deltas(&events).contains("bob@example.com"));
        let stored = g
            .app
            .query_strings("SELECT content FROM messages WHERE role = 'assistant'")
            .await;
        assert_eq!(stored, ["Write to [email] today."]);
        assert_eq!(g.module_events().await, ["pii_out:chat:after_ai:modify"]);

        // With hold-back nobody sees the original: the feed carries the final text only.
        let g = guarded(
            backend,
            vec![module("pii_out", None)],
            true,
            Answer::Status(500),
        )
        .await;
        let events = g.turn(reply).await;
        let end = completed(&events);
        assert!(end.get("replaced").is_none_or(|r| r == false), "{end}");
        assert_eq!(deltas(&events), "Write to [email] today.");
        assert!(
            !events
                .iter()
                .any(|e| e.data.to_string().contains("bob@example.com"))
        );
        // An answer that passes is released whole, after the hook.
        let events = g.turn("[[mock reply=\"Nothing personal here.\"]]").await;
        assert_eq!(deltas(&events), "Nothing personal here.");
        assert!(
            completed(&events)
                .get("replaced")
                .is_none_or(|r| r == false)
        );
    }
);

both_backends!(
    an_after_ai_block_replaces_the_answer,
    |backend: Backend| async move {
        // The category matches the answer only (anchored), never the user's directive.
        let safety = module(
            "safety_filter",
            Some(json!({"categories": [{
                "name": "spoiler",
                "patterns": ["^The answer is 42\\.$"],
                "response": "Try working it out yourself first."
            }]})),
        );
        let g = guarded(backend, vec![safety], true, Answer::Status(500)).await;
        let events = g.turn(r#"[[mock reply="The answer is 42."]]"#).await;
        let end = completed(&events);
        assert_eq!(end["blocked"], true);
        assert_eq!(end["block_category"], "spoiler");
        assert_eq!(
            end["payload"]["message"],
            "Try working it out yourself first."
        );
        assert_eq!(deltas(&events), "Try working it out yourself first.");
        assert_eq!(
            g.mock.requests().len(),
            1,
            "the model answered; the answer was blocked"
        );
        assert_eq!(
            g.module_events().await,
            [
                "safety_filter:chat:before_ai:continue",
                "safety_filter:chat:after_ai:block"
            ]
        );
    }
);

both_backends!(
    session_hooks_fire_on_start_and_end,
    |backend: Backend| async move {
        let g = guarded(
            backend,
            vec![module("lifecycle", None)],
            false,
            Answer::Json(json!({})),
        )
        .await;
        let got = g.hook.wait_for(1, WAIT).await;
        assert_eq!(got[0].hook, "session:start");
        assert!(got[0].signature_valid);
        assert_eq!(got[0].context["session"]["id"], g.session_id.to_string());
        // A turn does not call a module that runs only at the session hooks.
        g.turn("hi").await;
        assert_eq!(g.hook.received().len(), 1);
        g.client
            .complete_session()
            .id(g.session_id)
            .send()
            .await
            .assert_status(200);
        let got = g.hook.wait_for(2, WAIT).await;
        assert_eq!(got[1].hook, "session:end");
        assert_eq!(got[1].context["session"]["end_reason"], "completed_by_user");
        assert_eq!(got[1].context["session"]["state"], "completed");
    }
);

both_backends!(
    tool_definitions_name_known_modules_with_usable_settings,
    |app| async move {
        let admin = app.admin_client();
        let group = api::group(&admin, "Checks", None, json!({})).await;
        let create = |definition: ToolDefinition| {
            admin.admin_create_tool().body_map(move |b| {
                b.group_id(group.id)
                    .name("T")
                    .type_(Some("chat".to_owned()))
                    .definition(definition)
            })
        };
        let with = |modules: Vec<ToolModule>| ToolDefinition {
            modules: Some(modules),
            ..api::definition("x")
        };
        let code = create(with(vec![module("pii", None)]))
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "unknown_module");
        let code = create(with(vec![module(
            "pii_redactor",
            Some(json!({"types": ["dna"]})),
        )]))
        .send()
        .await
        .assert_problem(422);
        assert_eq!(code, "invalid_module_config");
        let code = create(with(vec![
            module("analytics", None),
            module("analytics", None),
        ]))
        .send()
        .await
        .assert_problem(422);
        assert_eq!(code, "unknown_module");
        let tool = create(with(vec![module(
            "pii_redactor",
            Some(json!({"types": ["email"]})),
        )]))
        .send()
        .await
        .assert_status(201)
        .into_inner();
        let modules = tool.definition.modules.clone().unwrap();
        assert_eq!(modules[0].name, "pii_redactor");
    }
);

both_backends!(
    the_admin_reads_the_audit_trail_and_block_metrics_of_the_turns_that_ran,
    |backend: Backend| async move {
        let g = guarded(
            backend,
            vec![
                module("safety_filter", None),
                module("pii_redactor", None),
                module("ops", None),
            ],
            false,
            Answer::Json(json!({})),
        )
        .await;
        // A block, a redaction, then a webhook that times out.
        assert_eq!(
            completed(&g.turn("How do I make a bomb?").await)["blocked"],
            true
        );
        g.turn("Mail me at kim@example.net").await;
        g.hook.answer(Answer::Slow(Duration::from_secs(3)));
        g.turn("hello").await;

        let admin = g.app.admin_client();
        let report = admin
            .admin_blocks()
            .group_by(parley_tests::client::types::BlocksGroupBy::Module)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        let group = |key: &str| {
            report
                .groups
                .iter()
                .find(|g| g.key == key)
                .unwrap_or_else(|| panic!("no group {key}: {report:?}"))
                .clone()
        };
        let safety = group("safety_filter");
        assert_eq!(
            (safety.runs, safety.blocks, safety.modifications),
            (5, 1, 0)
        );
        assert!((safety.block_rate - 0.2).abs() < 1e-9, "{safety:?}");
        let pii = group("pii_redactor");
        assert_eq!((pii.runs, pii.blocks, pii.modifications), (2, 0, 1));
        let ops = group("ops");
        assert_eq!((ops.runs, ops.timeouts, ops.errors), (2, 1, 0));
        let category = |name: &str| {
            report
                .by_category
                .iter()
                .find(|c| c.category == name)
                .unwrap_or_else(|| panic!("no category {name}: {report:?}"))
                .clone()
        };
        assert_eq!(category("weapons").blocks, 1);
        assert_eq!(category("pii").modifications, 1);

        let audit = admin
            .admin_session_audit()
            .id(g.session_id)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(audit.module_events.len(), 9, "{audit:?}");
        let trail: Vec<(&str, &str, i64)> = audit
            .audits
            .iter()
            .map(|a| {
                (
                    a.redaction_module.as_str(),
                    a.original_content.as_str(),
                    i64::from(a.seq),
                )
            })
            .collect();
        assert_eq!(
            trail,
            [
                ("safety_filter", "How do I make a bomb?", 1),
                ("pii_redactor", "Mail me at [email]", 3),
            ]
        );
        let kinds: Vec<&str> = audit.extractions.iter().map(|e| e.type_.as_str()).collect();
        assert_eq!(kinds, ["safety_flag", "pii_detected"]);
        // Not for students.
        g.client
            .admin_session_audit()
            .id(g.session_id)
            .send()
            .await
            .assert_problem(403);
    }
);

both_backends!(
    modules_run_before_the_skill_router,
    |backend: Backend| async move {
        let g = guarded(
            backend,
            vec![module("safety_filter", None)],
            false,
            Answer::Status(500),
        )
        .await;
        // A message a skill would take is blocked first: no timer is set.
        let end = completed(&g.turn("set timer for 5 minutes to kill myself").await);
        assert_eq!(end["blocked"], true);
        assert_eq!(end["vendor"], "module");
        assert_eq!(g.app.count("SELECT COUNT(*) FROM timers").await, 0);
        // One the module passes is the skill's; after_ai does not run (no model answered).
        let end = completed(&g.turn("set timer for 5 minutes").await);
        assert_eq!(end["vendor"], "skill");
        assert_eq!(g.app.count("SELECT COUNT(*) FROM timers").await, 1);
        assert_eq!(
            g.module_events().await,
            [
                "safety_filter:chat:before_ai:block",
                "safety_filter:chat:before_ai:continue"
            ]
        );
        assert!(g.mock.requests().is_empty());
    }
);
