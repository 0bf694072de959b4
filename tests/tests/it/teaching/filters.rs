//! The lists' filters narrow to the class's own assignments, students and findings.

use super::*;

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
