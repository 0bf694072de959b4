//! Session rules (seed 000, DESIGN §3, §7): the configuration cascade organisation →
//! tool → assignment is used (model, limits), `max_messages` and
//! `max_session_duration_s` end a session, idle sessions are completed by the worker's
//! sweep, `session:end` fires once for every way a session ends, and a teacher reads — never writes — the sessions of
//! students in classes they teach.

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::{
    EnrollmentRole, RunAction, SessionState, ToolDefinition, ToolModule,
};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::typed::send_message;
use parley_tests::webhook::{Answer, WebhookReceiver};
use parley_tests::{ApiResult, Backend, TestApp, both_backends};
use serde_json::json;

use crate::fixtures::api::{self, uuid};

const SECRET: &str = "a-webhook-secret-of-some-length";

/// The mock as two models (`mock-model`, the default, and `mock-b`), plus `worker` keys
/// and more config after them.
async fn spawn(
    backend: Backend,
    worker: &str,
    more: &str,
) -> (TestApp, MockLlm, tempfile::NamedTempFile) {
    let mock = MockLlm::start(MockConfig {
        models: vec!["mock-model".into(), "mock-b".into()],
        ..MockConfig::default()
    })
    .await;
    let extra = format!("{worker}\n\n[[models]]\nid = \"mock-b\"\nprovider = \"mock\"\n{more}");
    let config = mock_provider_config(&mock.base_url(), &extra);
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    (app, mock, config)
}

/// A student's client on a fresh group's tool with `definition`.
struct StudentOn {
    client: parley_tests::client::Client,
    tool_id: uuid::Uuid,
}

async fn student_on(app: &TestApp, email: &str, definition: ToolDefinition) -> StudentOn {
    let admin = app.admin_client();
    let group = api::group(&admin, "G", None, json!({})).await;
    let (student_id, token) = app.create_user(email, "student").await;
    api::add_member(&admin, group.id, uuid(&student_id)).await;
    let tool = api::tool_with(&admin, group.id, "Tool", definition).await;
    StudentOn {
        client: app.client_as(&token),
        tool_id: tool.id,
    }
}

