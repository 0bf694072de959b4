//! What a teacher sees of their class, with names; another class, its sessions and
//! students, and a student caller answer 404.

use super::*;

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
