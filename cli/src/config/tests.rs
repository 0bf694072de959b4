//! Loading settings from files, the environment and overrides, and every config file
//! the repository ships.

use figment::Jail;

use super::*;

fn load_in(jail: &Jail) -> anyhow::Result<Settings> {
    Settings::load(
        &jail.directory().join("parley.toml"),
        false,
        Overrides::default(),
    )
}

#[test]
fn defaults_need_no_file_and_no_env() {
    Jail::expect_with(|jail| {
        let s = load_in(jail).expect("defaults load");
        assert_eq!(s.listen, default_listen());
        assert!(s.database.url.is_none());
        assert_eq!(s.limits.max_body_bytes, 1024 * 1024);
        Ok(())
    });
}

#[test]
fn env_overrides_file_and_flags_override_env() {
    Jail::expect_with(|jail| {
        jail.create_file(
            "parley.toml",
            "listen = \"127.0.0.1:9000\"\n[limits]\nmax_body_bytes = 4096\n",
        )?;
        jail.set_env("PARLEY_LISTEN", "127.0.0.1:9001");
        jail.set_env("PARLEY_DATABASE_URL", "postgres://u:secret@h/db");
        jail.set_env("PARLEY_TEST_PG_URL", "ignored");
        jail.set_env("PARLEY_DEFAULT_MODEL", "gpt-x");
        jail.set_env("PARLEY_WORKER__CONCURRENCY", "3");
        jail.set_env("PARLEY_REDIS__QUEUE", "tenant-a");
        let s = load_in(jail).expect("loads");
        assert_eq!(s.listen.port(), 9001);
        assert_eq!(s.limits.max_body_bytes, 4096);
        assert_eq!(s.default_model.as_deref(), Some("gpt-x"));
        assert_eq!(s.worker.concurrency, 3);
        assert_eq!(s.redis.queue, "tenant-a");
        assert!(
            !format!("{s:?}").contains("secret"),
            "secrets must not print"
        );
        let flagged = Settings::load(
            &jail.directory().join("parley.toml"),
            false,
            Overrides {
                listen: Some("127.0.0.1:9002".into()),
                data_dir: None,
            },
        )
        .expect("loads");
        assert_eq!(flagged.listen.port(), 9002);
        Ok(())
    });
}

#[test]
fn bad_values_name_their_key() {
    Jail::expect_with(|jail| {
        jail.set_env("PARLEY_LIMITS__MAX_BODY_BYTES", "lots");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("limits.max_body_bytes"), "{err}");
        Ok(())
    });
    Jail::expect_with(|jail| {
        jail.create_file("parley.toml", "[database]\nurl = \"mysql://x\"\n")?;
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("database.url"), "{err}");
        Ok(())
    });
    Jail::expect_with(|jail| {
        jail.create_file("parley.toml", "[limits]\nmax_bdy_bytes = 1\n")?;
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("max_bdy_bytes"), "{err}");
        Ok(())
    });
    Jail::expect_with(|jail| {
        jail.set_env("PARLEY_LISTEN", "not-an-address");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("listen"), "{err}");
        Ok(())
    });
    Jail::expect_with(|jail| {
        jail.set_env("PARLEY_TELEMETRY__OTLP_ENDPOINT", "otel-collector:4317");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("telemetry.otlp_endpoint"), "{err}");
        Ok(())
    });
    Jail::expect_with(|jail| {
        jail.set_env("PARLEY_TELEMETRY__FILTER", "info,[[[");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("telemetry.filter"), "{err}");
        Ok(())
    });
    Jail::expect_with(|jail| {
        // A replica needs a PostgreSQL primary; the queue 1 to 1024 partitions.
        jail.set_env("PARLEY_DATABASE__READ_URL", "postgres://replica/parley");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("database.read_url"), "{err}");
        jail.set_env("PARLEY_DATABASE_URL", "postgres://primary/parley");
        let s = load_in(jail).expect("loads");
        assert!(s.database.read_url.is_some());
        jail.set_env("PARLEY_REDIS__QUEUE_PARTITIONS", "0");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("redis.queue_partitions"), "{err}");
        jail.set_env("PARLEY_REDIS__QUEUE_PARTITIONS", "8");
        jail.set_env(
            "PARLEY_REDIS_URL",
            "redis+cluster://10.0.0.1:7000,10.0.0.2:7000",
        );
        let s = load_in(jail).expect("loads");
        assert_eq!(s.redis.queue_partitions, 8);
        jail.set_env("PARLEY_REDIS_URL", "redis+cluster://");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("redis.url"), "{err}");
        Ok(())
    });
    Jail::expect_with(|jail| {
        jail.set_env("PARLEY_WORKER__METRICS_LISTEN", "127.0.0.1:9464");
        let s = load_in(jail).expect("loads");
        assert_eq!(s.worker.metrics_listen.map(|a| a.port()), Some(9464));
        assert_eq!(s.worker.job_timeout_s, 3600);
        jail.set_env("PARLEY_WORKER__JOB_TIMEOUT_S", "0");
        let err = load_in(jail).expect_err("must fail").to_string();
        assert!(err.contains("worker.job_timeout_s"), "{err}");
        Ok(())
    });
}

