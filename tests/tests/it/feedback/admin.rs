//! The administrators' side of feedback: `GET /v1/admin/feedback` (filters, pages, the
//! answer's text and the names beside the ids) and `GET /v1/admin/feedback/metrics`
//! (ups and downs overall, by tool, by model); admin only.

use chrono::{Duration, Utc};
use parley_tests::client::Client;
use parley_tests::client::types::{AdminFeedback, Rating};
use parley_tests::{ApiResult, both_backends};
use uuid::Uuid;

use super::{rate, turn};
use crate::fixtures::api;

/// Every feedback `admin` lists with `filter` applied to the request, `limit` a page.
async fn listed(
    admin: &Client,
    limit: u32,
    filter: impl Fn(
        parley_tests::client::builder::AdminListFeedback<'_>,
    ) -> parley_tests::client::builder::AdminListFeedback<'_>,
) -> Vec<AdminFeedback> {
    let filter = &filter;
    parley_tests::all_pages(limit as usize, |cursor| async move {
        let mut request = filter(admin.admin_list_feedback().limit(limit));
        if let Some(cursor) = cursor {
            request = request.cursor(cursor);
        }
        let page = request.send().await.assert_status(200).into_inner();
        (page.items, page.next_cursor)
    })
    .await
}

fn answers(entries: &[AdminFeedback]) -> Vec<Uuid> {
    entries.iter().map(|e| e.message_id).collect()
}

