//! The skill router end to end (DESIGN §5.3): timer and math messages are answered by
//! the skills through real turns — streamed as ordinary events, finished with
//! `vendor: "skill"`, no request to the model (the mock LLM's log stays empty) — the
//! decision is on `GET /v1/prompts/{id}`, timers are each user's own, and a tool can
//! turn skills off. Each test runs on PostgreSQL and on SQLite.

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{
    FinishedTurn, MessageRole, Prompt, SkillName, ToolConstraints, ToolDefinition,
};
use parley_tests::turns::{assert_gap_free, config_path, mock_provider_config, text_of};
use parley_tests::{ApiResult, Backend, TestApp, both_backends};
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

/// How long a test waits for the next event of a feed.
const WAIT: Duration = Duration::from_secs(20);
const HELP: &str = "I couldn't parse that as math. Try like: 3*3=9, 2^3, sqrt(16).";

/// A server whose model is the mock, a group with a tool (skills on, or off), and its
/// students.
struct Skills {
    app: TestApp,
    mock: MockLlm,
    tool_id: Uuid,
    group_id: Uuid,
    _config: tempfile::NamedTempFile,
}

/// One student's session.
struct Student {
    token: String,
    client: Client,
    session_id: Uuid,
}

async fn skills(backend: Backend, skills: Option<bool>) -> Skills {
    let mock = MockLlm::start(MockConfig::default()).await;
    let config = mock_provider_config(&mock.base_url(), "");
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    let admin = app.admin_client();
    let group = api::group(&admin, "Kitchen", None, serde_json::json!({})).await;
    let definition = ToolDefinition {
        skills,
        ..api::definition("Help with homework.")
    };
    let tool = api::tool_with(&admin, group.id, "Tutor", definition).await;
    Skills {
        app,
        mock,
        tool_id: tool.id,
        group_id: group.id,
        _config: config,
    }
}

impl Skills {
    /// A student of the group with a session on the tool.
    async fn student(&self, email: &str) -> Student {
        let (user_id, token) = self.app.create_user(email, "student").await;
        api::add_member(&self.app.admin_client(), self.group_id, uuid(&user_id)).await;
        let client = self.app.client_as(&token);
        let session = api::session(&client, self.tool_id).await;
        Student {
            token,
            client,
            session_id: session.id,
        }
    }
}

