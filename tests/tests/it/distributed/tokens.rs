//! API tokens across api processes (docs/decisions.md, "Bearer tokens are cached for
//! seconds"): each api keeps what a token authenticated as for `auth.token_cache_s`, and
//! what changes it reaches the others in time.

use std::time::{Duration, Instant};

use parley_tests::{ApiResult, Backend, Cluster};
use uuid::Uuid;

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

/// Two api processes of one cluster, and a client for both.
struct Apis {
    http: reqwest::Client,
    first: String,
    second: String,
}

impl Apis {
    /// A new user of `role` whose token both apis have just accepted on `path` (so each
    /// keeps it).
    async fn cached(
        &self,
        cluster: &Cluster,
        email: &str,
        role: &str,
        path: &str,
    ) -> (Uuid, String) {
        let (user_id, token) = cluster.create_user(email, role).await;
        for base in [&self.first, &self.second] {
            assert_eq!(
                status(&self.http, base, path, &token).await,
                200,
                "{base}{path}"
            );
        }
        (user_id.parse().expect("a user id"), token)
    }

    /// After a change made through the first api: `path` answers `want` there at once,
    /// and on the second within `within`; how long the second took.
    async fn refused(&self, path: &str, token: &str, want: u16, within: Duration) -> Duration {
        assert_eq!(status(&self.http, &self.first, path, token).await, want);
        until_status(&self.http, &self.second, path, token, want, within).await
    }
}

// A token that a second api process has cached is refused there within seconds of its
// revocation on the first (sooner than the cache's 6 s lifetime: the revocations
// reach it), and at once on the first; a disabled user likewise; a demoted admin loses
// the admin routes on the second process within the cache's lifetime, and at once on
// the first.
#[tokio::test]
async fn a_cached_token_follows_revocations_and_role_changes_across_api_processes() {
    parley_tests::run_test(Backend::Postgres, |_| async {
        let mut cluster = Cluster::spawn(&[("PARLEY_AUTH__TOKEN_CACHE_S", "6")]).await;
        let second = cluster.start_api().await;
        let apis = Apis {
            http: parley_tests::http_client().build().expect("an HTTP client"),
            first: cluster.url("").trim_end_matches('/').to_owned(),
            second: second.trim_end_matches('/').to_owned(),
        };
        let admin = cluster.admin_client();

        // Revoked: the first api refuses at once, the second once it has heard.
        let (user_id, token) = apis
            .cached(&cluster, "kept@example.com", "student", "/v1/sessions")
            .await;
        let token_id = admin
            .admin_list_tokens()
            .id(user_id)
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
        apis.refused("/v1/sessions", &token, 401, REVOCATION_REACH)
            .await;

        // Disabled: the same.
        let (user_id, token) = apis
            .cached(&cluster, "off@example.com", "student", "/v1/sessions")
            .await;
        admin
            .admin_update_user()
            .id(user_id)
            .body_map(|b| b.disabled(true))
            .send()
            .await
            .assert_status(200);
        apis.refused("/v1/sessions", &token, 401, REVOCATION_REACH)
            .await;

        // Demoted: the admin routes answer 403 at once on the first api, and on the
        // second once its cached entry lapses (6 s), not later.
        let (user_id, token) = apis
            .cached(&cluster, "boss@example.com", "admin", "/v1/admin/users")
            .await;
        admin
            .admin_update_user()
            .id(user_id)
            .body_map(|b| b.role(parley_tests::client::types::UserRole::Student))
            .send()
            .await
            .assert_status(200);
        let took = apis
            .refused("/v1/admin/users", &token, 403, Duration::from_secs(9))
            .await;
        assert!(took <= Duration::from_millis(7500), "{took:?}");
        // Still a valid token for the routes a student may use.
        assert_eq!(
            status(&apis.http, &apis.second, "/v1/sessions", &token).await,
            200
        );
    })
    .await;
}
