//! `/v1/teaching/…` (issue #15 item 5): a teacher reads, for the classes they teach
//! only, the assignments and students, the sessions, and what modules found in them
//! (extractions, blocks) with the names beside the ids; another class's class, session
//! or student answers 404; a student teaches nothing; a teacher writes nothing.
//!
//! The findings are real: turns through the mock LLM with the PII redactor, the safety
//! filter and a webhook module that emits a `struggle_detected` signal on every message.

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

both_backends!(
    a_teacher_sees_their_class_with_names_and_nothing_of_another,
    |backend: Backend| async move {
        let s = school(backend).await;
        let classes = s
            .teacher
            .list_taught_classes()
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items;
        assert_eq!(classes.len(), 1, "only the class they teach: {classes:?}");
        assert_eq!(
            (classes[0].id, classes[0].name.as_str()),
            (s.maths, "Maths")
        );
        assert_eq!((classes[0].students, classes[0].assignments), (2, 2));
        let other = s
            .other_teacher
            .list_taught_classes()
            .send()
            .await
            .assert_status(200);
        assert_eq!(
            other.items.iter().map(|c| c.id).collect::<Vec<_>>(),
            vec![s.art]
        );
        // A student, and the admin (enrolled nowhere), teach nothing.
        assert!(
            s.ada
                .list_taught_classes()
                .send()
                .await
                .assert_status(200)
                .items
                .is_empty()
        );
        let admin = s.app.admin_client();
        assert!(
            admin
                .list_taught_classes()
                .send()
                .await
                .assert_status(200)
                .items
                .is_empty()
        );

        let class = s
            .teacher
            .get_taught_class()
            .id(s.maths)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        let assignments: Vec<_> = class
            .assignments
            .iter()
            .map(|a| (a.id, a.title.as_str(), a.tool_name.as_str(), a.sessions))
            .collect();
        assert_eq!(
            assignments,
            vec![
                (s.fractions, "Fractions", "Tutor", 1),
                (s.decimals, "Decimals", "Tutor", 1)
            ]
        );
        let students: Vec<_> = class
            .students
            .iter()
            .map(|p| (p.id, p.email.as_str(), p.sessions))
            .collect();
        assert_eq!(
            students,
            vec![
                (s.ada_id, "ada@example.com", 1),
                (s.ben_id, "ben@example.com", 1)
            ],
            "by name, with their sessions on the class's assignments only"
        );
        assert!(class.students.iter().all(|p| !p.name.is_empty()));
        assert_eq!(class.teachers.len(), 1);

        // Another class, a student, no credentials.
        for (client, class) in [
            (&s.teacher, s.art),
            (&s.ada, s.maths),
            (&s.other_teacher, s.maths),
        ] {
            let code = client
                .get_taught_class()
                .id(class)
                .send()
                .await
                .assert_problem(404);
            assert_eq!(code, "not_found");
            client
                .list_class_sessions()
                .id(class)
                .send()
                .await
                .assert_problem(404);
            client
                .list_class_extractions()
                .id(class)
                .send()
                .await
                .assert_problem(404);
            client
                .list_class_blocks()
                .id(class)
                .send()
                .await
                .assert_problem(404);
        }
        s.teacher
            .get_taught_class()
            .id(Uuid::now_v7())
            .send()
            .await
            .assert_problem(404);
        let anonymous = s
            .app
            .get(&format!("/v1/teaching/classes/{}", s.maths), None)
            .await;
        anonymous.assert_status(401);

        // Sessions: the class's, with names and what modules found in them.
        let sessions = s.sessions(None, None).await;
        let ids: Vec<Uuid> = sessions.iter().map(|x| x.id).collect();
        assert_eq!(
            ids,
            vec![s.ben_session, s.ada_session],
            "most recently active first"
        );
        assert!(!ids.contains(&s.ada_own) && !ids.contains(&s.outsider_session));
        let ada = &sessions[1];
        assert_eq!(
            (ada.student_id, ada.assignment_title.as_str()),
            (s.ada_id, "Fractions")
        );
        assert!(!ada.student_name.is_empty());
        assert_eq!(ada.message_count, 4);
        // pii_detected + struggle_detected for the first message, safety_flag for the
        // second (the block ends the hook before the webhook runs).
        assert_eq!((ada.extractions, ada.blocks), (3, 1));
        assert_eq!((sessions[0].extractions, sessions[0].blocks), (1, 0));

        // Extractions: with the session and message to open, never the values.
        let all = s.extractions(None, None).await;
        let mut kinds: Vec<&str> = all.iter().map(|x| x.type_.as_str()).collect();
        kinds.sort_unstable();
        assert_eq!(
            kinds,
            vec![
                "pii_detected",
                "safety_flag",
                "struggle_detected",
                "struggle_detected"
            ]
        );
        let pii = s.extractions(Some("pii_detected"), None).await;
        assert_eq!(pii.len(), 1);
        assert_eq!(
            (pii[0].session_id, pii[0].student_id),
            (s.ada_session, s.ada_id)
        );
        assert_eq!(pii[0].module, "pii_redactor");
        assert_eq!(pii[0].data["types"], json!(["email"]));
        assert!(pii[0].message_id.is_some());
        let struggles = s.extractions(None, Some("signals")).await;
        assert_eq!(struggles.len(), 2);
        assert!(struggles.iter().all(|x| x.data["topic"] == "fractions"));

        // The teacher opens the conversation there: the redacted text, never the address.
        let messages = s
            .teacher
            .list_session_messages()
            .id(s.ada_session)
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items;
        let redacted = messages
            .iter()
            .find(|m| Some(m.id) == pii[0].message_id)
            .expect("the extraction's message is in the conversation");
        assert!(redacted.content.contains("[email]"), "{redacted:?}");

        // Blocks: module, category, reason and the blocked message as stored.
        let blocks = s.blocks(None).await;
        assert_eq!(blocks.len(), 1);
        let block = &blocks[0];
        assert_eq!(
            (
                block.module.as_str(),
                block.hook.as_str(),
                block.category.as_deref()
            ),
            ("safety_filter", "chat:before_ai", Some("self_harm"))
        );
        assert!(
            block
                .reason
                .as_deref()
                .is_some_and(|r| r.contains("self_harm")),
            "{block:?}"
        );
        assert_eq!(
            (block.session_id, block.student_id),
            (s.ada_session, s.ada_id)
        );
        let blocked = messages
            .iter()
            .find(|m| Some(m.id) == block.message_id)
            .expect("the block's message is in the conversation");
        assert_eq!(blocked.content, "[blocked]");
        let raw = s
            .app
            .get(&format!("/v1/teaching/classes/{}/blocks", s.maths), None)
            .await;
        raw.assert_status(401);
        assert!(s.blocks(Some("weapons")).await.is_empty());
        let _ = (s.drawing, s.outsider_id);
    }
);

