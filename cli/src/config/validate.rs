//! The checks a loaded [`Settings`] must pass before Parley starts: each failure names
//! the setting and what it expects.

use secrecy::ExposeSecret;

use super::*;

/// The smallest extended-thinking budget Anthropic accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

impl Settings {
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        if let Some(threads) = self.runtime.threads
            && !(1..=MAX_RUNTIME_THREADS).contains(&threads)
        {
            anyhow::bail!(
                "invalid setting `runtime.threads`: {threads} (from 1 to {MAX_RUNTIME_THREADS}; \
                 unset: one per CPU)"
            );
        }
        let mut groups = std::collections::HashSet::new();
        for o in &self.quotas.overrides {
            if !groups.insert(o.group_id) {
                anyhow::bail!(
                    "invalid setting `quotas.overrides`: group {} is overridden twice",
                    o.group_id
                );
            }
        }
        if let Some(url) = &self.database.url {
            let url = url.expose_secret();
            if !(url.starts_with("postgres://")
                || url.starts_with("postgresql://")
                || url.starts_with("sqlite:"))
            {
                anyhow::bail!(
                    "invalid setting `database.url`: expected a postgres:// or sqlite: URL"
                );
            }
        }
        if let Some(read) = &self.database.read_url {
            let primary_is_postgres = self
                .database
                .url
                .as_ref()
                .is_some_and(|url| url.expose_secret().starts_with("postgres"));
            if !read.expose_secret().starts_with("postgres") || !primary_is_postgres {
                anyhow::bail!(
                    "invalid setting `database.read_url`: expected the postgres:// URL of a \
                     replica of a postgres:// `database.url`"
                );
            }
        }
        let partitions = self.redis.queue_partitions;
        if !(1..=parley_runtime::queue::redis::MAX_PARTITIONS).contains(&partitions) {
            anyhow::bail!(
                "invalid setting `redis.queue_partitions`: {partitions}; expected 1 to {}",
                parley_runtime::queue::redis::MAX_PARTITIONS
            );
        }
        if let Some(url) = &self.redis.url {
            let url = url.expose_secret();
            let scheme = [
                "redis://",
                "rediss://",
                "redis+cluster://",
                "rediss+cluster://",
            ];
            if !scheme.iter().any(|s| url.starts_with(s))
                || parley_runtime::topology::Topology::from_url(url).is_err()
            {
                anyhow::bail!(
                    "invalid setting `redis.url`: expected a valid redis:// or rediss:// URL \
                     (one server), or redis+cluster://host:port[,host:port…] (a cluster)"
                );
            }
        }
        if self
            .bootstrap_admin_token
            .as_ref()
            .is_some_and(|t| t.expose_secret().len() < 16)
        {
            anyhow::bail!(
                "invalid setting `bootstrap_admin_token`: must be at least 16 characters"
            );
        }
        if self.limits.max_body_bytes < 1024 {
            anyhow::bail!("invalid setting `limits.max_body_bytes`: must be at least 1024");
        }
        let most = parley_service::catalog::MAX_MESSAGE_CHARS;
        if !(1..=most).contains(&self.limits.max_message_chars) {
            anyhow::bail!("invalid setting `limits.max_message_chars`: must be from 1 to {most}");
        }
        if self.auth.feed_token_ttl_s == 0 {
            anyhow::bail!("invalid setting `auth.feed_token_ttl_s`: must be at least 1");
        }
        if self.auth.token_cache_s > MAX_TOKEN_CACHE_S {
            anyhow::bail!(
                "invalid setting `auth.token_cache_s`: {} (from 0 to {MAX_TOKEN_CACHE_S})",
                self.auth.token_cache_s
            );
        }
        if self.worker.concurrency == 0 {
            anyhow::bail!("invalid setting `worker.concurrency`: must be at least 1");
        }
        if self.worker.lease_s < 3 {
            anyhow::bail!("invalid setting `worker.lease_s`: must be at least 3");
        }
        if self.worker.heartbeat_s == 0 || self.worker.missed_heartbeats == 0 {
            anyhow::bail!(
                "invalid setting `worker.heartbeat_s` / `worker.missed_heartbeats`: must be at least 1"
            );
        }
        if self.worker.job_timeout_s == 0 {
            anyhow::bail!("invalid setting `worker.job_timeout_s`: must be at least 1");
        }
        for (i, model) in self.models.iter().enumerate() {
            if let Some(budget) = model.thinking_budget_tokens
                && (budget < MIN_THINKING_BUDGET || budget >= model.max_output_tokens)
            {
                anyhow::bail!(
                    "invalid setting `models[{i}].thinking_budget_tokens`: {budget} (at least \
                     {MIN_THINKING_BUDGET}, and below the model's `max_output_tokens`, {})",
                    model.max_output_tokens
                );
            }
            let prices = [
                ("input_usd_per_mtok", model.input_usd_per_mtok),
                ("output_usd_per_mtok", model.output_usd_per_mtok),
                ("cached_input_usd_per_mtok", model.cached_input_usd_per_mtok),
                ("cache_write_usd_per_mtok", model.cache_write_usd_per_mtok),
                ("reasoning_usd_per_mtok", model.reasoning_usd_per_mtok),
            ];
            for (key, price) in prices {
                if price.is_some_and(|p| !(p.is_finite() && p >= 0.0)) {
                    anyhow::bail!(
                        "invalid setting `models[{i}].{key}`: must be a number of dollars, 0 or more"
                    );
                }
            }
        }
        for (i, server) in self.mcp_servers.iter().enumerate() {
            let key = format!("mcp_servers[{i}]");
            let name_ok = !server.name.is_empty()
                && server.name.len() <= 32
                && server
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !name_ok {
                anyhow::bail!("invalid setting `{key}.name`: 1 to 32 letters, digits, `-` or `_`");
            }
            if self.mcp_servers[..i].iter().any(|s| s.name == server.name) {
                anyhow::bail!(
                    "invalid setting `{key}.name`: `{}` is named twice",
                    server.name
                );
            }
            if server.command.is_some() == server.url.is_some() {
                anyhow::bail!("invalid setting `{key}`: give either `command` or `url`");
            }
            if server.timeout_ms == 0 || server.connect_timeout_ms == 0 {
                anyhow::bail!("invalid setting `{key}`: timeouts must be at least 1 ms");
            }
        }
        if self.worker.breaker_failures == 0 || self.worker.breaker_open_s == 0 {
            anyhow::bail!(
                "invalid setting `worker.breaker_failures` / `worker.breaker_open_s`: must be at least 1"
            );
        }
        if self.worker.user_breaker_failures == 0 || self.worker.user_breaker_open_s == 0 {
            anyhow::bail!(
                "invalid setting `worker.user_breaker_failures` / `worker.user_breaker_open_s`: must be at least 1"
            );
        }
        for (i, provider) in self.providers.iter().enumerate() {
            if provider.connect_timeout_ms == 0 || provider.first_token_timeout_ms == 0 {
                anyhow::bail!(
                    "invalid setting `providers[{i}]`: connect_timeout_ms and first_token_timeout_ms must be at least 1 ms"
                );
            }
        }
        self.payload_registry()?;
        if self.files.max_file_bytes == 0
            || self.files.max_file_bytes > 100 * 1024 * 1024
            || self.files.max_text_chars == 0
        {
            anyhow::bail!(
                "invalid setting `files`: max_file_bytes from 1 to 104857600, max_text_chars at least 1"
            );
        }
        if self.files.max_attachments > 20 {
            anyhow::bail!("invalid setting `files.max_attachments`: at most 20");
        }
        if !(100..=600_000).contains(&self.files.extract_timeout_ms) {
            anyhow::bail!(
                "invalid setting `files.extract_timeout_ms`: from 100 to 600000 (10 minutes)"
            );
        }
        if !(MIN_EXTRACT_MEMORY_MB..=1024 * 1024).contains(&self.files.extract_max_memory_mb) {
            anyhow::bail!(
                "invalid setting `files.extract_max_memory_mb`: from {MIN_EXTRACT_MEMORY_MB} to 1048576"
            );
        }
        if self.database.max_connections == Some(0) {
            anyhow::bail!("invalid setting `database.max_connections`: must be at least 1");
        }
        for (key, filter) in [
            ("log.filter", &self.log.filter),
            ("telemetry.filter", &self.telemetry.filter),
        ] {
            if filter.parse::<tracing_subscriber::EnvFilter>().is_err() {
                anyhow::bail!("invalid setting `{key}`: not a tracing filter");
            }
        }
        if let Some(endpoint) = &self.telemetry.otlp_endpoint
            && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
        {
            anyhow::bail!(
                "invalid setting `telemetry.otlp_endpoint`: an http:// or https:// URL (OTLP over HTTP)"
            );
        }
        self.http.validate()?;
        Ok(())
    }
}
