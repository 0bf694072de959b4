//! The webhook module kind: POSTs the [`HookContext`] as JSON to an operator's URL and
//! reads a [`HookResult`] back.
//!
//! Every request is signed so the receiver can tell it comes from this deployment and is
//! fresh: `X-Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over
//! `"<t>.<body>"` with the module's `secret` (the scheme of Stripe's webhooks; the
//! receiver should refuse a `t` older than a few minutes). `X-Parley-Hook` names the
//! hook. An answer that is not a 2xx with a `HookResult` body (at most 1 MiB) is an
//! error: the module is skipped, or blocks when it is fail-closed. The secret is never
//! logged.
//!
//! Requests go through Parley's outbound client ([`crate::outbound`]): a redirect is
//! followed only on the URL's own origin (307/308), and with
//! `outbound.deny_private_addresses` the URL and every address it resolves to must be
//! public. A refusal is the module's error like any other.

use async_trait::async_trait;
use hmac::{Hmac, Mac};
use parley_protocol::hooks::{HookContext, HookResult};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use sha2::Sha256;

use super::{ConfigError, Module, ModuleError, settings_object};
use crate::outbound::{Outbound, describe};

/// The largest answer read from a receiver.
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Why a URL does not parse (the `url` crate's error, through reqwest).
pub type UrlError = <reqwest::Url as std::str::FromStr>::Err;

/// Why a webhook's `url` or `secret` is not usable.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("`url`: {0}")]
    Url(#[source] UrlError),
    #[error("`url` must be http or https")]
    Scheme,
    #[error("`secret` must be at least 16 characters")]
    ShortSecret,
}

/// A webhook module.
pub struct Webhook {
    url: reqwest::Url,
    secret: SecretString,
    http: Outbound,
}

impl Webhook {
    pub fn new(url: String, secret: SecretString, http: Outbound) -> Result<Self, WebhookError> {
        let url = reqwest::Url::parse(&url).map_err(WebhookError::Url)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(WebhookError::Scheme);
        }
        if secret.expose_secret().len() < 16 {
            return Err(WebhookError::ShortSecret);
        }
        Ok(Self { url, secret, http })
    }
}

/// The signature header's value for `body` sent at `timestamp` (unix seconds).
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any size");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac.finalize().into_bytes())
    )
}

#[async_trait]
impl Module for Webhook {
    /// Any object: the receiver reads it (as the context's `config`).
    fn check_config(&self, config: &Value) -> Result<(), ConfigError> {
        settings_object(config).map(|_| ())
    }

