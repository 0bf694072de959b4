//! What a model's tokens cost: the per-model prices of `[[models]]`, applied to each LLM
//! call's token counts when its `ai_usage` row is written.

/// A model's price per million tokens, in US dollars (0 when not configured).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Price {
    pub input_usd_per_mtok: f64,
    pub output_usd_per_mtok: f64,
}

/// Tokens in a million: prices are quoted per million tokens.
const MTOK: f64 = 1_000_000.0;

impl Price {
    /// The cost of one call in US dollars: input and output tokens, each at its price.
    pub fn cost_usd(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.input_usd_per_mtok
            + output_tokens as f64 * self.output_usd_per_mtok)
            / MTOK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_costs_its_tokens_at_their_prices() {
        let price = Price {
            input_usd_per_mtok: 3.0,
            output_usd_per_mtok: 15.0,
        };
        // 1 000 input tokens at $3/M + 2 000 output tokens at $15/M = 0.003 + 0.03.
        assert!((price.cost_usd(1_000, 2_000) - 0.033).abs() < 1e-12);
        assert!((price.cost_usd(1_000_000, 0) - 3.0).abs() < 1e-12);
        assert!((price.cost_usd(0, 1_000_000) - 15.0).abs() < 1e-12);
        assert_eq!(price.cost_usd(0, 0), 0.0);
    }

    #[test]
    fn an_unpriced_model_costs_nothing() {
        assert_eq!(Price::default().cost_usd(12_345, 678), 0.0);
    }
}
