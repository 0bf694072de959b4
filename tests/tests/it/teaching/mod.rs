//! `/v1/teaching/…` (issue #15 item 5): a teacher reads, for the classes they teach
//! only, the assignments and students, the sessions, and what modules found in them
//! (extractions, blocks) with the names beside the ids; another class's class, session
//! or student answers 404; a student teaches nothing; a teacher writes nothing.
//!
//! The findings are real: turns through the mock LLM with the PII redactor, the safety
//! filter and a webhook module that emits a `struggle_detected` signal on every message.
//! The deployment (two classes, their people and turns) is [`school`]; the tests are in
//! `reads` (what a teacher sees, and 404 for the rest), `filters` and `writes`.

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{
    EnrollmentRole, TeachingBlock, TeachingExtraction, TeachingSession, ToolDefinition, ToolModule,
};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::typed::send_message;
use parley_tests::webhook::{Answer, WebhookReceiver};
use parley_tests::{ApiResult, Backend, TestApp, all_pages, both_backends};
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

const SECRET: &str = "a-webhook-secret-of-some-length";

/// A deployment with two classes and turns that left findings behind.
struct School {
    app: TestApp,
    teacher: Client,
    teacher_token: String,
    other_teacher: Client,
    ada: Client,
    ada_id: Uuid,
    ben_id: Uuid,
    outsider_id: Uuid,
    maths: Uuid,
    art: Uuid,
    fractions: Uuid,
    decimals: Uuid,
    drawing: Uuid,
    /// Ada's session on "Fractions": an email (redacted), a self-harm message (blocked).
    ada_session: Uuid,
    /// Ben's session on "Decimals": one plain question.
    ben_session: Uuid,
    /// Ada's session with the tool, outside any assignment.
    ada_own: Uuid,
    /// The outsider's session on "Drawing" (the other class).
    outsider_session: Uuid,
    _mock: MockLlm,
    _hook: WebhookReceiver,
    _config: tempfile::NamedTempFile,
}

fn module(name: &str) -> ToolModule {
    ToolModule {
        name: name.into(),
        config: None,
    }
}

async fn school(backend: Backend) -> School {
    let mock = MockLlm::start(MockConfig::default()).await;
    let hook = WebhookReceiver::start(
        SECRET,
        Answer::Json(json!({"extractions": [{
            "type": "struggle_detected",
            "data": {"indicators": ["repeated_errors"], "topic": "fractions"}
        }]})),
    )
    .await;
    let modules = format!(
        "[[modules]]\nname = \"signals\"\nkind = \"webhook\"\nurl = \"{}\"\nsecret = \"{SECRET}\"\npriority = 90\n",
        hook.url()
    );
    let config = mock_provider_config(&mock.base_url(), &modules);
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    let admin = app.admin_client();
    let group = api::group(&admin, "School", None, json!({})).await;
    let user = |email: &'static str, role: &'static str| {
        let app = &app;
        let admin = &admin;
        let group_id = group.id;
        async move {
            let (id, token) = app.create_user(email, role).await;
            let id = uuid(&id);
            api::add_member(admin, group_id, id).await;
            (id, app.client_as(&token), token)
        }
    };
    let (teacher_id, teacher, teacher_token) = user("teach@example.com", "teacher").await;
    let (other_teacher_id, other_teacher, _) = user("other@example.com", "teacher").await;
    let (ada_id, ada, _) = user("ada@example.com", "student").await;
    let (ben_id, ben, _) = user("ben@example.com", "student").await;
    let (outsider_id, outsider, _) = user("out@example.com", "student").await;
    let definition = ToolDefinition {
        modules: Some(vec![
            module("pii_redactor"),
            module("safety_filter"),
            module("signals"),
        ]),
        ..api::definition("Help with homework.")
    };
    let tool = api::tool_with(&admin, group.id, "Tutor", definition).await;
    let maths = api::class(&admin, group.id, "Maths").await.id;
    let art = api::class(&admin, group.id, "Art").await.id;
    for (class, id, role) in [
        (maths, teacher_id, EnrollmentRole::Teacher),
        (maths, ada_id, EnrollmentRole::Student),
        (maths, ben_id, EnrollmentRole::Student),
        (art, other_teacher_id, EnrollmentRole::Teacher),
        (art, outsider_id, EnrollmentRole::Student),
    ] {
        api::enroll(&admin, class, id, role).await;
    }
    let fractions = api::assignment(&admin, maths, tool.id, "Fractions")
        .await
        .id;
    let decimals = api::assignment(&admin, maths, tool.id, "Decimals").await.id;
    let drawing = api::assignment(&admin, art, tool.id, "Drawing").await.id;
    let tool_id = tool.id;
    async fn open(client: &Client, tool_id: Uuid, assignment: Uuid) -> Uuid {
        client
            .create_session()
            .body_map(move |b| b.tool_id(tool_id).assignment_id(Some(assignment)))
            .send()
            .await
            .assert_status(201)
            .id
    }
    let ada_session = open(&ada, tool_id, fractions).await;
    send_message(&ada, ada_session, "Write to me at ada.l@example.com please")
        .await
        .assert_status(201);
    let blocked = send_message(&ada, ada_session, "I want to kill myself")
        .await
        .assert_status(201);
    assert!(blocked.blocked, "the safety filter blocks it: {blocked:?}");
    let ben_session = open(&ben, tool_id, decimals).await;
    send_message(&ben, ben_session, "What is 0.5 as a fraction?")
        .await
        .assert_status(201);
    let ada_own = api::session(&ada, tool.id).await.id;
    send_message(&ada, ada_own, "My phone is +44 20 7946 0958")
        .await
        .assert_status(201);
    let outsider_session = open(&outsider, tool_id, drawing).await;
    send_message(&outsider, outsider_session, "mail me: out@example.com")
        .await
        .assert_status(201);
    School {
        app,
        teacher,
        teacher_token,
        other_teacher,
        ada,
        ada_id,
        ben_id,
        outsider_id,
        maths,
        art,
        fractions,
        decimals,
        drawing,
        ada_session,
        ben_session,
        ada_own,
        outsider_session,
        _mock: mock,
        _hook: hook,
        _config: config,
    }
}

impl School {
    async fn sessions(
        &self,
        assignment: Option<Uuid>,
        student: Option<Uuid>,
    ) -> Vec<TeachingSession> {
        let mut request = self.teacher.list_class_sessions().id(self.maths);
        if let Some(assignment) = assignment {
            request = request.assignment_id(assignment);
        }
        if let Some(student) = student {
            request = request.student_id(student);
        }
        request.send().await.assert_status(200).into_inner().items
    }

    async fn extractions(
        &self,
        kind: Option<&str>,
        module: Option<&str>,
    ) -> Vec<TeachingExtraction> {
        let mut request = self.teacher.list_class_extractions().id(self.maths);
        if let Some(kind) = kind {
            request = request.type_(kind);
        }
        if let Some(module) = module {
            request = request.module(module);
        }
        request.send().await.assert_status(200).into_inner().items
    }

    async fn blocks(&self, category: Option<&str>) -> Vec<TeachingBlock> {
        let mut request = self.teacher.list_class_blocks().id(self.maths);
        if let Some(category) = category {
            request = request.category(category);
        }
        request.send().await.assert_status(200).into_inner().items
    }
}

mod filters;
mod reads;
mod writes;
