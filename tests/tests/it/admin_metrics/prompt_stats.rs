//! `GET /v1/admin/prompts/stats` after turns that completed, failed and were cancelled,
//! and one that is stuck for a while.

use std::time::Duration;

use parley_tests::client::types::{PromptState, PromptStats};
use parley_tests::{ApiResult, both_backends, typed};

use super::priced;
use crate::fixtures::api;

both_backends!(
    prompt_stats_count_every_state_and_list_stuck_prompts,
    |backend: Backend| async move {
        let p = priced(backend).await;
        let admin = p.app.admin_client();
        let student = api::student_with_tool(&p.app, "stats@example.com").await;
        let client = p.app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await.id;
        let stats = || async {
            admin
                .admin_prompt_stats()
                .send()
                .await
                .assert_status(200)
                .into_inner()
        };
        let empty = stats().await;
        assert_eq!(count(&empty, PromptState::Completed), 0);
        assert_eq!(
            empty.by_state.len(),
            7,
            "every state, zeros included: {empty:?}"
        );

        p.turn(&client, session, "fine [[mock tokens=2]]", "mock-model")
            .await;
        p.turn(&client, session, "fine again", "mock-cheap").await;
        // The provider fails before any output, and max_attempts = 1: `failed`.
        let failed = typed::send_message(&client, session, "[[mock status=500]]").await;
        assert_eq!(failed.assert_problem(502), "upstream_error");
        // A turn whose first token takes long is stuck after a second.
        let slow =
            typed::send_in_background(&client, session, "slow [[mock first_token_delay_ms=8000]]")
                .await;
        typed::wait_for_prompt_state(
            &client,
            slow.prompt_id,
            PromptState::InProgress,
            Duration::from_secs(10),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let during = admin
            .admin_prompt_stats()
            .stuck_after_s(1)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(count(&during, PromptState::InProgress), 1, "{during:?}");
        assert_eq!(during.stuck_after_s, 1);
        assert_eq!(during.stuck_count, 1, "{during:?}");
        let stuck = &during.stuck[0];
        assert_eq!(
            (stuck.id, stuck.session_id, stuck.state),
            (slow.prompt_id, session, PromptState::InProgress)
        );
        assert!(stuck.age_s >= 1, "{stuck:?}");
        let relaxed = stats().await;
        assert_eq!(
            (relaxed.stuck_after_s, relaxed.stuck_count),
            (120, 0),
            "{relaxed:?}"
        );
        assert!(relaxed.stuck.is_empty());
        // Stuck and in flight, with the names of its user and tool.
        assert_eq!(stuck.user_id, Some(student.user_id));
        assert_eq!(stuck.tool_name.as_deref(), Some(student.tool.name.as_str()));
        assert!(stuck.user_name.is_some(), "{stuck:?}");
        assert_eq!(during.in_flight_count, 1, "{during:?}");
        assert_eq!(during.in_flight[0].id, slow.prompt_id);
        // Cancelled by an admin (the student may not use the admin's cancel).
        let path = format!("/v1/admin/prompts/{}/cancel", slow.prompt_id);
        let denied = p
            .app
            .post_json(&path, Some(&student.token), &serde_json::json!({}))
            .await;
        assert_eq!(denied.assert_problem(403), "forbidden");
        admin
            .admin_cancel_prompt()
            .id(slow.prompt_id)
            .send()
            .await
            .assert_status(202);
        typed::wait_for_prompt_state(
            &client,
            slow.prompt_id,
            PromptState::Canceled,
            Duration::from_secs(10),
        )
        .await;

        let after = stats().await;
        let expected = [
            (PromptState::Created, 0),
            (PromptState::InProgress, 0),
            (PromptState::WaitingForTools, 0),
            (PromptState::Completed, 2),
            (PromptState::Error, 0),
            (PromptState::Failed, 1),
            (PromptState::Canceled, 1),
        ];
        for (state, n) in expected {
            assert_eq!(count(&after, state), n, "{state}: {after:?}");
        }
        assert_eq!(after.stuck_count, 0, "{after:?}");
        assert_eq!(after.in_flight_count, 0, "{after:?}");
        // The admin's cancel: 404 for an unknown prompt, 409 for a finished one.
        let unknown = admin
            .admin_cancel_prompt()
            .id(uuid::Uuid::now_v7())
            .send()
            .await;
        assert_eq!(unknown.assert_problem(404), "not_found");
        let done = typed::send_in_background(&client, session, "quick").await;
        typed::wait_for_prompt_state(
            &client,
            done.prompt_id,
            PromptState::Completed,
            Duration::from_secs(10),
        )
        .await;
        let finished = admin.admin_cancel_prompt().id(done.prompt_id).send().await;
        assert_eq!(finished.assert_problem(409), "prompt_finished");
        // A window that ends before the turns counts none of them.
        let before = admin
            .admin_prompt_stats()
            .to(chrono::Utc::now() - chrono::Duration::days(1))
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert!(before.by_state.iter().all(|c| c.count == 0), "{before:?}");
        // The threshold's bounds are documented and enforced.
        for bad in ["0", "2592001", "-1", "soon"] {
            let response = p
                .app
                .get(
                    &format!("/v1/admin/prompts/stats?stuck_after_s={bad}"),
                    p.app.admin(),
                )
                .await;
            assert_eq!(response.assert_problem(400), "invalid_parameter", "{bad}");
        }
    }
);

/// The count of `state` (which must be listed once).
#[track_caller]
fn count(stats: &PromptStats, state: PromptState) -> u64 {
    let found: Vec<u64> = stats
        .by_state
        .iter()
        .filter(|c| c.state == state)
        .map(|c| c.count)
        .collect();
    assert_eq!(found.len(), 1, "{state} listed once: {stats:?}");
    found[0]
}
