//! Every call settles: a call that fails mid-stream and one that is cancelled count what
//! they used (the counter equals the usage rows' costs, nothing stays reserved); the
//! counters survive a restart (seeded from the usage rows); a turn over its user's or
//! its group's budget is refused when it is submitted.

use std::time::Duration;

use parley_tests::both_backends;
use serde_json::json;

use super::{
    all_prompts_ended, assert_over_budget, budget, create_budget, spawn, spent_in_db, student,
};
use crate::fixtures;

/// The budget's counter equals what the usage rows cost, and nothing is held.
async fn settled(app: &parley_tests::TestApp, budget_id: &str, user_id: &str) -> i64 {
    let spent = spent_in_db(app, user_id).await;
    let shown = budget(app, budget_id).await;
    assert_eq!(shown["spent_micros"].as_i64(), Some(spent), "{shown}");
    assert_eq!(shown["reserved_micros"].as_i64(), Some(0), "{shown}");
    spent
}

both_backends!(
    failed_and_cancelled_calls_settle_what_they_used,
    |backend: Backend| async move {
        let (_mock, app, _config) = spawn(backend, 8).await;
        let (alice, session) = student(&app, "settle@example.com").await;
        let budget_id =
            fixtures::id(&create_budget(&app, "user", &alice.user_id, "day", 50.0).await);

        // A stream cut after a few tokens: the turn ends `error`, its partial use counts.
        let prompt = app
            .send_in_background(&alice.token, &session, "[[mock tokens=10 cut_after=4]] cut")
            .await;
        app.wait_for_prompt_state(&alice.token, &prompt, "error", Duration::from_secs(30))
            .await;
        let after_failure = settled(&app, &budget_id, &alice.user_id).await;
        assert!(after_failure > 0, "the failed call's use counts");

        // A cancelled stream: what it used before the cancel counts.
        let prompt = app
            .send_in_background(
                &alice.token,
                &session,
                "[[mock tokens=400 token_delay_ms=300]] long",
            )
            .await;
        tokio::time::sleep(Duration::from_millis(800)).await;
        app.post_json(
            &format!("/v1/prompts/{prompt}/cancel"),
            Some(&alice.token),
            &json!({}),
        )
        .await;
        app.wait_for_prompt_state(&alice.token, &prompt, "canceled", Duration::from_secs(30))
            .await;
        all_prompts_ended(&app, Duration::from_secs(30)).await;
        let after_cancel = settled(&app, &budget_id, &alice.user_id).await;
        assert!(
            after_cancel > after_failure,
            "the cancelled call's use counts"
        );
    }
);

both_backends!(
    a_spent_budget_refuses_the_next_turn_even_after_a_restart,
    |backend: Backend| async move {
        let (_mock, mut app, _config) = spawn(backend, 8).await;
        let (alice, session) = student(&app, "spender@example.com").await;
        // One micro-unit: the first turn is admitted (nothing spent yet) and spends more.
        let budget_id =
            fixtures::id(&create_budget(&app, "user", &alice.user_id, "day", 0.000_001).await);
        app.send_message(&alice.token, &session, "[[mock tokens=3]] hi", "")
            .await
            .assert_status(201);
        let spent = settled(&app, &budget_id, &alice.user_id).await;
        assert!(spent > 1);
        let prompts = app.count("SELECT COUNT(*) FROM prompts").await;
        let refused = app.send_message(&alice.token, &session, "again", "").await;
        assert_over_budget(&refused, "over your budget");
        assert_eq!(
            app.count("SELECT COUNT(*) FROM prompts").await,
            prompts,
            "nothing is recorded for a refused turn"
        );
        let scrape = parley_tests::metrics::Scrape::parse(&app.get("/metrics", None).await.text);
        assert_eq!(
            scrape.sum(
                "parley_budget_refusals_total",
                &[("subject", "user"), ("period", "day")]
            ),
            Some(1.0)
        );

        // The counters of the embedded mode die with the process; Redis's stay. Either
        // way the spending still counts after a restart.
        app.restart().await;
        assert_eq!(
            budget(&app, &budget_id).await["spent_micros"].as_i64(),
            Some(spent)
        );
        let refused = app.send_message(&alice.token, &session, "after", "").await;
        assert_over_budget(&refused, "over your budget");
    }
);

both_backends!(
    a_parent_groups_budget_refuses_another_members_turn,
    |backend: Backend| async move {
        let (_mock, app, _config) = spawn(backend, 8).await;
        // A district's budget covers the turns on its schools' tools.
        let district = fixtures::group(&app, "District", None, json!({})).await;
        let district_id = fixtures::id(&district);
        let school = fixtures::group(&app, "School", Some(&district_id), json!({})).await;
        let school_id = fixtures::id(&school);
        let tool = fixtures::tool(&app, &school_id, "Tutor", json!({"behavior": "Help."})).await;
        let tool_id = fixtures::id(&tool);
        let mut members = Vec::new();
        for email in ["member-a@example.com", "member-b@example.com"] {
            let (user_id, token) = app.create_user(email, "student").await;
            fixtures::add_member(&app, &school_id, &user_id).await;
            let session = fixtures::id(&fixtures::session(&app, &token, &tool_id).await);
            members.push((user_id, token, session));
        }
        let budget_id =
            fixtures::id(&create_budget(&app, "group", &district_id, "day", 0.000_001).await);
        let (alice, alice_token, alice_session) = &members[0];
        app.send_message(alice_token, alice_session, "[[mock tokens=3]] hi", "")
            .await
            .assert_status(201);
        let (_, bob_token, bob_session) = &members[1];
        let refused = app.send_message(bob_token, bob_session, "me too", "").await;
        assert_over_budget(&refused, "your group's budget");
        let shown = budget(&app, &budget_id).await;
        assert_eq!(shown["subject_name"], "District");
        assert_eq!(
            shown["spent_micros"].as_i64(),
            Some(spent_in_db(&app, alice).await)
        );
        // A tool of another group is not under the district's budget.
        let (carol, carol_session) = student(&app, "outsider@example.com").await;
        app.send_message(&carol.token, &carol_session, "hello", "")
            .await
            .assert_status(201);
    }
);