impl Student {
    /// Sends a message in JSON mode; the finished turn.
    async fn say(&self, content: &str) -> FinishedTurn {
        self.client
            .send_message()
            .id(self.session_id)
            .body_map(|b| b.content(content))
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    /// Sends a message a skill must answer; checks the answer and returns the prompt.
    async fn skill_says(&self, content: &str, skill: &str, answer: &str) -> Prompt {
        let turn = self.say(content).await;
        assert_eq!(turn.payload.message, answer, "{content}");
        assert_eq!(
            (turn.model.as_str(), turn.vendor.as_str()),
            (skill, "skill")
        );
        assert_eq!(
            (turn.usage.input_tokens, turn.usage.output_tokens),
            (0, 0),
            "no model call, no usage"
        );
        self.prompt(turn.prompt_id).await
    }

    async fn prompt(&self, id: Uuid) -> Prompt {
        self.client
            .get_prompt()
            .id(id)
            .send()
            .await
            .assert_status(200)
            .into_inner()
    }
}

/// Checks the decision a prompt carries.
fn assert_route(prompt: &Prompt, skill: Option<&str>, intent: &str) {
    let route = prompt
        .route
        .as_ref()
        .unwrap_or_else(|| panic!("a routed prompt: {prompt:?}"));
    assert_eq!(route.skill_won.as_deref(), skill, "{route:?}");
    assert_eq!(route.intent, intent, "{route:?}");
    assert_eq!(route.threshold, 0.6);
    if skill.is_some() {
        assert!(route.selection_score >= 0.6, "{route:?}");
        assert_eq!(prompt.vendor.as_deref(), Some("skill"));
        assert_eq!(prompt.model.as_deref(), skill);
    } else {
        assert!(route.selection_score < 0.6, "{route:?}");
    }
}

both_backends!(
    each_timer_pattern_is_answered_by_the_skill,
    |backend: Backend| async move {
        let s = skills(backend, None).await;
        let me = s.student("cook@example.com").await;
        let timer = |content, answer| me.skill_says(content, "TimerSkill", answer);
        // Pattern 1 (unnamed: the default name), pattern 1 named, pattern 2, pattern 3.
        let p = timer(
            "set timer for 5 minutes",
            "Timer 'timer' set for 5 minutes.",
        )
        .await;
        assert_route(&p, Some("TimerSkill"), "timer_set");
        let confidence = p.route.as_ref().unwrap().confidence;
        assert!((confidence - (2.0 / 3.0 + 0.1)).abs() < 1e-9, "{p:?}");
        timer(
            "start soup timer for 2 hours",
            "Timer 'soup' set for 2 hours.",
        )
        .await;
        timer(
            "Please create a timer for 10 minutes named pasta",
            "Timer 'pasta' set for 10 minutes.",
        )
        .await;
        timer(
            "set a timer named tea for 3 mins",
            "Timer 'tea' set for 3 mins.",
        )
        .await;
        // Pattern 4: pause, resume, cancel (and stop).
        let p = timer("pause pasta timer", "pasta timer paused.").await;
        assert_route(&p, Some("TimerSkill"), "timer_pause");
        timer("pause pasta timer", "pasta timer is already paused.").await;
        // Pattern 5, on a paused timer: its time stands still.
        let left = me.say("how long left on pasta timer").await.payload.message;
        assert!(
            left.ends_with(" remaining on pasta timer (paused).")
                && (left.starts_with("10 minutes") || left.starts_with("9 minutes")),
            "{left}"
        );
        let p = timer("resume pasta timer", "pasta timer resumed.").await;
        assert_route(&p, Some("TimerSkill"), "timer_resume");
        let p = timer("cancel pasta timer", "pasta timer cancelled.").await;
        assert_route(&p, Some("TimerSkill"), "timer_cancel");
        let p = timer("how long left on pasta timer", "pasta timer is not active.").await;
        assert_route(&p, Some("TimerSkill"), "timer_remaining");
        timer("pause pasta timer", "No pasta timer is running.").await;
        // The default timer, unnamed, with courtesy around the command.
        let left = me.say("how much left on the timer?").await.payload.message;
        assert!(
            left.ends_with(" remaining on timer.") && left.contains("minute"),
            "{left}"
        );
        timer("stop the timer now", "Timer cancelled.").await;
        timer("cancel soup timer", "soup timer cancelled.").await;
        timer("cancel tea timer", "tea timer cancelled.").await;

        assert!(s.mock.requests().is_empty(), "no model was asked");
        // The turns are ordinary messages of the session.
        let messages = parley_tests::typed::messages(&me.client, me.session_id).await;
        assert_eq!(messages.len(), 2 * 15, "{messages:?}");
        assert_eq!(messages[0].role, MessageRole::User);
        assert_eq!(messages[0].content, "set timer for 5 minutes");
        assert_eq!(messages[1].role, MessageRole::Assistant);
        assert_eq!(messages[1].content, "Timer 'timer' set for 5 minutes.");
    }
);

both_backends!(
    the_threshold_edge_decides_between_skill_and_model,
    |backend: Backend| async move {
        let s = skills(backend, None).await;
        let me = s.student("edge@example.com").await;
        // The command covers exactly 60 % of the message: selection 1.0 / (1 / 0.6).
        let at = "start pasta timer for 10 minutes abcdefghijklmnopqr";
        let p = me
            .skill_says(at, "TimerSkill", "Timer 'pasta' set for 10 minutes.")
            .await;
        assert_route(&p, Some("TimerSkill"), "timer_set");
        assert!((p.route.as_ref().unwrap().selection_score - 0.6).abs() < 1e-9);
        assert!(s.mock.requests().is_empty());
        // One more character and the model answers; the decision is still recorded.
        let below = format!("{at}s");
        let turn = me.say(&below).await;
        assert_eq!(turn.payload.message, format!("Echo: {below}"));
        assert_eq!(turn.vendor, "mock");
        let p = me.prompt(turn.prompt_id).await;
        assert_route(&p, None, "general");
        assert_eq!(p.model.as_deref(), Some("mock-model"));
        assert_eq!(s.mock.requests().len(), 1);
        // Prose that merely contains numbers goes to the model too.
        let prose = "I exercise 3-4 times a week since 2026-01-05, is that enough?";
        let turn = me.say(prose).await;
        assert_eq!(turn.vendor, "mock");
        assert_route(&me.prompt(turn.prompt_id).await, None, "general");
    }
);

both_backends!(timers_are_each_users_own, |backend: Backend| async move {
    let s = skills(backend, None).await;
    let alice = s.student("alice@example.com").await;
    let bob = s.student("bob@example.com").await;
    for student in [&alice, &bob] {
        student
            .skill_says(
                "set tea timer for 5 minutes",
                "TimerSkill",
                "Timer 'tea' set for 5 minutes.",
            )
            .await;
    }
    alice
        .skill_says("pause tea timer", "TimerSkill", "tea timer paused.")
        .await;
    let alices = alice
        .say("how long left on tea timer")
        .await
        .payload
        .message;
    let bobs = bob.say("how long left on tea timer").await.payload.message;
    assert!(
        alices.ends_with("remaining on tea timer (paused)."),
        "{alices}"
    );
    assert!(bobs.ends_with("remaining on tea timer."), "{bobs}");
    alice
        .skill_says("cancel tea timer", "TimerSkill", "tea timer cancelled.")
        .await;
    alice
        .skill_says(
            "how long left on tea timer",
            "TimerSkill",
            "tea timer is not active.",
        )
        .await;
    // Bob's timer of the same name runs on, unpaused.
    let bobs = bob.say("how long left on tea timer").await.payload.message;
    assert!(bobs.ends_with("remaining on tea timer."), "{bobs}");
    bob.skill_says("resume tea timer", "TimerSkill", "tea timer is not paused.")
        .await;
    assert!(s.mock.requests().is_empty());
});

both_backends!(
    math_is_answered_by_the_skill,
    |backend: Backend| async move {
        let s = skills(backend, None).await;
        let me = s.student("sums@example.com").await;
        let cases = [
            ("What is 2^3?", "8 — 2^3"),
            ("3*3=9", "True — because 3*3 = 9"),
            ("3*3=10", "False — because 3*3 = 9"),
            ("sqrt(16)", "4 — sqrt(16)"),
            ("(2 + 3) * 4", "20 — (2 + 3) * 4"),
            ("25% of 100", "25"),
            ("round 3.14159 to 2 decimals", "3.14"),
            ("10 / 0", "Cannot divide by zero"),
            // A parse failure is answered with the help text, never by the model.
            ("sqrt(16", HELP),
            ("what is 3 + * 4?", HELP),
        ];
        for (content, answer) in cases {
            let p = me.skill_says(content, "MathSkill", answer).await;
            assert_route(&p, Some("MathSkill"), "math");
        }
        assert!(s.mock.requests().is_empty(), "no model was asked");
    }
);

both_backends!(
    a_skill_answer_streams_as_ordinary_events,
    |backend: Backend| async move {
        let s = skills(backend, None).await;
        let me = s.student("stream@example.com").await;
        let mut feed = s
            .app
            .stream_message(&me.token, &me.session_id.to_string(), "what is 6 x 7?")
            .await;
        assert_eq!(feed.status, 200);
        let events = feed.until_terminal(WAIT).await;
        assert_gap_free(&events);
        let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "prompt_state",
                "block_start",
                "text_delta",
                "block_stop",
                "prompt_state",
                "complete"
            ],
            "{events:?}"
        );
        assert_eq!(events[1].data["block_type"], "text");
        assert_eq!(text_of(&events), "42 — 6 x 7");
        let complete = &events.last().unwrap().data;
        assert_eq!(complete["vendor"], "skill");
        assert_eq!(complete["model"], "MathSkill");
        assert_eq!(complete["payload"]["message"], "42 — 6 x 7");
        assert_eq!(complete["usage"]["output_tokens"], 0);
        assert!(s.mock.requests().is_empty());
    }
);

