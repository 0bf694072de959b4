//! Where a webhook module's request may go: a redirect is followed only on the URL's own
//! origin (and only a 307 or 308, which keep the POST's body), and with
//! `outbound.deny_private_addresses` no loopback address is reached — by IP literal or
//! by a name that resolves to one. A refused webhook is a module error: a fail-open
//! module is skipped, the turn goes on and `module_events` records the error; the
//! receivers prove no request reached where it should not.

use super::*;

/// A server whose tool names every webhook of `hooks` (name, URL), with `env`.
struct Hooked {
    app: TestApp,
    token: String,
    session_id: Uuid,
    _mock: MockLlm,
    _config: tempfile::NamedTempFile,
}

async fn hooked(backend: Backend, hooks: &[(&str, String)], env: &[(&str, &str)]) -> Hooked {
    let mock = MockLlm::start(MockConfig::default()).await;
    let modules: String = hooks
        .iter()
        .map(|(name, url)| {
            format!(
                "[[modules]]\nname = \"{name}\"\nkind = \"webhook\"\nurl = \"{url}\"\nsecret = \"{SECRET}\"\n"
            )
        })
        .collect();
    let config = mock_provider_config(&mock.base_url(), &modules);
    let path = config_path(&config);
    let mut env = env.to_vec();
    env.push(("PARLEY_CONFIG", &path));
    let app = TestApp::spawn_with_env(backend, &env).await;
    let admin = app.admin_client();
    let (user_id, token) = app.create_user("hooked@example.com", "student").await;
    let group = api::group(&admin, "Hooked", None, json!({})).await;
    api::add_member(&admin, group.id, uuid(&user_id)).await;
    let definition = ToolDefinition {
        modules: Some(hooks.iter().map(|(name, _)| module(name, None)).collect()),
        ..api::definition("Help with homework.")
    };
    let tool = api::tool_with(&admin, group.id, "Hooked", definition).await;
    let session = api::session(&app.client_as(&token), tool.id).await;
    Hooked {
        session_id: session.id,
        token,
        app,
        _mock: mock,
        _config: config,
    }
}

impl Hooked {
    /// A turn; it must complete unblocked (every webhook is fail-open).
    async fn turn(&self) {
        let mut feed = self
            .app
            .stream_message(&self.token, &self.session_id.to_string(), "hello")
            .await;
        assert_eq!(feed.status, 200);
        let events = feed.until_terminal(WAIT).await;
        let end = completed(&events);
        assert_eq!(end["blocked"], false, "{events:?}");
        assert_eq!(end["payload"]["message"], "Echo: hello");
    }

    async fn module_events(&self) -> Vec<String> {
        self.app
            .query_strings(
                "SELECT module || ':' || hook || ':' || outcome FROM module_events ORDER BY module",
            )
            .await
    }
}

fn requests(hook: &WebhookReceiver) -> Vec<String> {
    hook.received().into_iter().map(|r| r.request).collect()
}

both_backends!(
    a_webhook_redirect_leaves_neither_its_origin_nor_its_body_behind,
    |backend: Backend| async move {
        // Where a followed redirect would land: another port, so another origin.
        let elsewhere = WebhookReceiver::start(SECRET, Answer::Json(json!({}))).await;
        let to_another_port = |status: u16| Answer::Redirect {
            status,
            location: elsewhere.url(),
        };
        // 302 (reqwest would follow it as a GET) and 307 (as the POST it was).
        let away_302 = WebhookReceiver::start(SECRET, to_another_port(302)).await;
        let away_307 = WebhookReceiver::start(SECRET, to_another_port(307)).await;
        // The same port by another host name: followed, it would come back here.
        let renamed = WebhookReceiver::start(SECRET, Answer::Json(json!({}))).await;
        renamed.answer(Answer::Redirect {
            status: 307,
            location: renamed.url_by_name(),
        });
        // On its own origin, with the body kept: followed.
        let moved = WebhookReceiver::start(
            SECRET,
            Answer::Redirect {
                status: 307,
                location: "/moved".into(),
            },
        )
        .await;
        let h = hooked(
            backend,
            &[
                ("away_302", away_302.url()),
                ("away_307", away_307.url()),
                ("moved", moved.url()),
                ("renamed", renamed.url()),
            ],
            &[],
        )
        .await;
        h.turn().await;

        let got = moved.wait_for(2, WAIT).await;
        assert_eq!(requests(&moved), ["POST /hook", "POST /moved"]);
        assert!(
            got[1].signature_valid,
            "the body and its signature came along"
        );
        assert_eq!(got[1].hook, "chat:before_ai");
        assert_eq!(
            h.module_events().await,
            [
                "away_302:chat:before_ai:error",
                "away_307:chat:before_ai:error",
                "moved:chat:before_ai:continue",
                "renamed:chat:before_ai:error",
            ],
            "the on-origin redirect ran the module; the others failed it"
        );
        assert!(
            elsewhere.received().is_empty(),
            "{:?}",
            elsewhere.received()
        );
        assert_eq!(requests(&away_302), ["POST /hook"]);
        assert_eq!(requests(&away_307), ["POST /hook"]);
        assert_eq!(
            requests(&renamed),
            ["POST /hook"],
            "not followed to localhost"
        );
        let log = h.app.full_server_log();
        let origin = format!("http://127.0.0.1:{}", elsewhere.addr.port());
        assert!(
            log.contains(&format!(
                "a redirect to another host ({origin}) is not followed"
            )),
            "the log says why: {}",
            h.app.server_log()
        );
    }
);

both_backends!(
    denying_private_addresses_keeps_webhooks_off_loopback_by_address_and_by_name,
    |backend: Backend| async move {
        let hook = WebhookReceiver::start(SECRET, Answer::Json(json!({}))).await;
        let hooks = [("by_address", hook.url()), ("by_name", hook.url_by_name())];
        let deny = [("PARLEY_OUTBOUND__DENY_PRIVATE_ADDRESSES", "true")];
        let h = hooked(backend, &hooks, &deny).await;
        h.turn().await;
        assert_eq!(
            h.module_events().await,
            [
                "by_address:chat:before_ai:error",
                "by_name:chat:before_ai:error"
            ]
        );
        let log = h.app.full_server_log();
        for why in [
            "127.0.0.1 is not a public address",
            "`localhost` resolves only to addresses that are not public",
        ] {
            assert!(log.contains(why), "{why}: {}", h.app.server_log());
        }
        // Refused before any connection: the receiver got nothing.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(hook.received().is_empty(), "{:?}", hook.received());
        drop(h);

        // By default both reach it.
        let h = hooked(backend, &hooks, &[]).await;
        h.turn().await;
        assert_eq!(hook.wait_for(2, WAIT).await.len(), 2);
        assert_eq!(
            h.module_events().await,
            [
                "by_address:chat:before_ai:continue",
                "by_name:chat:before_ai:continue"
            ]
        );
    }
);