    async fn run(&self, ctx: &HookContext) -> Result<HookResult, ModuleError> {
        self.check_config(&ctx.config)?;
        self.http
            .check_url(&self.url)
            .map_err(|e| ModuleError::Failed(format!("the webhook is not reached: {e}")))?;
        let body = serde_json::to_vec(ctx).map_err(|e| ModuleError::Failed(e.to_string()))?;
        let timestamp = chrono::Utc::now().timestamp();
        let signed = signature(self.secret.expose_secret(), timestamp, &body);
        let mut response = self
            .http
            .client()
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("x-parley-signature", signed)
            .header("x-parley-hook", ctx.request.hook.as_str())
            .body(body)
            .send()
            .await
            .map_err(|e| {
                ModuleError::Failed(format!(
                    "the webhook could not be reached: {}",
                    describe(&e)
                ))
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(ModuleError::Failed(format!(
                "the webhook answered {status}"
            )));
        }
        let mut answer = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            ModuleError::Failed(format!("reading the webhook's answer: {}", describe(&e)))
        })? {
            if answer.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(ModuleError::Failed(
                    "the webhook's answer is larger than 1 MiB".into(),
                ));
            }
            answer.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&answer).map_err(|e| {
            ModuleError::Failed(format!("the webhook's answer is not a HookResult: {e}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parley_protocol::hooks::{Hook, Modifications};
    use poem::{
        IntoResponse, Response, handler,
        http::StatusCode,
        listener::{Acceptor, Listener},
    };

    use crate::modules::{
        ModuleKind, ModuleSettings,
        conformance::{Example, Expect, Harness, conformance_suite},
    };

    const SECRET: &str = "0123456789abcdef-conformance";

    /// An operator's receiver: refuses requests not signed with [`SECRET`], blocks a
    /// message that says "forbidden", masks the word "password", passes the rest.
    #[handler]
    fn receive(req: &poem::Request, body: Vec<u8>) -> Response {
        let header = req.header("x-parley-signature").unwrap_or_default();
        let signed = header
            .split(',')
            .find_map(|part| part.strip_prefix("t="))
            .and_then(|t| t.parse::<i64>().ok())
            .is_some_and(|t| signature(SECRET, t, &body) == header);
        let Some(ctx) = signed
            .then(|| serde_json::from_slice::<HookContext>(&body).ok())
            .flatten()
        else {
            return StatusCode::UNAUTHORIZED.into_response();
        };
        let message = ctx
            .conversation
            .current_message
            .map(|m| m.content)
            .unwrap_or_default();
        let result = if message.contains("forbidden") {
            HookResult::block(
                "forbidden_topic",
                "the message names a forbidden topic".into(),
                "Let's talk about something else.".into(),
            )
        } else if message.contains("password") {
            HookResult {
                modifications: Some(Modifications {
                    message_content: Some(message.replace("password", "[masked]")),
                    ..Modifications::default()
                }),
                ..HookResult::default()
            }
        } else {
            HookResult::proceed()
        };
        poem::web::Json(result).into_response()
    }

    /// A webhook module posting to [`receive`] on a local port.
    struct Receiver;

    #[async_trait]
    impl Harness for Receiver {
        async fn settings(&self) -> ModuleSettings {
            let acceptor = poem::listener::TcpListener::bind("127.0.0.1:0")
                .into_acceptor()
                .await
                .expect("a port");
            let addr = acceptor
                .local_addr()
                .first()
                .and_then(|a| a.as_socket_addr().copied())
                .expect("an address");
            tokio::spawn(poem::Server::new_with_acceptor(acceptor).run(receive));
            ModuleSettings {
                url: Some(format!("http://{addr}/hook")),
                secret: Some(SECRET.into()),
                ..ModuleSettings::builtin("operator_hook", ModuleKind::Webhook)
            }
        }

        fn refused(&self) -> Vec<(Value, &'static str)> {
            // Any object is the receiver's to read.
            Vec::new()
        }

        fn examples(&self) -> Vec<Example> {
            vec![
                Example::new(
                    Hook::BeforeAi,
                    "Tell me about the forbidden topic",
                    Expect::Block,
                ),
                Example::new(Hook::BeforeAi, "My password is hunter2", Expect::Modify),
            ]
        }
    }

    conformance_suite!(Receiver);

    #[test]
    fn signature_is_hmac_sha256_of_timestamp_dot_body() {
        // Computed independently: printf '1700000000.{}' | openssl dgst -sha256 -hmac 'k'
        let sig = signature("k", 1_700_000_000, b"{}");
        assert_eq!(
            sig,
            "t=1700000000,v1=c6ef4734033cee2367414a0939385eca0397754aa7a59716da7463a9298b5146"
        );
        assert_ne!(sig, signature("k2", 1_700_000_000, b"{}"));
        assert_ne!(sig, signature("k", 1_700_000_001, b"{}"));
    }

    #[test]
    fn url_and_secret_are_checked() {
        let http = Outbound::new(Default::default()).unwrap();
        let secret = || SecretString::from("0123456789abcdef");
        assert!(Webhook::new("ftp://x".into(), secret(), http.clone()).is_err());
        assert!(Webhook::new("not a url".into(), secret(), http.clone()).is_err());
        assert!(Webhook::new("http://h/".into(), "short".into(), http.clone()).is_err());
        assert!(Webhook::new("https://h/hook".into(), secret(), http).is_ok());
    }
}
