//! A teacher reads a student's conversation and writes nothing in it.

use super::*;

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