both_backends!(
    admins_list_feedback_with_filters_and_read_the_figures,
    |app| async move {
        let admin = app.admin_client();
        let alice = api::student_with_tool(&app, "alice-list@example.com").await;
        let bob = api::student_with_tool(&app, "bob-list@example.com").await;
        let (a, b) = (app.client_as(&alice.token), app.client_as(&bob.token));
        let a_session = api::session(&a, alice.tool.id).await.id;
        let b_session = api::session(&b, bob.tool.id).await.id;
        let a1 = turn(&a, a_session, "First question").await;
        let a2 = turn(&a, a_session, "Second question").await;
        let b1 = turn(&b, b_session, "Bob asks").await;
        let started = Utc::now() - Duration::seconds(1);
        a.put_message_feedback()
            .id(a_session)
            .message_id(a1.message_id)
            .body_map(|f| {
                f.rating(Rating::Up)
                    .comment(Some("spot on".to_owned()))
                    .tags(Some(vec!["accurate".to_owned()]))
            })
            .send()
            .await
            .assert_status(200);
        rate(&a, a_session, a2.message_id, Rating::Down).await;
        rate(&b, b_session, b1.message_id, Rating::Down).await;

        // Newest first, in pages of one, with what each is about.
        let all = listed(&admin, 1, |r| r).await;
        assert_eq!(answers(&all), [b1.message_id, a2.message_id, a1.message_id]);
        let first = &all[2];
        assert_eq!(first.session_id, a_session);
        assert_eq!(first.user_id, alice.user_id);
        assert_eq!(first.user_email, "alice-list@example.com");
        assert_eq!(
            (first.tool_id, first.tool_name.as_str()),
            (alice.tool.id, "Tutor")
        );
        assert_eq!(first.model.as_deref(), Some(a1.model.as_str()));
        assert_eq!(first.rating, Rating::Up);
        assert_eq!(first.comment.as_deref(), Some("spot on"));
        assert_eq!(first.tags, ["accurate"]);
        let stored = parley_tests::typed::messages(&a, a_session).await;
        let text = &crate::feedback::find(&stored, a1.message_id).content;
        assert_eq!(&first.message, text, "the answer's text as stored");

        let downs = listed(&admin, 10, |r| r.rating(Rating::Down)).await;
        assert_eq!(answers(&downs), [b1.message_id, a2.message_id]);
        let of_bob = listed(&admin, 10, |r| r.user_id(bob.user_id)).await;
        assert_eq!(answers(&of_bob), [b1.message_id]);
        let of_tool = listed(&admin, 10, |r| r.tool_id(alice.tool.id)).await;
        assert_eq!(answers(&of_tool), [a2.message_id, a1.message_id]);
        let model = a1.model.clone();
        let of_model = listed(&admin, 10, |r| r.model(model.clone())).await;
        assert_eq!(of_model.len(), 3);
        assert!(
            listed(&admin, 10, |r| r.model("no-such-model"))
                .await
                .is_empty()
        );
        let now = listed(&admin, 10, |r| r.from(started)).await;
        assert_eq!(now.len(), 3);
        assert!(listed(&admin, 10, |r| r.to(started)).await.is_empty());
        let bad = app
            .get(
                "/v1/admin/feedback?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
                app.admin(),
            )
            .await;
        assert_eq!(bad.assert_problem(400), "invalid_parameter");
        let bad = app.get("/v1/admin/feedback?rating=meh", app.admin()).await;
        assert_eq!(bad.assert_problem(400), "invalid_parameter");
        let bad = app.get("/v1/admin/feedback?cursor=nope", app.admin()).await;
        assert_eq!(bad.assert_problem(400), "invalid_cursor");

        // The figures: overall, by tool, by model.
        let figures = admin
            .admin_feedback_metrics()
            .send()
            .await
            .assert_status(200)
            .into_inner();
        let by_rating: Vec<(Rating, u64)> = figures
            .by_rating
            .iter()
            .map(|r| (r.rating, r.count))
            .collect();
        assert_eq!(by_rating, [(Rating::Up, 1), (Rating::Down, 2)]);
        let mut by_tool: Vec<(Uuid, u64, u64)> = figures
            .by_tool
            .iter()
            .map(|t| (t.tool_id, t.up, t.down))
            .collect();
        by_tool.sort();
        let mut expected = vec![(alice.tool.id, 1, 1), (bob.tool.id, 0, 1)];
        expected.sort();
        assert_eq!(by_tool, expected);
        assert!(figures.by_tool.iter().all(|t| t.tool_name == "Tutor"));
        let by_model: Vec<(Option<&str>, u64, u64)> = figures
            .by_model
            .iter()
            .map(|m| (m.model.as_deref(), m.up, m.down))
            .collect();
        assert_eq!(by_model, [(Some(a1.model.as_str()), 1, 2)]);
        let before = admin
            .admin_feedback_metrics()
            .to(started)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert!(before.by_rating.iter().all(|r| r.count == 0));
        assert!(before.by_tool.is_empty() && before.by_model.is_empty());
    }
);

both_backends!(
    feedback_admin_routes_answer_403_to_non_admins,
    |app| async move {
        let (_, student) = app.create_user("nosy-fb@example.com", "student").await;
        let (_, teacher) = app.create_user("teach-fb@example.com", "teacher").await;
        for token in [student, teacher] {
            let client = app.client_as(&token);
            assert_eq!(
                client
                    .admin_list_feedback()
                    .send()
                    .await
                    .assert_problem(403),
                "forbidden"
            );
            assert_eq!(
                client
                    .admin_feedback_metrics()
                    .send()
                    .await
                    .assert_problem(403),
                "forbidden"
            );
            // 403 before any parameter is read; the export too.
            for path in [
                "/v1/admin/feedback?rating=meh",
                "/v1/admin/feedback/metrics?from=never",
                "/v1/admin/exports/conversations",
                "/v1/admin/exports/conversations?rating=meh",
            ] {
                assert_eq!(
                    app.get(path, Some(&token)).await.assert_problem(403),
                    "forbidden",
                    "{path}"
                );
            }
        }
        for path in [
            "/v1/admin/feedback",
            "/v1/admin/feedback/metrics",
            "/v1/admin/exports/conversations",
        ] {
            assert_eq!(
                app.get(path, None).await.assert_problem(401),
                "unauthenticated",
                "{path}"
            );
        }
    }
);