both_backends!(
    filters_narrow_and_name_only_the_class_s_own,
    |backend: Backend| async move {
        let s = school(backend).await;
        let only = |v: Vec<TeachingSession>| v.into_iter().map(|x| x.id).collect::<Vec<_>>();
        assert_eq!(
            only(s.sessions(Some(s.decimals), None).await),
            vec![s.ben_session]
        );
        assert_eq!(
            only(s.sessions(None, Some(s.ada_id)).await),
            vec![s.ada_session]
        );
        assert!(
            s.sessions(Some(s.decimals), Some(s.ada_id))
                .await
                .is_empty()
        );
        let by_ben = s
            .teacher
            .list_class_extractions()
            .id(s.maths)
            .student_id(s.ben_id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(by_ben.items.len(), 1);
        assert_eq!(by_ben.items[0].type_, "struggle_detected");
        let on_fractions = s
            .teacher
            .list_class_blocks()
            .id(s.maths)
            .assignment_id(s.fractions)
            .send()
            .await
            .assert_status(200);
        assert_eq!(on_fractions.items.len(), 1);
        let on_decimals = s
            .teacher
            .list_class_blocks()
            .id(s.maths)
            .assignment_id(s.decimals)
            .send()
            .await
            .assert_status(200);
        assert!(on_decimals.items.is_empty());

        // Another class's assignment or student as a filter: 404, not an empty list.
        let code = s
            .teacher
            .list_class_sessions()
            .id(s.maths)
            .assignment_id(s.drawing)
            .send()
            .await
            .assert_problem(404);
        assert_eq!(code, "not_found");
        s.teacher
            .list_class_extractions()
            .id(s.maths)
            .student_id(s.outsider_id)
            .send()
            .await
            .assert_problem(404);
        s.teacher
            .list_class_blocks()
            .id(s.maths)
            .student_id(s.outsider_id)
            .send()
            .await
            .assert_problem(404);

        // Date ranges: everything is from today; a window in the future holds nothing,
        // one around now holds everything; `from` not before `to` is 400.
        let now = chrono::Utc::now();
        let later = now + chrono::Duration::hours(1);
        let earlier = now - chrono::Duration::hours(1);
        let future = s
            .teacher
            .list_class_sessions()
            .id(s.maths)
            .from(later)
            .send()
            .await
            .assert_status(200);
        assert!(future.items.is_empty());
        let around = s
            .teacher
            .list_class_extractions()
            .id(s.maths)
            .from(earlier)
            .to(later)
            .send()
            .await
            .assert_status(200);
        assert_eq!(around.items.len(), 4);
        let before = s
            .teacher
            .list_class_blocks()
            .id(s.maths)
            .to(earlier)
            .send()
            .await
            .assert_status(200);
        assert!(before.items.is_empty());
        let code = s
            .teacher
            .list_class_sessions()
            .id(s.maths)
            .from(later)
            .to(earlier)
            .send()
            .await
            .assert_problem(400);
        assert_eq!(code, "invalid_parameter");
        let bad_cursor = s
            .app
            .get(
                &format!("/v1/teaching/classes/{}/extractions?cursor=nope", s.maths),
                Some(&s.teacher_token),
            )
            .await;
        assert_eq!(bad_cursor.assert_problem(400), "invalid_cursor");

        // Pages of one: every row once, in the same order as one page.
        let whole: Vec<Uuid> = s
            .extractions(None, None)
            .await
            .iter()
            .map(|x| x.id)
            .collect();
        let paged: Vec<Uuid> = all_pages(1, |cursor| {
            let teacher = &s.teacher;
            let maths = s.maths;
            async move {
                let mut request = teacher.list_class_extractions().id(maths).limit(1);
                if let Some(cursor) = cursor {
                    request = request.cursor(cursor);
                }
                let page = request.send().await.assert_status(200).into_inner();
                (page.items, page.next_cursor)
            }
        })
        .await
        .iter()
        .map(|x| x.id)
        .collect();
        assert_eq!(paged, whole);
        let sessions: Vec<Uuid> = all_pages(1, |cursor| {
            let teacher = &s.teacher;
            let maths = s.maths;
            async move {
                let mut request = teacher.list_class_sessions().id(maths).limit(1);
                if let Some(cursor) = cursor {
                    request = request.cursor(cursor);
                }
                let page = request.send().await.assert_status(200).into_inner();
                (page.items, page.next_cursor)
            }
        })
        .await
        .iter()
        .map(|x| x.id)
        .collect();
        assert_eq!(sessions, vec![s.ben_session, s.ada_session]);
    }
);

both_backends!(
    a_teacher_writes_nothing_in_a_student_s_session,
    |backend: Backend| async move {
        let s = school(backend).await;
        let code = send_message(&s.teacher, s.ada_session, "hello from the teacher")
            .await
            .assert_problem(404);
        assert_eq!(code, "not_found");
        let path = format!("/v1/sessions/{}", s.ada_session);
        let token = s.teacher_token.clone();
        s.app
            .patch_json(&path, Some(&token), &json!({"title": "mine now"}))
            .await
            .assert_status(404);
        s.app.delete(&path, Some(&token)).await.assert_status(404);
        s.teacher
            .complete_session()
            .id(s.ada_session)
            .send()
            .await
            .assert_problem(404);
        // The student's conversation is as it was.
        let messages = s
            .ada
            .list_session_messages()
            .id(s.ada_session)
            .send()
            .await
            .assert_status(200);
        assert_eq!(messages.items.len(), 4);
        let read = s
            .ada
            .get_session()
            .id(s.ada_session)
            .send()
            .await
            .assert_status(200);
        assert_ne!(read.title.as_deref(), Some("mine now"));
    }
);
