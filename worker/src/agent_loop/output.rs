//! A turn that asked for a structured output (`response_format`): the model is asked for
//! it with every call, and its answer is checked before the turn completes. An answer
//! that does not fit is taken back — the sink held it, so no reader saw it — and the
//! model is asked once more, told what was wrong; a second misfit ends the turn with
//! `output_mismatch`, its error naming the place in the value.

use parley_protocol::error::ErrorCode;
use parley_protocol::output::ResponseFormat;
use parley_service::structured::{Checker, Misfit};

use super::{Generation, LoopEnd, Sink, blocks, model_call};
use crate::providers::ChatMessage;

/// How many times a misfit is asked again.
pub const REPAIRS: u32 = 1;

/// The format a turn's answer must have, its schema compiled.
pub struct Output {
    pub format: ResponseFormat,
    pub checker: Checker,
}

/// Where the answer begins in the turn's generation: its text and its blocks.
pub(super) struct Answer {
    pub text_from: usize,
    pub blocks_from: usize,
}

/// What the model is told of its answer's misfit.
pub fn repair_prompt(misfit: &Misfit) -> String {
    format!(
        "Your answer does not fit the required JSON schema: {misfit}. Answer again with only \
         the JSON value, fixed, and nothing else."
    )
}

impl Output {
    /// The format of a turn, its schema compiled; `None` when it asked none, or when
    /// the schema does not compile (the api refused such a turn: logged, not asked).
    pub fn of(format: Option<&ResponseFormat>) -> Option<Self> {
        let format = format?.clone();
        match Checker::new(&format) {
            Ok(checker) => Some(Self { format, checker }),
            Err(problem) => {
                tracing::warn!(%problem, "a turn's response format does not compile; ignored");
                None
            }
        }
    }

    /// Checks the answer the model just gave (from `at`) and, when it does not fit,
    /// asks again (`REPAIRS` times) on `request`'s messages with the answer and what was
    /// wrong after them. The loop's end.
    pub(super) async fn settle(
        &self,
        request: &model_call::Request<'_>,
        at: Answer,
        position: &mut model_call::Position,
        sink: &mut dyn Sink,
        generation: &mut Generation,
    ) -> LoopEnd {
        let mut messages = request.messages.to_vec();
        let mut repairs = 0;
        loop {
            let said = generation.text()[at.text_from..].to_owned();
            let misfit = match self.checker.check(&said) {
                Ok(_) => return LoopEnd::Completed,
                Err(misfit) => misfit,
            };
            tracing::info!(%misfit, repairs, "the answer does not fit its response format");
            if repairs >= REPAIRS || !blocks::retract(generation, at.blocks_from, sink) {
                generation.failure = Some(format!(
                    "the model's answer does not fit the requested response format ({misfit})"
                ));
                return LoopEnd::Failed {
                    code: ErrorCode::OutputMismatch,
                    produced: !generation.drafts.is_empty(),
                };
            }
            repairs += 1;
            messages.push(ChatMessage::assistant(said));
            messages.push(ChatMessage::user(repair_prompt(&misfit)));
            let again = model_call::Request {
                messages: &messages,
                partial: None,
                ..*request
            };
            match model_call::with_retries(&again, position, sink, generation).await {
                // An answer in words is checked; functions are not called for a repair.
                Ok(called) if called.requested.is_empty() => {}
                Ok(_) => {
                    generation.failure = Some(
                        "the model called functions instead of fixing its answer to the requested response format"
                            .into(),
                    );
                    return LoopEnd::Failed {
                        code: ErrorCode::OutputMismatch,
                        produced: !generation.drafts.is_empty(),
                    };
                }
                Err(end) => return end,
            }
        }
    }
}
