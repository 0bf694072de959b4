//! The first run and the admin commands: a server that cannot listen stops at once and
//! creates nothing; the first start prints the admin token and how to get another; the
//! CLI lists users and tokens, revokes tokens, takes `--data-dir` everywhere it opens
//! the embedded database, and checks the configuration with its secrets masked; `/`
//! leads to the chat page.

use std::time::{Duration, Instant};

use parley_tests::{ApiResult, TestApp, both_backends};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

both_backends!(
    a_taken_port_stops_the_start_at_once_and_creates_nothing,
    |backend: Backend| async move {
        let app = TestApp::unstarted(backend, &[]).await;
        let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("binding a port");
        let addr = taken.local_addr().expect("its address").to_string();
        for role in ["serve", "api"] {
            let started = Instant::now();
            let output = app.cli(&[role, "--listen", &addr]).await;
            let took = started.elapsed();
            assert!(!output.status.success(), "{role}: {}", stderr(&output));
            let err = stderr(&output);
            assert_eq!(err.lines().count(), 1, "{role}: one line: {err}");
            assert!(
                err.contains(&addr) && err.contains("cannot listen"),
                "{role}: {err}"
            );
            assert!(
                took < Duration::from_secs(1),
                "{role}: exited after {took:?}"
            );
            assert!(output.stdout.is_empty(), "{role}: no banner, no token");
        }
        match app.database_url() {
            // The harness made the (empty) data dir; Parley added nothing to it.
            None => assert_eq!(
                std::fs::read_dir(app.data_dir()).map(Iterator::count).ok(),
                Some(0),
                "files were created in {}",
                app.data_dir().display()
            ),
            Some(_) => assert_eq!(
                app.count(
                    "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
                )
                .await,
                0,
                "tables were created"
            ),
        }
        drop(taken);
    }
);

both_backends!(
    the_first_start_prints_the_token_and_how_to_get_another,
    |backend: Backend| async move {
        let mut app =
            TestApp::spawn_with_env(backend, &[("PARLEY_BOOTSTRAP_ADMIN_TOKEN", "")]).await;
        let log = app.full_server_log();
        let token = log
            .lines()
            .find_map(|line| line.split("export TOKEN=").nth(1))
            .map(str::trim)
            .expect("an `export TOKEN=` line")
            .to_owned();
        assert!(token.starts_with("prl_"), "{log}");
        let hint = log
            .lines()
            .find_map(|line| line.split("another one later: ").nth(1))
            .expect("how to get another token")
            .to_owned();
        assert!(
            hint.starts_with("parley token create --user admin@parley.local"),
            "{hint}"
        );
        // The hint works as printed (without the binary's name).
        let args: Vec<&str> = hint.split_whitespace().skip(1).collect();
        let minted = app.cli_ok(&args).await;
        app.client_as(&minted)
            .admin_list_users()
            .send()
            .await
            .assert_status(200);
        app.restart().await;
        let log = app.full_server_log();
        assert_eq!(
            log.matches("export TOKEN=").count(),
            1,
            "the token is printed once"
        );
        assert!(
            log.contains(
                "admin tokens are printed on the first start only; another one: parley token create"
            ),
            "a later start says how to get a token: {log}"
        );
    }
);

