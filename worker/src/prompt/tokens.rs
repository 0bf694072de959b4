//! Counting tokens as the model's provider will (#45 item 6): with the model's tokenizer
//! where one is known (tiktoken's encodings for OpenAI's models), else from the text's
//! length, corrected by what the provider reported for earlier calls.
//!
//! A count without a tokenizer starts at four characters a token and then follows the
//! model: the first call whose usage the provider reported sets the model's correction
//! to the ratio of its input tokens to this worker's estimate of the same request, and
//! each later one moves it (an exponentially weighted mean, bounded to 1/5–5×). So the
//! context budget and the worst case a budget holds come within a few percent of the
//! provider's own count from the first reported call on, where the plain length estimate
//! was twice the real count on some models. The correction lives in the process: each worker learns it again.

use std::{
    collections::HashMap,
    sync::{Mutex, OnceLock},
};

use tiktoken_rs::CoreBPE;

use crate::providers::{ChatMessage, FunctionOffer};

/// Tokens a chat message costs beyond its text (role and separators).
pub const PER_MESSAGE_OVERHEAD: usize = 4;

/// How much one call's observation moves a model's correction.
const LEARNING_RATE: f64 = 0.3;
/// The correction's bounds: a provider's count this far off the estimate is not a ratio
/// to follow (a reply that was a refusal, a prompt mostly images).
const BOUNDS: (f64, f64) = (0.2, 5.0);

/// The tokenizer of a model, if tiktoken knows it. Looked up once per model name: the
/// lookup of an unknown model builds an error (with a backtrace when `RUST_BACKTRACE` is
/// set), too costly for every message of every turn.
fn tokenizer(model: &str) -> Option<&'static CoreBPE> {
    static KNOWN: OnceLock<Mutex<HashMap<String, Option<&'static CoreBPE>>>> = OnceLock::new();
    let mut known = KNOWN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *known
        .entry(model.to_owned())
        .or_insert_with(|| tiktoken_rs::bpe_for_model(model).ok())
}

/// The corrections learned so far, by model.
fn corrections() -> &'static Mutex<HashMap<String, f64>> {
    static LEARNED: OnceLock<Mutex<HashMap<String, f64>>> = OnceLock::new();
    LEARNED.get_or_init(Default::default)
}

/// How one model's tokens are counted: its tokenizer, or its length ratio and the
/// correction learned for it. Taken once per turn (or call) and used for every text.
#[derive(Clone, Copy)]
pub struct Counter {
    bpe: Option<&'static CoreBPE>,
    correction: f64,
}

impl Counter {
    /// The counter of `model` (the provider's name for it), as this worker knows it now.
    pub fn of(model: &str) -> Self {
        let bpe = tokenizer(model);
        let correction = match bpe {
            Some(_) => 1.0,
            None => corrections()
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .get(model)
                .copied()
                .unwrap_or(1.0),
        };
        Self { bpe, correction }
    }

    /// The estimate before the correction: the tokenizer's count, or a token per four
    /// characters.
    fn raw(&self, text: &str) -> usize {
        match self.bpe {
            Some(bpe) => bpe.encode_ordinary(text).len(),
            None => text.chars().count().div_ceil(4),
        }
    }

    /// `raw` tokens as the provider counts them: the correction applies to the whole
    /// estimate, the per-message overhead included (a provider's count of a short message
    /// is mostly its overhead, or none of it).
    fn corrected(&self, raw: usize) -> usize {
        if self.correction == 1.0 {
            raw
        } else {
            (raw as f64 * self.correction).ceil() as usize
        }
    }

    /// The tokens of `text`.
    pub fn count(&self, text: &str) -> usize {
        self.corrected(self.raw(text))
    }

    /// The tokens of `text` as one chat message.
    pub fn message(&self, text: &str) -> usize {
        self.corrected(self.raw(text) + PER_MESSAGE_OVERHEAD)
    }

    /// The input tokens of a request: its messages, the functions offered and the
    /// partial answer it continues (corrected once, over the whole).
    pub fn request(
        &self,
        messages: &[ChatMessage],
        offers: &[FunctionOffer],
        partial: Option<&str>,
    ) -> u64 {
        let messages: usize = messages
            .iter()
            .map(|m| m.content.as_str())
            .chain(partial)
            .map(|content| self.raw(content) + PER_MESSAGE_OVERHEAD)
            .sum();
        let offers: usize = offers
            .iter()
            .map(|o| self.raw(&o.to_wire().to_string()))
            .sum();
        self.corrected(messages + offers) as u64
    }

    /// Whether this counter learns from reports (it has no tokenizer).
    pub fn learns(&self) -> bool {
        self.bpe.is_none()
    }
}

/// What a provider reported of a request this worker counted as `estimated` (with the
/// counter of the time, correction included): `reported` input tokens. Moves the model's
/// correction toward the ratio; a model with a tokenizer is counted as it is.
pub fn learn(model: &str, estimated: u64, reported: u64) {
    if estimated == 0 || reported == 0 || tokenizer(model).is_some() {
        return;
    }
    let mut learned = corrections()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match learned.get_mut(model) {
        // The estimate already carried the correction: the ratio says how far it still is.
        Some(correction) => {
            let observed =
                (*correction * reported as f64 / estimated as f64).clamp(BOUNDS.0, BOUNDS.1);
            *correction = (*correction * (1.0 - LEARNING_RATE) + observed * LEARNING_RATE)
                .clamp(BOUNDS.0, BOUNDS.1);
            tracing::trace!(
                model,
                estimated,
                reported,
                correction = *correction,
                "token count corrected"
            );
        }
        // The first report is all there is to go by: the model's ratio is its.
        None => {
            let observed = (reported as f64 / estimated as f64).clamp(BOUNDS.0, BOUNDS.1);
            learned.insert(model.to_owned(), observed);
            tracing::debug!(
                model,
                estimated,
                reported,
                correction = observed,
                "token count learned"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_without_a_tokenizer_learns_its_providers_count() {
        let model = "learning-test-model";
        let text = "one two three four five six seven eight nine ten";
        let before = Counter::of(model).count(text);
        assert_eq!(
            before,
            text.chars().count().div_ceil(4),
            "four characters a token"
        );
        // The provider counts words: 10 for this text, far below the estimate.
        for _ in 0..20 {
            let counter = Counter::of(model);
            let estimated = counter.count(text) as u64;
            learn(model, estimated, 10);
        }
        let after = Counter::of(model).count(text);
        assert!(
            (9..=11).contains(&after),
            "within a token of the provider's: {after}"
        );
        // A wild report moves it within the bounds only.
        for _ in 0..50 {
            learn(model, 1, 1_000_000);
        }
        let capped = Counter::of(model).count(text);
        assert!(capped <= before * 5 + 1, "{capped}");
    }

    #[test]
    fn a_model_with_a_tokenizer_is_counted_by_it() {
        let counter = Counter::of("gpt-4o");
        assert!(!counter.learns());
        let exact = tokenizer("gpt-4o")
            .unwrap()
            .encode_ordinary("hello world")
            .len();
        learn("gpt-4o", 100, 1);
        assert_eq!(Counter::of("gpt-4o").count("hello world"), exact);
    }
}
