//! The after-hooks stage: the session's modules at `chat:after_ai` see a completed
//! answer and may block or replace it. Held-back events (hold-back: nobody has seen the
//! answer yet) are released when the answer stands, and dropped and replaced by the final
//! text when it does not; without hold-back the readers saw the original, and the
//! replacement is recorded as such.

use parley_entity::block_meta::BlockMeta;
use parley_entity::enums::ModuleOutcome;
use parley_entity::query::conversation::BlockDraft;
use parley_protocol::events::Moderation;
use parley_service::modules::runner::HookOutcome;

use super::answer::{Generated, Settled};
use crate::{
    agent_loop::{self, Generation, LoopEnd},
    error::TurnError,
    hooks::TurnHooks,
    sink::TurnSink,
};

/// Runs `chat:after_ai` over a completed answer to `content` (when any module runs
/// there) and applies its decision; releases whatever the sink held back.
#[tracing::instrument(name = "after", skip_all, err)]
pub(super) async fn settle(
    hooks: Option<&TurnHooks>,
    sink: &mut TurnSink,
    content: &str,
    generated: &mut Generated,
) -> Result<Settled, TurnError> {
    match (hooks, &generated.end) {
        (Some(hooks), LoopEnd::Completed) if hooks.has_after_ai() => {
            let after = hooks.after_ai(content, &generated.generation.text()).await;
            let moderation = apply(sink, &mut generated.generation, &after).await?;
            Ok(Settled {
                moderation,
                after_ai: Some(after),
            })
        }
        _ => {
            sink.release().await?;
            Ok(Settled {
                moderation: None,
                after_ai: None,
            })
        }
    }
}

/// Applies what `chat:after_ai` decided to the answer: a block or a replacement
/// rewrites the answer's text (its blocks become one text block with the final text).
async fn apply(
    sink: &mut TurnSink,
    generation: &mut Generation,
    after: &HookOutcome,
) -> Result<Option<Moderation>, TurnError> {
    let (text, mut moderation) = match (&after.blocked, &after.response) {
        (Some(blocked), _) => (
            blocked.direct_response.clone(),
            Moderation {
                blocked: true,
                category: Some(blocked.category.clone()),
                module: Some(blocked.module.clone()),
                replaced: false,
            },
        ),
        (None, Some(response)) => (
            response.clone(),
            Moderation {
                module: after
                    .events
                    .iter()
                    .rev()
                    .find(|e| e.outcome == ModuleOutcome::Modify)
                    .map(|e| e.module.clone()),
                ..Moderation::default()
            },
        ),
        (None, None) => {
            sink.release().await?;
            return Ok(None);
        }
    };
    // The answer's markers went with its text.
    generation.gate.forget_found();
    generation.drafts = if sink.discard_held() {
        let whole = agent_loop::blocks::whole_text(sink, text).await?;
        generation.gate = whole.gate;
        whole.drafts
    } else {
        moderation.replaced = true;
        vec![BlockDraft {
            content: text,
            ..BlockDraft::new(0, BlockMeta::Text)
        }]
    };
    Ok(Some(moderation))
}
