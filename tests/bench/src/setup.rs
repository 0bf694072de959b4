//! Fixtures through the real admin API: a group, a chat tool in it, students who are
//! members of the group, each with a token, and sessions.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// The API and the bootstrap admin's token.
#[derive(Clone)]
pub struct Api {
    pub client: reqwest::Client,
    pub base: String,
    /// More api processes of the same deployment (`--more-api-url`): the users' turns
    /// are spread over `base` and these, user `i` on the `i mod n`-th.
    pub more: Vec<String>,
    pub admin_token: String,
}

/// A student with a bearer token.
#[derive(Debug, Clone)]
pub struct User {
    pub token: String,
}

pub struct Fixtures {
    pub tool_id: String,
    pub users: Vec<User>,
}

impl Api {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `path` on the api process that serves user `user`'s turns.
    pub fn url_for(&self, user: usize, path: &str) -> String {
        match user % (self.more.len() + 1) {
            0 => self.url(path),
            i => format!("{}{path}", self.more[i - 1]),
        }
    }

    /// Waits until `GET /readyz` answers 200 (database, queue and event log up).
    pub async fn wait_ready(&self, within: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + within;
        loop {
            let status = self
                .client
                .get(self.url("/readyz"))
                .send()
                .await
                .map(|r| r.status().as_u16());
            if status.as_ref().is_ok_and(|s| *s == 200) {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("the api at {} is not ready: {status:?}", self.base);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Sends a JSON request and expects `status`; returns the JSON answer.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: &Value,
        status: u16,
    ) -> anyhow::Result<Value> {
        let response = self
            .client
            .request(method.clone(), self.url(path))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .with_context(|| format!("{method} {path}"))?;
        let got = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        if got != status {
            bail!("{method} {path}: expected {status}, got {got}: {text}");
        }
        if text.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(&text).with_context(|| format!("{method} {path}: not JSON: {text}"))
    }

    pub async fn admin_post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        self.send(reqwest::Method::POST, path, &self.admin_token, &body, 201)
            .await
    }

    /// Creates the group, the tool (offering `functions`, running `modules`) and `users`
    /// students with tokens.
    pub async fn fixtures(
        &self,
        users: usize,
        functions: &[&str],
        modules: &[&str],
    ) -> anyhow::Result<Fixtures> {
        let modules: Vec<Value> = modules.iter().map(|m| json!({"name": m})).collect();
        let run = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or_default();
        let group = self
            .admin_post(
                "/v1/admin/groups",
                json!({"name": format!("bench {run}"), "parent_id": null, "settings": {}}),
            )
            .await?;
        let group_id = id(&group)?;
        let tool = self
            .admin_post(
                "/v1/admin/tools",
                json!({
                    "group_id": group_id,
                    "name": "Bench tutor",
                    "type": "chat",
                    "definition": {"behavior": "Answer briefly.", "functions": functions, "modules": modules},
                }),
            )
            .await?;
        let tool_id = id(&tool)?;
        let mut out = Vec::with_capacity(users);
        for i in 0..users {
            let email = format!("bench-{run}-{i}@bench.example");
            let user = self
                .admin_post(
                    "/v1/admin/users",
                    json!({"email": email, "name": format!("Bench student {i}"), "role": "student"}),
                )
                .await?;
            let user_id = id(&user)?;
            self.send(
                reqwest::Method::PUT,
                &format!("/v1/admin/groups/{group_id}/members/{user_id}"),
                &self.admin_token,
                &json!({"role": "member"}),
                200,
            )
            .await?;
            let token = self
                .admin_post(
                    &format!("/v1/admin/users/{user_id}/tokens"),
                    json!({"name": "bench"}),
                )
                .await?;
            let token = token["secret"]
                .as_str()
                .context("no `secret` in the created token")?
                .to_owned();
            out.push(User { token });
        }
        Ok(Fixtures {
            tool_id,
            users: out,
        })
    }

    /// Opens a session with the tool as `user`; returns its id.
    pub async fn open_session(&self, user: &User, tool_id: &str) -> anyhow::Result<String> {
        let session = self
            .send(
                reqwest::Method::POST,
                "/v1/sessions",
                &user.token,
                &json!({"tool_id": tool_id}),
                201,
            )
            .await?;
        id(&session)
    }
}

fn id(value: &Value) -> anyhow::Result<String> {
    value["id"]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("no `id` in {value}"))
}
