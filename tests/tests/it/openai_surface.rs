//! What the OpenAI-surface tests of the request's own options share: a `parley serve`
//! configured against a mock LLM, a student of a group with a plain chat tool, and
//! requests as that student.

use parley_mock_llm::MockLlm;
use parley_tests::turns::config_path;
use parley_tests::{Backend, TestApp, TestResponse};
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{self, id};

pub struct Surface {
    pub app: TestApp,
    pub mock: MockLlm,
    /// The student's token.
    pub token: String,
    /// The student's group, which holds the tools.
    pub group: String,
    _config: tempfile::NamedTempFile,
}

impl Surface {
    /// `parley serve` on `backend` with `config` (whose providers point at `mock`), and
    /// a student `email` of a group with one plain tool (the first the student may use).
    pub async fn start(
        backend: Backend,
        mock: MockLlm,
        config: tempfile::NamedTempFile,
        email: &str,
    ) -> Self {
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
        let (user_id, token) = app.create_user(email, "student").await;
        let group = fixtures::group(&app, "callers", None, json!({})).await;
        fixtures::add_member(&app, &id(&group), &user_id).await;
        fixtures::tool(
            &app,
            &id(&group),
            "Plain tutor",
            json!({"behavior": "Help."}),
        )
        .await;
        Self {
            group: id(&group),
            app,
            mock,
            token,
            _config: config,
        }
    }

    /// `POST path` with a JSON body, as the student.
    pub async fn post(&self, path: &str, body: &Value) -> TestResponse {
        let request = self
            .app
            .request(Method::POST, path, Some(&self.token))
            .json(body);
        self.app.send(request).await
    }

    /// A tool of the student's group; its OpenAI model id (`tool:<id>`).
    pub async fn tool(&self, name: &str, definition: Value) -> String {
        let tool = fixtures::tool(&self.app, &self.group, name, definition).await;
        format!("tool:{}", id(&tool))
    }

    /// The body of the last request the model got.
    pub fn last_sent(&self) -> Value {
        let sent = self.mock.requests();
        sent.last().expect("the model was called").body.clone()
    }
}
