//! What a deployment serves and accepts: its models and its input limits; and its
//! providers, as operators see them.

use std::sync::Arc;

use parley_runtime::breaker::{BreakerError, BreakerState, Breakers};

/// The deployment's model providers (`GET /v1/admin/providers`): each with the models
/// it serves, and the breakers the workers share.
#[derive(Clone, Default)]
pub struct Providers {
    pub entries: Arc<[ProviderEntry]>,
    /// The provider breakers (keyed by name); none with the offline demo model only.
    pub breakers: Option<Arc<dyn Breakers>>,
}

impl Providers {
    /// The breaker of provider `name` at `now_ms`, as the shared store says; closed when
    /// there are no breakers (the offline demo model only).
    pub async fn breaker_state(
        &self,
        name: &str,
        now_ms: i64,
    ) -> Result<BreakerState, BreakerError> {
        match &self.breakers {
            None => Ok(BreakerState::Closed { failures: 0 }),
            Some(breakers) => breakers.state(name, now_ms).await,
        }
    }
}

/// One provider and the model ids it serves.
#[derive(Debug, Clone)]
pub struct ProviderEntry {
    pub name: String,
    pub models: Vec<String>,
}

/// The models clients may ask for.
#[derive(Debug, Clone)]
pub struct Models {
    /// Every model id; the first is the default (shared with every turn submitted).
    pub ids: std::sync::Arc<[String]>,
    /// The models a turn may not ask for a structured output.
    pub text_only: std::sync::Arc<[String]>,
    /// The models that read images (`vision`).
    pub seeing: std::sync::Arc<[String]>,
}

impl Models {
    pub fn default_model(&self) -> &str {
        self.ids.first().map(String::as_str).unwrap_or_default()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.iter().any(|m| m == id)
    }

    /// Whether model `id` reads images.
    pub fn vision(&self, id: &str) -> bool {
        self.seeing.iter().any(|m| m == id)
    }

    /// Whether a turn may ask model `id` for a structured output.
    pub fn structured_outputs(&self, id: &str) -> bool {
        !self.text_only.iter().any(|m| m == id)
    }
}

/// Limits on what a turn may carry.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The longest message accepted, in characters (Unicode scalar values), as the API
    /// document's `maxLength` counts them.
    pub max_message_chars: usize,
}

/// The default [`Limits::max_message_chars`]; the API document states it.
pub const MAX_MESSAGE_CHARS: usize = 32 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_message_chars: MAX_MESSAGE_CHARS,
        }
    }
}
