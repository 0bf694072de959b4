//! [`ResponseExtras`]: what a turn's answer carries besides its text and calls, recorded
//! on the prompt (`prompts.response`) so a rebuilt `complete` says the same, and why an
//! answer stopped early or came from another model ([`StopReason`], [`FallbackReason`]).

use serde::{Deserialize, Serialize};

use super::{CustomPayload, SuggestedAction, SuggestedValue, shared_enum};

/// What an answer carries besides its text and its function calls: the payload and the
/// suggestions taken out of the model's text (or the last function payload). Recorded on
/// the prompt (`prompts.response`) so a rebuilt `complete` carries them too.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "db", derive(sea_orm::FromJsonQueryResult))]
pub struct ResponseExtras {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_payload: Option<CustomPayload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_values: Option<Vec<SuggestedValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_actions: Option<Vec<SuggestedAction>>,
    /// What modules did to the answer (absent: nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moderation: Option<Moderation>,
    /// Another model of the fallback chain answered (absent: the model asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Fallback>,
    /// The answer was cut before the model was done (absent: it finished).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
}

/// The model asked for did not answer a turn, and why (`prompts.response`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fallback {
    pub from: String,
    pub reason: FallbackReason,
}

/// What modules did to a turn's answer: blocked it (the message or the answer), or
/// replaced text that had already been streamed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moderation {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blocked: bool,
    /// The block's category (e.g. `self_harm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The module that blocked or replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replaced: bool,
}

impl ResponseExtras {
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

shared_enum! {
    /// Why an answer stopped before the model was done with it: the `stop_reason` of
    /// `complete` (absent: the model finished).
    pub enum StopReason {
        /// It reached the most tokens an answer may have (the request's, the tool's or
        /// the model's limit).
        MaxTokens = "max_tokens",
    }
}

shared_enum! {
    /// Why a turn left the model it asked for for the next one in the model's fallback
    /// chain (DESIGN §10): the `reason` of a `fallback` event and of `complete`.
    pub enum FallbackReason {
        /// The provider's circuit breaker is open: no call was made.
        CircuitOpen = "circuit_open",
        /// This user's turns failed repeatedly: their breaker sends them to the chain.
        UserBreaker = "user_breaker",
        /// The provider could not be reached.
        Unreachable = "unreachable",
        /// The provider answered with an error status (5xx), or its stream broke before
        /// any output.
        UpstreamError = "upstream_error",
        /// The provider is rate limiting (429).
        RateLimited = "rate_limited",
        /// Nothing came within the provider's first-token timeout.
        NoFirstToken = "no_first_token",
        /// The provider refused the request (4xx other than 429).
        Refused = "refused",
    }
}