both_backends!(
    users_and_tokens_are_listed_and_revoked_from_the_cli,
    |app| async move {
        let (user_id, token) = app.create_user("cli-user@example.com", "teacher").await;
        let users = app.cli_ok(&["user", "list"]).await;
        let line = users
            .lines()
            .find(|line| line.contains("cli-user@example.com"))
            .expect("the user is listed");
        assert_eq!(
            line.split('\t').collect::<Vec<_>>()[..3],
            [user_id.as_str(), "cli-user@example.com", "teacher"],
            "{users}"
        );
        let tokens = app
            .cli_ok(&["token", "list", "--user", "cli-user@example.com"])
            .await;
        assert_eq!(tokens.lines().count(), 1, "{tokens}");
        let fields: Vec<&str> = tokens.split('\t').collect();
        let (token_id, prefix) = (fields[0], fields[1]);
        assert!(token.starts_with(prefix), "the prefix is the token's start");
        assert_eq!(fields[4], "active", "{tokens}");
        assert!(!tokens.contains(&token), "a list never shows a secret");
        let all = app.cli_ok(&["token", "list"]).await;
        assert!(
            all.contains("admin@parley.local") && all.contains(token_id),
            "{all}"
        );
        app.client_as(&token)
            .list_sessions()
            .send()
            .await
            .assert_status(200);
        // Revoked by its prefix (in the database, by another process); the server, which
        // has the token in its cache, hears of it within its revocations poll (2 s).
        let revoked = app.cli_ok(&["token", "revoke", prefix]).await;
        assert!(revoked.contains(token_id), "{revoked}");
        let revoked_at = std::time::Instant::now();
        while app.client_as(&token).list_sessions().send().await.is_ok() {
            assert!(
                revoked_at.elapsed() < std::time::Duration::from_secs(4),
                "a token revoked from the CLI still authenticates after 4 s"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        app.client_as(&token)
            .list_sessions()
            .send()
            .await
            .assert_problem(401);
        let listed = app
            .cli_ok(&["token", "list", "--user", "cli-user@example.com"])
            .await;
        assert!(listed.contains("\trevoked "), "{listed}");
        // By id works too (again: harmless); an unknown one is an error that says so.
        app.cli_ok(&["token", "revoke", token_id]).await;
        let unknown = app.cli(&["token", "revoke", "prl_nothing"]).await;
        assert!(!unknown.status.success());
        assert!(
            stderr(&unknown).contains("no token with id or prefix prl_nothing"),
            "{}",
            stderr(&unknown)
        );
    }
);

both_backends!(
    admin_commands_take_the_data_dir_and_refuse_a_missing_one,
    |app| async move {
        let Some(dir) = app.database_url().is_none().then(|| app.data_dir()) else {
            // PostgreSQL: `--data-dir` is not used; the commands reach the database.
            app.cli_ok(&["user", "list", "--data-dir", "/nonexistent"])
                .await;
            return;
        };
        let dir = dir.display().to_string();
        let elsewhere = app.root_dir().join("elsewhere").display().to_string();
        // The flag wins over the environment; every command that opens the database
        // takes it.
        let env = [("PARLEY_DATA_DIR", elsewhere.as_str())];
        for args in [
            vec!["user", "list", "--data-dir", dir.as_str()],
            vec!["token", "list", "--data-dir", dir.as_str()],
            vec!["migrate", "status", "--data-dir", dir.as_str()],
            vec!["--data-dir", dir.as_str(), "token", "list"],
        ] {
            let output = app.cli_with_env(&args, &env).await;
            assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        }
        // A data dir without a database is refused, and not created.
        let output = app.cli_with_env(&["user", "list"], &env).await;
        assert!(!output.status.success());
        assert!(
            stderr(&output).contains("no database at"),
            "{}",
            stderr(&output)
        );
        assert!(
            !std::path::Path::new(&elsewhere).exists(),
            "the command created {elsewhere}"
        );
    }
);

both_backends!(
    config_check_prints_the_effective_settings_with_secrets_masked,
    |app| async move {
        let env = [
            ("PARLEY_REDIS_URL", "redis://:hunter2hunter2@127.0.0.1:1/"),
            ("PARLEY_HTTP__CORS_ORIGINS", "[\"http://localhost:5173\"]"),
            ("PARLEY_HTTP__METRICS_TOKEN", "metrics-secret-0123456789"),
        ];
        let output = app.cli_with_env(&["config", "check"], &env).await;
        assert!(output.status.success(), "{}", stderr(&output));
        let printed = String::from_utf8_lossy(&output.stdout);
        for secret in [
            "hunter2hunter2",
            "metrics-secret-0123456789",
            app.admin_token.as_str(),
        ] {
            assert!(!printed.contains(secret), "a secret was printed: {printed}");
        }
        assert!(
            printed.contains("url = \"redis://:***@127.0.0.1:1/\""),
            "{printed}"
        );
        assert!(
            printed.contains("bootstrap_admin_token = \"***\""),
            "{printed}"
        );
        assert!(
            printed.contains("cors_origins = [\"http://localhost:5173\"]"),
            "{printed}"
        );
        assert!(
            printed.contains("[worker]") && printed.contains("lease_s = 4"),
            "defaults are filled in"
        );
        // An invalid setting is named, with exit 1.
        let bad = app
            .cli_with_env(
                &["config", "check"],
                &[("PARLEY_HTTP__CORS_ORIGINS", "[\"*\", \"http://a.example\"]")],
            )
            .await;
        assert_eq!(bad.status.code(), Some(1));
        assert!(
            stderr(&bad).contains("http.cors_origins"),
            "{}",
            stderr(&bad)
        );
    }
);

both_backends!(the_front_door_leads_to_the_chat_page, |app| async move {
    let client = parley_tests::http_client()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let response = client.get(app.url("/")).send().await.expect("a response");
    assert_eq!(response.status().as_u16(), 303);
    assert_eq!(response.headers()["location"], "/chat");
    let page = app
        .client
        .get(app.url("/"))
        .send()
        .await
        .expect("a response");
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.text().await.unwrap_or_default().contains("<html"));
});
