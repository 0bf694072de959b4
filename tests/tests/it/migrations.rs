//! `parley migrate`: status, a full `down` and `up` again, and a server that starts on
//! the rebuilt schema (its start-up re-creates the bootstrap admin), asked through the
//! typed client (`parley_tests::client`).

use std::collections::BTreeMap;

use parley_tests::{ApiResult, TestApp, both_backends};

/// Reads `parley migrate status` output: every line naming a migration
/// (`mYYYYMMDD_HHMMSS_…`) and saying `applied` or `pending`. Returns name → applied.
async fn migration_status(app: &TestApp) -> BTreeMap<String, bool> {
    // Info level, in case the status is reported through the log rather than stdout.
    let output = app
        .cli_with_env(&["migrate", "status"], &[("PARLEY_LOG", "info")])
        .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "`parley migrate status` failed:\n{stdout}\n{stderr}"
    );
    let mut status = BTreeMap::new();
    for line in stdout.lines().chain(stderr.lines()) {
        let lower = line.to_ascii_lowercase();
        let pending = ["pending", "not applied", "unapplied"]
            .iter()
            .any(|word| lower.contains(word));
        if !pending && !lower.contains("applied") {
            continue;
        }
        let applied = !pending;
        let names = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|word| is_migration_name(word));
        for name in names {
            let previous = status.insert(name.to_owned(), applied);
            assert!(
                previous.is_none_or(|before| before == applied),
                "{name} is reported both applied and pending:\n{stdout}\n{stderr}"
            );
        }
    }
    assert!(
        !status.is_empty(),
        "`parley migrate status` named no migrations:\n{stdout}\n{stderr}"
    );
    status
}

fn is_migration_name(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.len() > 17
        && bytes[0] == b'm'
        && bytes[1..9].iter().all(u8::is_ascii_digit)
        && bytes[9] == b'_'
        && bytes[10..16].iter().all(u8::is_ascii_digit)
        && bytes[16] == b'_'
}

both_backends!(
    down_all_then_up_restores_a_working_server,
    |app| async move {
        let mut app = app;
        app.stop().await;

        let status = migration_status(&app).await;
        assert!(
            status.values().all(|&applied| applied),
            "after serve: {status:?}"
        );

        app.cli_ok(&["migrate", "down", "--all"]).await;
        let after_down = migration_status(&app).await;
        assert!(
            after_down.values().all(|&applied| !applied),
            "after down --all: {after_down:?}"
        );
        assert_eq!(
            after_down.keys().collect::<Vec<_>>(),
            status.keys().collect::<Vec<_>>(),
            "status must list the same migrations"
        );

        app.cli_ok(&["migrate", "up"]).await;
        let after_up = migration_status(&app).await;
        assert_eq!(after_up, status, "after up");

        app.start().await;
        app.anonymous_client()
            .readyz()
            .send()
            .await
            .assert_status(200);
        app.admin_client()
            .admin_list_users()
            .send()
            .await
            .assert_status(200);
    }
);