both_backends!(a_tool_can_turn_skills_off, |backend: Backend| async move {
    let s = skills(backend, Some(false)).await;
    let me = s.student("nosk@example.com").await;
    for content in ["3 + 4", "set timer for 5 minutes"] {
        let turn = me.say(content).await;
        assert_eq!(turn.payload.message, format!("Echo: {content}"));
        assert_eq!(
            (turn.model.as_str(), turn.vendor.as_str()),
            ("mock-model", "mock")
        );
        let prompt = me.prompt(turn.prompt_id).await;
        assert!(prompt.route.is_none(), "not routed: {prompt:?}");
    }
    assert_eq!(s.mock.requests().len(), 2);
});

both_backends!(the_demo_tutor_leaves_sums_to_the_model, |app| async move {
    // The demo tutor gives no direct answers: MathSkill would hand out the result, so
    // the model answers (told the constraint), as a tutor should.
    let admin = app.admin_client();
    let tools = admin.list_tools().send().await.assert_status(200);
    let demo = tools.items.iter().find(|t| t.name == "Demo tutor").cloned();
    let demo = demo.unwrap_or_else(|| panic!("a demo tool on a fresh deployment: {tools:?}"));
    let session = api::session(&admin, demo.id).await;
    let turn = admin
        .send_message()
        .id(session.id)
        .body_map(|b| b.content("What is 15% of 80?"))
        .send()
        .await
        .assert_status(201);
    assert_ne!(turn.vendor, "skill", "{turn:?}");
    assert_ne!(turn.payload.message, "12 — 15% of 80");
    let prompt = admin
        .get_prompt()
        .id(turn.prompt_id)
        .send()
        .await
        .assert_status(200);
    let route = prompt.route.clone().expect("routed");
    assert_eq!(route.skill_won, None, "{route:?}");
});

