//! What a model's tokens cost: the per-model prices of `[[models]]`, one per token kind
//! (DESIGN §14), applied to each LLM call's token counts when its `ai_usage` row is
//! written and when a budget holds and settles the call.
//!
//! Input tokens read from a prompt cache, written to one, and output tokens spent
//! thinking each have a price of their own; a kind whose price is not set costs what
//! its whole counts (cached reads and cache writes the input price, reasoning the
//! output price) — never silently nothing.

use parley_protocol::events::Usage;

/// A model's prices per million tokens, in US dollars (0 when not configured).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Price {
    pub input_usd_per_mtok: f64,
    pub output_usd_per_mtok: f64,
    /// Input read from the provider's prompt cache (Anthropic and OpenAI: a tenth of
    /// the input price); `None`: the input price.
    pub cached_input_usd_per_mtok: Option<f64>,
    /// Input written to the prompt cache (Anthropic: 1.25 × the input price for the
    /// 5-minute cache); `None`: the input price.
    pub cache_write_usd_per_mtok: Option<f64>,
    /// Output spent thinking; `None`: the output price.
    pub reasoning_usd_per_mtok: Option<f64>,
}

/// Tokens in a million: prices are quoted per million tokens.
const MTOK: f64 = 1_000_000.0;

impl Price {
    /// A price for input and output only (the other kinds at those prices).
    pub fn plain(input_usd_per_mtok: f64, output_usd_per_mtok: f64) -> Self {
        Self {
            input_usd_per_mtok,
            output_usd_per_mtok,
            ..Self::default()
        }
    }

    fn cached_input(&self) -> f64 {
        self.cached_input_usd_per_mtok
            .unwrap_or(self.input_usd_per_mtok)
    }

    fn cache_write(&self) -> f64 {
        self.cache_write_usd_per_mtok
            .unwrap_or(self.input_usd_per_mtok)
    }

    fn reasoning(&self) -> f64 {
        self.reasoning_usd_per_mtok
            .unwrap_or(self.output_usd_per_mtok)
    }

    /// The cost of one call in US dollars: each kind of token at its price.
    pub fn cost_usd(&self, tokens: &Usage) -> f64 {
        let reasoning = tokens.reasoning_tokens.min(tokens.output_tokens);
        (tokens.uncached_input_tokens() as f64 * self.input_usd_per_mtok
            + tokens.cached_input_tokens as f64 * self.cached_input()
            + tokens.cache_write_tokens as f64 * self.cache_write()
            + (tokens.output_tokens - reasoning) as f64 * self.output_usd_per_mtok
            + reasoning as f64 * self.reasoning())
            / MTOK
    }

    /// The most `input` and `output` tokens can cost, whatever their kinds turn out to
    /// be: each at the dearest price it could be charged (what a budget holds before a
    /// call).
    pub fn worst_case_usd(&self, input: u64, output: u64) -> f64 {
        let input_price = self
            .input_usd_per_mtok
            .max(self.cached_input())
            .max(self.cache_write());
        let output_price = self.output_usd_per_mtok.max(self.reasoning());
        (input as f64 * input_price + output as f64 * output_price) / MTOK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_costs_its_tokens_at_their_prices() {
        let price = Price::plain(3.0, 15.0);
        // 1 000 input tokens at $3/M + 2 000 output tokens at $15/M = 0.003 + 0.03.
        assert!((price.cost_usd(&Usage::plain(1_000, 2_000)) - 0.033).abs() < 1e-12);
        assert!((price.cost_usd(&Usage::plain(1_000_000, 0)) - 3.0).abs() < 1e-12);
        assert!((price.cost_usd(&Usage::plain(0, 1_000_000)) - 15.0).abs() < 1e-12);
        assert_eq!(price.cost_usd(&Usage::default()), 0.0);
    }

    #[test]
    fn each_kind_costs_its_own_price_and_an_unset_one_its_wholes() {
        // Claude Sonnet's list prices: $3 input, $0.30 cache read, $3.75 cache write,
        // $15 output.
        let claude = Price {
            cached_input_usd_per_mtok: Some(0.3),
            cache_write_usd_per_mtok: Some(3.75),
            ..Price::plain(3.0, 15.0)
        };
        let call = Usage {
            input_tokens: 10_000,
            cached_input_tokens: 8_000,
            cache_write_tokens: 1_000,
            output_tokens: 500,
            reasoning_tokens: 200,
        };
        // 1 000 × 3 + 8 000 × 0.3 + 1 000 × 3.75 + 500 × 15, per million.
        let expected = (3_000.0 + 2_400.0 + 3_750.0 + 7_500.0) / MTOK;
        assert!((claude.cost_usd(&call) - expected).abs() < 1e-12);
        // Unset: cached input and cache writes cost the input price, reasoning the
        // output price — the same as the plain counts.
        let plain = Price::plain(3.0, 15.0);
        assert!((plain.cost_usd(&call) - plain.cost_usd(&Usage::plain(10_000, 500))).abs() < 1e-12);
        // A reasoning price of its own.
        let thinker = Price {
            reasoning_usd_per_mtok: Some(60.0),
            ..Price::plain(0.0, 15.0)
        };
        let expected = (300.0 * 15.0 + 200.0 * 60.0) / MTOK;
        assert!((thinker.cost_usd(&call) - expected).abs() < 1e-12);
    }

    #[test]
    fn the_worst_case_prices_every_token_at_its_dearest_kind() {
        let claude = Price {
            cached_input_usd_per_mtok: Some(0.3),
            cache_write_usd_per_mtok: Some(3.75),
            ..Price::plain(3.0, 15.0)
        };
        assert!((claude.worst_case_usd(1_000, 100) - (3_750.0 + 1_500.0) / MTOK).abs() < 1e-12);
        let call = Usage {
            input_tokens: 1_000,
            cache_write_tokens: 1_000,
            output_tokens: 100,
            ..Usage::default()
        };
        assert!(claude.cost_usd(&call) <= claude.worst_case_usd(1_000, 100));
    }

    #[test]
    fn an_unpriced_model_costs_nothing() {
        assert_eq!(Price::default().cost_usd(&Usage::plain(12_345, 678)), 0.0);
    }
}