#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "a test reads its servers (PARLEY_TEST_*) and files from the environment"
)]
fn every_shipped_config_file_parses() {
    // Inside a Jail: other tests set PARLEY_* variables, and Jail serializes them.
    Jail::expect_with(|_| {
        let manifest = std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
        let deploy = Path::new(&manifest).join("../deploy");
        // deploy/ and its subdirectories (the compose stack's, the Kubernetes one's).
        let mut dirs = vec![deploy];
        let mut seen = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("a readable directory") {
                let path = entry.expect("readable entry").path();
                if path.is_dir() && !path.ends_with("node_modules") {
                    dirs.push(path);
                } else if path.extension().is_some_and(|ext| ext == "toml") {
                    Settings::load(&path, true, Overrides::default())
                        .unwrap_or_else(|err| panic!("{} does not load: {err}", path.display()));
                    seen.push(path);
                }
            }
        }
        for expected in [
            "parley.example.toml",
            "compose/parley.toml",
            "k8s/parley.toml",
        ] {
            assert!(
                seen.iter().any(|p| p.ends_with(expected)),
                "deploy/{expected} was not checked: {seen:?}"
            );
        }
        Ok(())
    });
}

#[test]
fn mcp_servers_load_with_secrets_hidden_and_bad_ones_name_their_key() {
    Jail::expect_with(|jail| {
        jail.create_file(
            "parley.toml",
            "[[mcp_servers]]\nname = \"files\"\ncommand = \"mcp-files\"\nargs = [\"/srv\"]\n\
             env = { API_KEY = \"env-secret-value\" }\npermissions = [\"files:read\"]\n\n\
             [[mcp_servers]]\nname = \"search\"\nurl = \"http://127.0.0.1:8000/mcp\"\n\
             bearer_token = \"token-secret-value\"\ntimeout_ms = 5000\n",
        )?;
        let s = load_in(jail).expect("loads");
        assert_eq!(s.mcp_servers.len(), 2);
        assert_eq!(s.mcp_servers[0].args, ["/srv"]);
        assert_eq!(s.mcp_servers[0].timeout_ms, 60_000);
        assert_eq!(s.mcp_servers[1].timeout_ms, 5000);
        let printed = format!("{s:?}");
        assert!(
            !printed.contains("env-secret-value") && !printed.contains("token-secret-value"),
            "secrets must not print: {printed}"
        );
        Ok(())
    });
    for (file, key) in [
        (
            "[[mcp_servers]]\nname = \"x\"\ncommand = \"a\"\nurl = \"http://h/mcp\"\n",
            "mcp_servers[0]",
        ),
        ("[[mcp_servers]]\nname = \"x\"\n", "mcp_servers[0]"),
        (
            "[[mcp_servers]]\nname = \"a.b\"\ncommand = \"a\"\n",
            "mcp_servers[0].name",
        ),
        (
            "[[mcp_servers]]\nname = \"a\"\ncommand = \"a\"\n[[mcp_servers]]\nname = \"a\"\ncommand = \"b\"\n",
            "mcp_servers[1].name",
        ),
    ] {
        Jail::expect_with(|jail| {
            jail.create_file("parley.toml", file)?;
            let err = load_in(jail).expect_err("must fail").to_string();
            assert!(err.contains(key), "{file}: {err}");
            Ok(())
        });
    }
}

#[test]
fn an_anthropic_provider_loads_and_a_bad_kind_or_thinking_budget_is_refused_by_its_key() {
    Jail::expect_with(|jail| {
        let provider = "[[providers]]\nname = \"claude\"\nkind = \"anthropic\"\n\
                        base_url = \"https://api.anthropic.com\"\n\n";
        let model =
            "[[models]]\nid = \"sonnet\"\nprovider = \"claude\"\nmax_output_tokens = 8192\n";
        jail.create_file(
            "parley.toml",
            &format!("{provider}{model}thinking_budget_tokens = 4096\nprompt_cache = \"prefix\"\n"),
        )?;
        let s = load_in(jail).expect("an anthropic provider loads");
        assert_eq!(
            s.providers[0].kind,
            parley_worker::providers::ProviderKind::Anthropic
        );
        assert_eq!(s.models[0].thinking_budget_tokens, Some(4096));
        assert_eq!(
            s.models[0].prompt_cache,
            parley_worker::providers::PromptCache::Prefix
        );
        for budget in [512, 8192, 9000] {
            jail.create_file(
                "parley.toml",
                &format!("{provider}{model}thinking_budget_tokens = {budget}\n"),
            )?;
            let err = load_in(jail).expect_err("a budget out of bounds is refused");
            assert!(
                err.to_string().contains("models[0].thinking_budget_tokens"),
                "{budget}: {err}"
            );
        }
        jail.create_file(
            "parley.toml",
            &format!("{}{model}", provider.replace("anthropic", "gemini")),
        )?;
        let err = load_in(jail).expect_err("an unknown kind is refused");
        assert!(err.to_string().contains("kind"), "{err}");
        Ok(())
    });
}