both_backends!(
    a_tool_lists_its_skills_and_its_constraints_rule_some_out,
    |backend: Backend| async move {
        let s = skills(backend, None).await;
        let admin = s.app.admin_client();
        // Only timers; and a tutor that gives no direct answers lists math in vain.
        let timers = ToolDefinition {
            enabled_skills: Some(vec![SkillName::Timer]),
            ..api::definition("Kitchen timers.")
        };
        let tutor = ToolDefinition {
            enabled_skills: Some(vec![SkillName::Math, SkillName::Timer]),
            constraints: Some(ToolConstraints {
                no_direct_answers: Some(true),
                topics: None,
            }),
            ..api::definition("Guide, never tell.")
        };
        for definition in [timers, tutor] {
            let tool = api::tool_with(&admin, s.group_id, "Listed", definition).await;
            let (user_id, token) = s
                .app
                .create_user(&format!("{}@example.com", tool.id), "student")
                .await;
            api::add_member(&admin, s.group_id, uuid(&user_id)).await;
            let client = s.app.client_as(&token);
            let session = api::session(&client, tool.id).await;
            let me = Student {
                token,
                client,
                session_id: session.id,
            };
            let sum = me.say("3 + 4").await;
            assert_eq!(sum.payload.message, "Echo: 3 + 4", "the model answers");
            let timer = me.say("set timer for 5 minutes").await;
            assert_eq!(
                (timer.model.as_str(), timer.vendor.as_str()),
                ("TimerSkill", "skill")
            );
        }
        // A name that is no skill is refused, naming it.
        let refused = s
            .app
            .patch_json(
                &format!("/v1/admin/tools/{}", s.tool_id),
                s.app.admin(),
                &serde_json::json!({"definition": {"behavior": "x", "enabled_skills": ["weather"]}}),
            )
            .await;
        assert_eq!(refused.assert_problem(422), "validation_failed");
        assert!(refused.body.to_string().contains("weather"), "{refused}");
    }
);