/// The session is completed, with `reason`.
async fn assert_ended(client: &parley_tests::client::Client, session_id: uuid::Uuid, reason: &str) {
    let ended = client
        .get_session()
        .id(session_id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(ended.state, SessionState::Completed);
    assert_eq!(ended.end_reason.as_deref(), Some(reason));
}

both_backends!(
    the_cascade_picks_the_model_and_limits_and_max_messages_ends_the_session,
    |backend: Backend| async move {
        let (app, mock, _config) = spawn(backend, "", "").await;
        let admin = app.admin_client();
        let org = api::group(
            &admin,
            "Org",
            None,
            json!({"model": "mock-b", "max_messages": 10}),
        )
        .await;
        let (student_id, token) = app.create_user("cascade@example.com", "student").await;
        api::add_member(&admin, org.id, uuid(&student_id)).await;
        let definition = ToolDefinition {
            max_messages: Some(6),
            ..api::definition("Tutor.")
        };
        let tool = api::tool_with(&admin, org.id, "Tutor", definition).await;
        let me = app.client_as(&token);

        // Organisation → tool: the organisation's model, the tool's limit.
        let plain = api::session(&me, tool.id).await;
        assert_eq!(plain.config.model.as_deref(), Some("mock-b"));
        assert_eq!(plain.config.max_messages, Some(6));
        let turn = send_message(&me, plain.id, "hello")
            .await
            .assert_status(201);
        assert_eq!(turn.model, "mock-b");
        assert_eq!(mock.requests()[0].model, "mock-b");
        // A message that names a model wins over the configuration.
        let turn = me
            .send_message()
            .id(plain.id)
            .body_map(|b| b.content("again").model(Some("mock-model".to_owned())))
            .send()
            .await
            .assert_status(201);
        assert_eq!(turn.model, "mock-model");

        // → assignment: the most specific wins.
        let class = api::class(&admin, org.id, "Class").await;
        api::enroll(&admin, class.id, uuid(&student_id), EnrollmentRole::Student).await;
        let assignment = admin
            .admin_create_assignment()
            .body_map(|b| {
                b.class_id(class.id)
                    .tool_id(tool.id)
                    .title("Quiz")
                    .config(Some(api::overrides(
                        json!({"model": "mock-model", "max_messages": 4}),
                    )))
            })
            .send()
            .await
            .assert_status(201);
        let session = me
            .create_session()
            .body_map(|b| b.tool_id(tool.id).assignment_id(Some(assignment.id)))
            .send()
            .await
            .assert_status(201);
        assert_eq!(session.config.max_messages, Some(4));
        for n in 1..=2 {
            let turn = send_message(&me, session.id, &format!("turn {n}"))
                .await
                .assert_status(201);
            assert_eq!(turn.model, "mock-model");
        }
        // Four messages held: the next turn is refused and the session ends.
        let code = send_message(&me, session.id, "one more")
            .await
            .assert_problem(409);
        assert_eq!(code, "max_messages_reached");
        let ended = me
            .get_session()
            .id(session.id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(ended.state, SessionState::Completed);
        assert_eq!(ended.end_reason.as_deref(), Some("max_messages"));
        assert_eq!(ended.message_count, 4);
        let code = send_message(&me, session.id, "still?")
            .await
            .assert_problem(409);
        assert_eq!(code, "session_completed");
    }
);

both_backends!(
    a_session_past_its_duration_refuses_turns_and_ends,
    |backend: Backend| async move {
        let (app, _mock, _config) = spawn(backend, "", "").await;
        let definition = ToolDefinition {
            max_session_duration_s: Some(1),
            ..api::definition("Tutor.")
        };
        let me = student_on(&app, "duration@example.com", definition).await;
        let session = api::session(&me.client, me.tool_id).await;
        let me = me.client;
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let code = send_message(&me, session.id, "late")
            .await
            .assert_problem(409);
        assert_eq!(code, "max_session_duration_reached");
        assert_ended(&me, session.id, "max_session_duration").await;
    }
);

both_backends!(
    idle_sessions_are_completed_and_fire_session_end,
    |backend: Backend| async move {
        let hook = WebhookReceiver::start(SECRET, Answer::Json(json!({}))).await;
        let (app, _mock, _config) = spawn(
            backend,
            "lease_s = 3\nsession_idle_s = 1",
            &lifecycle_module(&hook),
        )
        .await;
        let definition = ToolDefinition {
            modules: Some(vec![ToolModule {
                name: "lifecycle".into(),
                config: None,
            }]),
            ..api::definition("Tutor.")
        };
        let me = student_on(&app, "idle@example.com", definition).await;
        let session = api::session(&me.client, me.tool_id).await;
        let me = me.client;
        let got = hook.wait_for(1, Duration::from_secs(20)).await;
        assert_eq!(got[0].hook, "session:end");
        assert_eq!(got[0].context["session"]["id"], session.id.to_string());
        assert_eq!(got[0].context["session"]["end_reason"], "idle");
        assert_ended(&me, session.id, "idle").await;
        // The sweep runs every second: later passes leave the completed session alone.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(ends(&hook), [(session.id.to_string(), "idle".to_owned())]);
    }
);

/// A webhook module named `lifecycle` that hears `session:end`.
fn lifecycle_module(hook: &WebhookReceiver) -> String {
    format!(
        "[[modules]]\nname = \"lifecycle\"\nkind = \"webhook\"\nurl = \"{}\"\nsecret = \"{SECRET}\"\nhooks = [\"session:end\"]\n",
        hook.url()
    )
}

/// The sessions the `session:end` calls received were about, with their end reasons.
fn ends(hook: &WebhookReceiver) -> Vec<(String, String)> {
    let mut ends: Vec<(String, String)> = hook
        .received()
        .iter()
        .map(|got| {
            assert_eq!(got.hook, "session:end");
            let session = &got.context["session"];
            let reason = session["end_reason"].as_str().unwrap_or_default();
            (
                session["id"].as_str().unwrap_or_default().to_owned(),
                reason.to_owned(),
            )
        })
        .collect();
    ends.sort();
    ends
}

both_backends!(
    session_end_fires_once_for_every_way_a_session_ends,
    |backend: Backend| async move {
        let hook = WebhookReceiver::start(SECRET, Answer::Json(json!({}))).await;
        let (app, _mock, _config) = spawn(backend, "", &lifecycle_module(&hook)).await;
        let definition = ToolDefinition {
            modules: Some(vec![ToolModule {
                name: "lifecycle".into(),
                config: None,
            }]),
            suggestions: Some(true),
            max_messages: Some(4),
            ..api::definition("Tutor.")
        };
        let me = student_on(&app, "ends@example.com", definition).await;
        let client = &me.client;

        // Its owner completes it; completing it again changes nothing.
        let by_user = api::session(client, me.tool_id).await;
        let complete = || client.complete_session().id(by_user.id).send();
        complete().await.assert_status(200);
        assert_eq!(complete().await.assert_problem(409), "session_completed");

        // The `end_session` action its last answer offered; running it again changes
        // nothing.
        let by_action = api::session(client, me.tool_id).await;
        let reply = "Bye.\nSUGGESTED_ACTIONS: [{\"label\": \"End\", \"action\": \"end_session\", \"handler\": \"server\"}]";
        send_message(
            client,
            by_action.id,
            &format!("[[mock reply='{reply}']] bye"),
        )
        .await
        .assert_status(201);
        let end = || {
            client
                .run_action()
                .id(by_action.id)
                .body(RunAction {
                    action: "end_session".parse().expect("an action the document names"),
                })
                .send()
        };
        end().await.assert_status(200);
        assert_eq!(end().await.assert_problem(409), "session_completed");

        // A turn past `max_messages` (two turns) ends it; later turns find it completed.
        let at_limit = api::session(client, me.tool_id).await;
        for n in 1..=2 {
            send_message(client, at_limit.id, &format!("turn {n}"))
                .await
                .assert_status(201);
        }
        for code in ["max_messages_reached", "session_completed"] {
            let got = send_message(client, at_limit.id, "more")
                .await
                .assert_problem(409);
            assert_eq!(got, code);
        }

        hook.wait_for(3, Duration::from_secs(10)).await;
        // Room for a second call of any of them to arrive.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut expected = vec![
            (by_user.id.to_string(), "completed_by_user".to_owned()),
            (by_action.id.to_string(), "ended_by_action".to_owned()),
            (at_limit.id.to_string(), "max_messages".to_owned()),
        ];
        expected.sort();
        assert_eq!(ends(&hook), expected);
    }
);

both_backends!(
    a_teacher_reads_the_sessions_of_their_students_and_writes_nothing,
    |backend: Backend| async move {
        let (app, _mock, _config) = spawn(backend, "", "").await;
        let admin = app.admin_client();
        let group = api::group(&admin, "School", None, json!({})).await;
        let user = |email: &'static str, role: &'static str| {
            let app = &app;
            async move {
                let (id, token) = app.create_user(email, role).await;
                (uuid(&id), app.client_as(&token), token)
            }
        };
        let (student, student_client, _) = user("pupil@example.com", "student").await;
        let (classmate, classmate_client, _) = user("mate@example.com", "student").await;
        let (teacher, teacher_client, teacher_token) = user("teach@example.com", "teacher").await;
        let (other_teacher, other_client, _) = user("other@example.com", "teacher").await;
        for id in [student, classmate, teacher, other_teacher] {
            api::add_member(&admin, group.id, id).await;
        }
        let tool = api::tool(&admin, group.id, "Tutor", "Tutor.").await;
        let class = api::class(&admin, group.id, "Maths").await;
        let other_class = api::class(&admin, group.id, "Art").await;
        api::enroll(&admin, class.id, student, EnrollmentRole::Student).await;
        api::enroll(&admin, class.id, classmate, EnrollmentRole::Student).await;
        api::enroll(&admin, class.id, teacher, EnrollmentRole::Teacher).await;
        api::enroll(
            &admin,
            other_class.id,
            other_teacher,
            EnrollmentRole::Teacher,
        )
        .await;
        let assignment = api::assignment(&admin, class.id, tool.id, "Fractions").await;
        let session = student_client
            .create_session()
            .body_map(|b| b.tool_id(tool.id).assignment_id(Some(assignment.id)))
            .send()
            .await
            .assert_status(201);
        let turn = send_message(&student_client, session.id, "what is a half?")
            .await
            .assert_status(201);
        let prompt_id = turn.prompt_id;
        let own = api::session(&student_client, tool.id).await;

        // The teacher reads the assignment's session, its messages, prompt and feed.
        let read = teacher_client
            .get_session()
            .id(session.id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(read.id, session.id);
        let messages = teacher_client
            .list_session_messages()
            .id(session.id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(messages.items.len(), 2);
        teacher_client
            .get_prompt()
            .id(prompt_id)
            .send()
            .await
            .assert_status(200);
        teacher_client
            .get_streaming_state()
            .id(session.id)
            .send()
            .await
            .assert_status(200);
        let mut feed = app
            .prompt_events(&teacher_token, &prompt_id.to_string(), None)
            .await;
        let events = feed.until_terminal(Duration::from_secs(20)).await;
        assert_eq!(events.last().map(|e| e.event.as_str()), Some("complete"));

        // Writing is the student's: the teacher gets 404 like anyone else.
        let code = send_message(&teacher_client, session.id, "hi")
            .await
            .assert_problem(404);
        assert_eq!(code, "not_found");
        teacher_client
            .complete_session()
            .id(session.id)
            .send()
            .await
            .assert_problem(404);
        teacher_client
            .cancel_prompt()
            .id(prompt_id)
            .send()
            .await
            .assert_problem(404);
        // Not the student's session outside the class, not for a classmate or another
        // class's teacher.
        teacher_client
            .get_session()
            .id(own.id)
            .send()
            .await
            .assert_problem(404);
        classmate_client
            .get_session()
            .id(session.id)
            .send()
            .await
            .assert_problem(404);
        other_client
            .get_prompt()
            .id(prompt_id)
            .send()
            .await
            .assert_problem(404);
    }
);