#[test]
fn model_prices_load_and_must_not_be_negative() {
    Jail::expect_with(|jail| {
        let models = "[[providers]]\nname = \"p\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\n\
                      [[models]]\nid = \"m\"\nprovider = \"p\"\n";
        jail.create_file(
            "parley.toml",
            &format!("{models}input_usd_per_mtok = 0.15\noutput_usd_per_mtok = 0.6\n"),
        )?;
        let s = load_in(jail).expect("priced models load");
        assert_eq!(s.models[0].input_usd_per_mtok, Some(0.15));
        assert_eq!(s.models[0].output_usd_per_mtok, Some(0.6));
        jail.create_file("parley.toml", models)?;
        let s = load_in(jail).expect("prices are optional");
        assert_eq!(s.models[0].input_usd_per_mtok, None);
        jail.create_file(
            "parley.toml",
            &format!("{models}output_usd_per_mtok = -1.0\n"),
        )?;
        let err = load_in(jail).expect_err("a negative price is refused");
        assert!(
            err.to_string().contains("models[0].output_usd_per_mtok"),
            "{err}"
        );
        // A price per kind: set, or negative and refused by its key.
        jail.create_file(
            "parley.toml",
            &format!(
                "{models}input_usd_per_mtok = 3.0\ncached_input_usd_per_mtok = 0.3\n\
                 cache_write_usd_per_mtok = 3.75\nreasoning_usd_per_mtok = 15.0\n"
            ),
        )?;
        let s = load_in(jail).expect("prices per kind load");
        assert_eq!(s.models[0].cached_input_usd_per_mtok, Some(0.3));
        assert_eq!(s.models[0].cache_write_usd_per_mtok, Some(3.75));
        assert_eq!(s.models[0].reasoning_usd_per_mtok, Some(15.0));
        for key in [
            "cached_input_usd_per_mtok",
            "cache_write_usd_per_mtok",
            "reasoning_usd_per_mtok",
        ] {
            jail.create_file("parley.toml", &format!("{models}{key} = -0.5\n"))?;
            let err = load_in(jail).expect_err("a negative price per kind is refused");
            assert!(
                err.to_string().contains(&format!("models[0].{key}")),
                "{err}"
            );
        }
        Ok(())
    });
}

#[test]
fn provider_timeouts_default_to_the_seed_values_and_must_be_positive() {
    Jail::expect_with(|jail| {
        let provider = "[[providers]]\nname = \"p\"\nbase_url = \"http://127.0.0.1:9/v1\"\n";
        let models = "\n[[models]]\nid = \"m\"\nprovider = \"p\"\n";
        jail.create_file("parley.toml", &format!("{provider}{models}"))?;
        let s = load_in(jail).expect("defaults load");
        assert_eq!(
            (
                s.providers[0].connect_timeout_ms,
                s.providers[0].first_token_timeout_ms
            ),
            (4_500, 6_000)
        );
        jail.create_file(
            "parley.toml",
            &format!(
                "{provider}connect_timeout_ms = 800\nfirst_token_timeout_ms = 20000\n{models}"
            ),
        )?;
        let s = load_in(jail).expect("set per provider");
        assert_eq!(
            (
                s.providers[0].connect_timeout_ms,
                s.providers[0].first_token_timeout_ms
            ),
            (800, 20_000)
        );
        jail.create_file(
            "parley.toml",
            &format!("{provider}first_token_timeout_ms = 0\n{models}"),
        )?;
        let err = load_in(jail).expect_err("a zero timeout is refused");
        assert!(err.to_string().contains("providers[0]"), "{err}");
        Ok(())
    });
}

#[test]
fn provider_breakers_default_to_three_failures_and_thirty_seconds() {
    Jail::expect_with(|jail| {
        let s = load_in(jail).expect("defaults load");
        assert_eq!(
            (s.worker.breaker_failures, s.worker.breaker_open_s),
            (3, 30)
        );
        assert_eq!(
            (s.worker.user_breaker_failures, s.worker.user_breaker_open_s),
            (3, 30)
        );
        jail.set_env("PARLEY_WORKER__BREAKER_FAILURES", "0");
        let err = load_in(jail).expect_err("a breaker that opens at 0 failures is refused");
        assert!(err.to_string().contains("worker.breaker_failures"), "{err}");
        jail.set_env("PARLEY_WORKER__BREAKER_FAILURES", "3");
        jail.set_env("PARLEY_WORKER__USER_BREAKER_OPEN_S", "0");
        let err = load_in(jail).expect_err("a user breaker open for 0 s is refused");
        assert!(
            err.to_string().contains("worker.user_breaker_open_s"),
            "{err}"
        );
        Ok(())
    });
}

