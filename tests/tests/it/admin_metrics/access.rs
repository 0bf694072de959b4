//! Admin only: 401 without credentials, 403 for students and teachers before any
//! parameter is read.

use parley_tests::{ApiResult, both_backends};
use uuid::Uuid;

both_backends!(metrics_routes_answer_403_to_non_admins, |app| async move {
    let (_, token) = app.create_user("nosy@example.com", "student").await;
    let (_, teacher) = app.create_user("teach@example.com", "teacher").await;
    for token in [token, teacher] {
        let client = app.client_as(&token);
        assert_eq!(
            client.admin_usage().send().await.assert_problem(403),
            "forbidden"
        );
        assert_eq!(
            client.admin_blocks().send().await.assert_problem(403),
            "forbidden"
        );
        assert_eq!(
            client.admin_prompt_stats().send().await.assert_problem(403),
            "forbidden"
        );
        assert_eq!(
            client.admin_providers().send().await.assert_problem(403),
            "forbidden"
        );
        let audit = client.admin_session_audit().id(Uuid::now_v7()).send().await;
        assert_eq!(audit.assert_problem(403), "forbidden");
        // 403 comes before any parameter is read.
        for path in [
            "/v1/admin/usage?from=garbage&group_by=week",
            "/v1/admin/blocks?to=never",
            "/v1/admin/prompts/stats?stuck_after_s=0",
            "/v1/admin/providers?window_s=0",
        ] {
            assert_eq!(
                app.get(path, Some(&token)).await.assert_problem(403),
                "forbidden",
                "{path}"
            );
        }
    }
    for path in [
        "/v1/admin/usage",
        "/v1/admin/blocks",
        "/v1/admin/prompts/stats",
        "/v1/admin/providers",
    ] {
        assert_eq!(
            app.get(path, None).await.assert_problem(401),
            "unauthenticated",
            "{path}"
        );
    }
});
