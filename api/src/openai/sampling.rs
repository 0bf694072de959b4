//! A request's sampling parameters ([`Sampling`]) read from the OpenAI-compatible
//! requests, checked against OpenAI's ranges and the session's bounds (a tool may fix or
//! bound them), and the problem that names the parameter when one cannot be used.

use parley_protocol::error::ErrorCode;
use parley_protocol::sampling::{Refused, Sampling, SamplingBounds};

use super::types::{ChatCompletionRequest, ChatStop, ResponseCreateRequest};
use crate::error::Problem;

/// The sampling a request asks for, and what its client calls the token limit.
#[derive(Debug, Clone)]
pub struct Asked {
    pub sampling: Sampling,
    /// The request's name for `max_output_tokens` (`max_completion_tokens`,
    /// `max_tokens`), so a refusal names the field the client sent.
    pub tokens_param: &'static str,
}

impl Asked {
    /// The problem naming the first value outside OpenAI's ranges (checked before
    /// anything is opened or read).
    pub fn check(&self) -> Result<(), Box<Problem>> {
        self.sampling
            .check()
            .map_err(|refused| self.problem(refused))
    }

    /// The values the turn's calls use: within the session's `bounds` (clamped, or
    /// refused as they say), or the problem naming the parameter.
    pub fn within(&self, bounds: &SamplingBounds) -> Result<Sampling, Box<Problem>> {
        bounds
            .apply(&self.sampling, bounds.mode())
            .map_err(|refused| self.problem(refused))
    }

    fn problem(&self, refused: Refused) -> Box<Problem> {
        let param = match refused.param {
            "max_output_tokens" => self.tokens_param,
            other => other,
        };
        Box::new(
            Problem::new(
                ErrorCode::InvalidParameter,
                format!("`{param}`: {}", refused.reason),
            )
            .param(param),
        )
    }
}

impl ChatCompletionRequest {
    /// The sampling this request asks for.
    pub fn asked(&self) -> Asked {
        let tokens = match (self.max_completion_tokens, self.max_tokens) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let tokens_param = match (self.max_completion_tokens, self.max_tokens) {
            (None, Some(_)) => "max_tokens",
            _ => "max_completion_tokens",
        };
        Asked {
            sampling: Sampling {
                max_output_tokens: tokens,
                temperature: self.temperature,
                top_p: self.top_p,
                stop: match &self.stop {
                    None => Vec::new(),
                    Some(ChatStop::One(one)) => vec![one.clone()],
                    Some(ChatStop::Many(many)) => many.clone(),
                },
                seed: self.seed,
                presence_penalty: self.presence_penalty,
                frequency_penalty: self.frequency_penalty,
            },
            tokens_param,
        }
    }
}

impl ResponseCreateRequest {
    /// The sampling this request asks for.
    pub fn asked(&self) -> Asked {
        Asked {
            sampling: Sampling {
                max_output_tokens: self.max_output_tokens,
                temperature: self.temperature,
                top_p: self.top_p,
                ..Sampling::default()
            },
            tokens_param: "max_output_tokens",
        }
    }
}