#[test]
fn a_fallback_to_a_model_that_is_not_configured_is_refused_at_start_up() {
    Jail::expect_with(|jail| {
        jail.create_file(
            "parley.toml",
            "[[providers]]\nname = \"p\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\n\
             [[models]]\nid = \"a\"\nprovider = \"p\"\nfallback = [\"b\"]\n",
        )?;
        let settings = load_in(jail).expect("the file parses");
        assert_eq!(settings.models[0].fallback, ["b"]);
        let err = match crate::serve::catalog(&settings) {
            Ok(_) => panic!("a chain naming an unknown model is refused"),
            Err(err) => err.to_string(),
        };
        assert!(
            err.contains("`models`") && err.contains("`b`"),
            "the error names the setting and the model: {err}"
        );
        Ok(())
    });
}

#[test]
fn the_in_process_event_log_keeps_finished_turns_briefly() {
    Jail::expect_with(|jail| {
        let embedded = load_in(jail).expect("defaults load");
        assert_eq!(
            embedded.event_retention(),
            std::time::Duration::from_secs(300)
        );
        jail.set_env("PARLEY_REDIS_URL", "redis://127.0.0.1:6379/");
        let distributed = load_in(jail).expect("loads");
        assert_eq!(
            distributed.event_retention(),
            std::time::Duration::from_secs(86_400)
        );
        jail.set_env("PARLEY_WORKER__EVENT_RETENTION_S", "60");
        let shorter = load_in(jail).expect("loads");
        assert_eq!(
            shorter.event_retention(),
            std::time::Duration::from_secs(60)
        );
        Ok(())
    });
}

#[test]
fn takeover_defaults_hand_a_dead_workers_turn_on_within_seconds() {
    Jail::expect_with(|jail| {
        let s = load_in(jail).expect("defaults load");
        assert_eq!(
            (
                s.worker.lease_s,
                s.worker.heartbeat_s,
                s.worker.missed_heartbeats
            ),
            (4, 1, 3)
        );
        jail.set_env("PARLEY_WORKER__HEARTBEAT_S", "0");
        let err = load_in(jail).expect_err("a heartbeat of 0 s is refused");
        assert!(err.to_string().contains("worker.heartbeat_s"), "{err}");
        Ok(())
    });
}

#[test]
fn the_pdf_extractor_has_a_timeout_and_a_memory_limit() {
    Jail::expect_with(|jail| {
        let s = load_in(jail).expect("loads");
        assert_eq!(
            (s.files.extract_timeout_ms, s.files.extract_max_memory_mb),
            (10_000, 512)
        );
        jail.set_env("PARLEY_FILES__EXTRACT_TIMEOUT_MS", "2000");
        jail.set_env("PARLEY_FILES__EXTRACT_MAX_MEMORY_MB", "256");
        let s = load_in(jail).expect("loads");
        assert_eq!(
            (s.files.extract_timeout_ms, s.files.extract_max_memory_mb),
            (2000, 256)
        );
        Ok(())
    });
    for (key, value) in [
        ("PARLEY_FILES__EXTRACT_TIMEOUT_MS", "0"),
        ("PARLEY_FILES__EXTRACT_TIMEOUT_MS", "600001"),
        ("PARLEY_FILES__EXTRACT_MAX_MEMORY_MB", "64"),
    ] {
        Jail::expect_with(|jail| {
            jail.set_env(key, value);
            let err = load_in(jail).expect_err("must fail").to_string();
            let name = key.trim_start_matches("PARLEY_FILES__").to_lowercase();
            assert!(err.contains(&format!("files.{name}")), "{err}");
            Ok(())
        });
    }
}

#[test]
fn the_token_cache_takes_zero_to_an_hour() {
    Jail::expect_with(|jail| {
        assert_eq!(load_in(jail).expect("defaults load").auth.token_cache_s, 5);
        jail.set_env("PARLEY_AUTH__TOKEN_CACHE_S", "0");
        assert_eq!(load_in(jail).expect("0 turns it off").auth.token_cache_s, 0);
        jail.set_env("PARLEY_AUTH__TOKEN_CACHE_S", "3601");
        let err = load_in(jail).expect_err("over an hour").to_string();
        assert!(err.contains("auth.token_cache_s"), "{err}");
        Ok(())
    });
}
