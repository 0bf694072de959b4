//! API tokens across api processes (docs/decisions.md, "Bearer tokens are cached for
//! seconds"): each api keeps what a token authenticated as for `auth.token_cache_s`, and
//! what changes it reaches the others in time.

use std::time::{Duration, Instant};

use parley_tests::{ApiResult, Backend, Cluster};

/// How long another api process may take to refuse a revoked token or a disabled user:
/// its revocations poll (every 2 s) and a margin for a loaded machine.
const REVOCATION_REACH: Duration = Duration::from_secs(4);

/// The status of `GET {base}{path}` with `token`.
async fn status(http: &reqwest::Client, base: &str, path: &str, token: &str) -> u16 {
    http.get(format!("{base}{path}"))
        .bearer_auth(token)
        .send()
        .await
        .expect("a request to the api")
        .status()
        .as_u16()
}

/// Polls `GET {base}{path}` with `token` until it answers `want`; how long that took.
async fn until_status(
    http: &reqwest::Client,
    base: &str,
    path: &str,
    token: &str,
    want: u16,
    within: Duration,
) -> Duration {
    let started = Instant::now();
    loop {
        let got = status(http, base, path, token).await;
        if got == want {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < within,
            "{path} still answers {got}, not {want}, after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// A token that a second api process has cached is refused there within seconds of its
// revocation on the first, and at once on the first; a disabled user likewise; a
// demoted admin loses the admin routes on the second process within the cache's
// lifetime (1 s here), and at once on the first.
#[tokio::test]
async fn a_cached_token_follows_revocations_and_role_changes_across_api_processes() {
    parley_tests::run_test(Backend::Postgres, |_| async {
        let mut cluster = Cluster::spawn(&[("PARLEY_AUTH__TOKEN_CACHE_S", "1")]).await;
        let second = cluster.start_api().await;
        let second = second.trim_end_matches('/').to_owned();
        let first = cluster.url("");
        let first = first.trim_end_matches('/').to_owned();
        let http = reqwest::Client::new();
        let admin = cluster.admin_client();

        // Revoked: the first api refuses at once, the second once it has heard.
        let (user_id, token) = cluster.create_user("kept@example.com", "student").await;
        for base in [&first, &second] {
            assert_eq!(status(&http, base, "/v1/sessions", &token).await, 200);
        }
        let token_id = admin
            .admin_list_tokens()
            .id(user_id.parse::<uuid::Uuid>().expect("a user id"))
            .send()
            .await
            .assert_status(200)
            .items
            .first()
            .expect("the user's token")
            .id;
        admin
            .admin_revoke_token()
            .id(token_id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(status(&http, &first, "/v1/sessions", &token).await, 401);
        until_status(
            &http,
            &second,
            "/v1/sessions",
            &token,
            401,
            REVOCATION_REACH,
        )
        .await;

        // Disabled: the same.
        let (user_id, token) = cluster.create_user("off@example.com", "student").await;
        for base in [&first, &second] {
            assert_eq!(status(&http, base, "/v1/sessions", &token).await, 200);
        }
        admin
            .admin_update_user()
            .id(user_id.parse::<uuid::Uuid>().expect("a user id"))
            .body_map(|b| b.disabled(true))
            .send()
            .await
            .assert_status(200);
        assert_eq!(status(&http, &first, "/v1/sessions", &token).await, 401);
        until_status(
            &http,
            &second,
            "/v1/sessions",
            &token,
            401,
            REVOCATION_REACH,
        )
        .await;

        // Demoted: the admin routes answer 403 at once on the first api, and on the
        // second once its cached entry lapses (1 s), not later.
        let (user_id, token) = cluster.create_user("boss@example.com", "admin").await;
        for base in [&first, &second] {
            assert_eq!(status(&http, base, "/v1/admin/users", &token).await, 200);
        }
        admin
            .admin_update_user()
            .id(user_id.parse::<uuid::Uuid>().expect("a user id"))
            .body_map(|b| b.role(parley_tests::client::types::UserRole::Student))
            .send()
            .await
            .assert_status(200);
        assert_eq!(status(&http, &first, "/v1/admin/users", &token).await, 403);
        let took = until_status(
            &http,
            &second,
            "/v1/admin/users",
            &token,
            403,
            Duration::from_secs(3),
        )
        .await;
        assert!(took <= Duration::from_millis(2500), "{took:?}");
        // Still a valid token for the routes a student may use.
        assert_eq!(status(&http, &second, "/v1/sessions", &token).await, 200);
    })
    .await;
}
