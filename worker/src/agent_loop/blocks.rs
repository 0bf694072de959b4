//! The layout of an answer: text and thinking blocks that deltas stream into, one
//! `tool_call` block per function call, and the `[[tool:N]]` marker that puts call N in
//! the text where the model made it. Every change is an event (`block_start`, deltas,
//! `block_stop`, `tool_start`, `tool_complete`) and a block draft the persistence stage
//! checkpoints.
//!
//! A `tool_call` block's draft carries the call in its metadata (`n`, `tool`,
//! `tool_use_id`, `input`, then `state`, `duration_ms`) and its output as content, so a
//! feed rebuilt from the database can show the same events.

use parley_entity::{
    block_meta::{BlockMeta, ToolCallMeta},
    enums::BlockType as DbBlockType,
    query::conversation::BlockDraft,
};
use parley_protocol::events::{EventKind, ToolCallState};
use serde_json::{Value, json};

use super::{
    CallResult, Functions, Generation, PlannedCall, Sink, SinkError, model_call::Requested,
};

/// The kinds of block deltas stream into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Thinking,
}

impl Kind {
    fn meta(self) -> BlockMeta {
        match self {
            Self::Text => BlockMeta::Text,
            Self::Thinking => BlockMeta::Thinking,
        }
    }

    fn db(self) -> DbBlockType {
        self.meta().kind()
    }
}

/// Appends text to the open block of its kind, opening a new block when the kind
/// changes (or none is open). Text goes through the answer's marker gate: what it holds
/// back is written once it is decided to be text, a marker never.
pub async fn write(
    generation: &mut Generation,
    sink: &mut dyn Sink,
    kind: Kind,
    text: String,
) -> Result<(), SinkError> {
    let text = match kind {
        Kind::Text => generation.gate.push(&text),
        Kind::Thinking => text,
    };
    show(generation, sink, kind, text).await
}

/// The model's text stops (a function call may follow): writes what the gate held that
/// is text (not white space at its end), then closes the open block.
pub async fn settle_and_close(
    generation: &mut Generation,
    sink: &mut dyn Sink,
) -> Result<(), SinkError> {
    let text = generation.gate.settle();
    show(generation, sink, Kind::Text, text).await?;
    close(generation, sink).await
}

/// Takes back the blocks from `from` on (an answer that did not fit its format): their
/// drafts and, when the sink can, their events, which nobody saw. Whether it could.
pub fn retract(generation: &mut Generation, from: usize, sink: &mut dyn Sink) -> bool {
    let Ok(first) = u32::try_from(from) else {
        return false;
    };
    if !sink.retract(first) {
        return false;
    }
    generation.drafts.truncate(from);
    generation.open_block = None;
    // White space the gate kept for what would follow the taken-back text goes with it.
    let _ = generation.gate.finish();
    true
}

/// The answer ends: writes what the gate held that is text, then closes the open block.
pub async fn finish(generation: &mut Generation, sink: &mut dyn Sink) -> Result<(), SinkError> {
    let text = generation.gate.finish();
    show(generation, sink, Kind::Text, text).await?;
    close(generation, sink).await
}

/// Appends `text` (to be shown) to the open block of its kind.
async fn show(
    generation: &mut Generation,
    sink: &mut dyn Sink,
    kind: Kind,
    text: String,
) -> Result<(), SinkError> {
    if text.is_empty() {
        return Ok(());
    }
    let reuse = generation
        .open_block
        .filter(|&i| generation.drafts[i].kind() == kind.db());
    let index = match reuse {
        Some(index) => index,
        None => {
            close(generation, sink).await?;
            let index = open(generation, sink, kind.meta()).await?;
            generation.open_block = Some(index);
            index
        }
    };
    generation.drafts[index].content.push_str(&text);
    let index = index as u32;
    let event = match kind {
        Kind::Thinking => EventKind::ThinkingDelta { index, text },
        Kind::Text => EventKind::TextDelta { index, text },
    };
    sink.event(event).await?;
    sink.drafts(&generation.drafts).await
}

/// Appends text as its own words (a note of Parley's, not the model's).
pub async fn write_text(
    generation: &mut Generation,
    sink: &mut dyn Sink,
    text: String,
) -> Result<(), SinkError> {
    write(generation, sink, Kind::Text, text).await
}

/// An answer that is one whole text block (a skill's, a module's direct response): its
/// events sent, its draft returned. Suggestion markers in it are taken out as from the
/// model's.
pub async fn whole_text(sink: &mut dyn Sink, text: String) -> Result<Generation, SinkError> {
    let mut generation = Generation::default();
    write_text(&mut generation, sink, text).await?;
    finish(&mut generation, sink).await?;
    Ok(generation)
}

/// Closes the open text or thinking block, if any.
pub async fn close(generation: &mut Generation, sink: &mut dyn Sink) -> Result<(), SinkError> {
    if let Some(index) = generation.open_block.take() {
        sink.event(EventKind::BlockStop {
            index: index as u32,
        })
        .await?;
    }
    Ok(())
}

/// Opens a block of `meta`'s kind; returns its index.
async fn open(
    generation: &mut Generation,
    sink: &mut dyn Sink,
    meta: BlockMeta,
) -> Result<usize, SinkError> {
    let index = generation.drafts.len();
    let block_type = meta.kind();
    generation.drafts.push(BlockDraft::new(index as i32, meta));
    sink.event(EventKind::BlockStart {
        index: index as u32,
        block_type,
    })
    .await?;
    Ok(index)
}

/// The arguments of a call as JSON: empty means `{}`; `Err` when they are not JSON.
pub fn parse_arguments(raw: &str) -> Result<Value, serde_json::Error> {
    if raw.trim().is_empty() {
        Ok(json!({}))
    } else {
        serde_json::from_str(raw)
    }
}

/// The arguments as `tool_start` shows them: parsed, or the raw text.
fn input_of(raw: &str) -> Value {
    parse_arguments(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

/// `tool_complete` of call `n`.
pub fn tool_complete(n: u32, result: &CallResult) -> EventKind {
    EventKind::ToolComplete {
        index: n,
        tool: result.name.clone(),
        tool_use_id: result.id.clone(),
        state: result.state,
        output: result.output.to_value(),
        payload: result.payload.clone(),
        duration_ms: result.duration_ms,
    }
}

/// Opens a `tool_call` block for each call and sends its `tool_start`.
async fn start_calls(
    generation: &mut Generation,
    requested: Vec<Requested>,
    sink: &mut dyn Sink,
) -> Result<Vec<PlannedCall>, SinkError> {
    settle_and_close(generation, sink).await?;
    let mut planned = Vec::with_capacity(requested.len());
    for call in requested {
        let n = (generation.results.len() + planned.len()) as u32;
        let id = if call.id.is_empty() {
            format!("call_{n}")
        } else {
            call.id
        };
        let input = input_of(&call.arguments);
        let meta = BlockMeta::ToolCall(ToolCallMeta {
            n,
            tool: call.name.clone(),
            tool_use_id: id.clone(),
            input: input.clone(),
            ..ToolCallMeta::default()
        });
        let block = open(generation, sink, meta).await? as u32;
        sink.event(EventKind::ToolStart {
            index: n,
            block_index: block,
            tool: call.name.clone(),
            tool_use_id: id.clone(),
            input,
        })
        .await?;
        planned.push(PlannedCall {
            n,
            block,
            id,
            name: call.name,
            arguments: call.arguments,
            record: call.record,
        });
    }
    Ok(planned)
}

/// Records the results in the calls' blocks and puts their markers into the text.
async fn finish_calls(
    generation: &mut Generation,
    planned: &[PlannedCall],
    results: &[CallResult],
    sink: &mut dyn Sink,
) -> Result<(), SinkError> {
    for (call, result) in planned.iter().zip(results) {
        let draft = &mut generation.drafts[call.block as usize];
        draft.content = result.output.to_value().to_string();
        if let BlockMeta::ToolCall(meta) = &mut draft.meta {
            meta.state = Some(result.state);
            meta.duration_ms = Some(result.duration_ms);
            meta.payload.clone_from(&result.payload);
        }
    }
    generation.results.extend(results.iter().cloned());
    for call in planned {
        write(generation, sink, Kind::Text, format!("[[tool:{}]]", call.n)).await?;
    }
    Ok(())
}

/// Runs the calls of one model response: blocks and `tool_start`s, the calls themselves
/// (behind [`Functions`]), then the markers. Returns the results in order.
pub(super) async fn run_calls(
    generation: &mut Generation,
    requested: Vec<Requested>,
    sink: &mut dyn Sink,
    functions: &mut dyn Functions,
) -> Result<Vec<CallResult>, SinkError> {
    let planned = start_calls(generation, requested, sink).await?;
    // What the answer has so far is written before any function runs: a worker that
    // takes the turn over continues from here.
    sink.checkpoint_now(&generation.drafts).await?;
    let results = functions.run(&planned, sink).await?;
    finish_calls(generation, &planned, &results, sink).await?;
    Ok(results)
}

/// Shows the calls an earlier attempt finished, as if they ran now: blocks,
/// `tool_start`, `tool_complete`, markers.
pub(super) async fn replay(
    generation: &mut Generation,
    results: &[CallResult],
    sink: &mut dyn Sink,
) -> Result<(), SinkError> {
    let requested = results
        .iter()
        .map(|r| Requested {
            id: r.id.clone(),
            name: r.name.clone(),
            arguments: r.arguments.clone(),
            record: r.record.clone(),
        })
        .collect();
    let planned = start_calls(generation, requested, sink).await?;
    for (call, result) in planned.iter().zip(results) {
        sink.event(tool_complete(call.n, result)).await?;
        sink.event(EventKind::BlockStop { index: call.block })
            .await?;
    }
    finish_calls(generation, &planned, results, sink).await
}

/// Whether a call's state means it ran to its end (reusable by a retried turn).
pub fn finished(state: ToolCallState) -> bool {
    matches!(
        state,
        ToolCallState::Success
            | ToolCallState::Error
            | ToolCallState::Canceled
            | ToolCallState::Denied
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse_leniently_for_display_strictly_for_running() {
        assert_eq!(parse_arguments("").unwrap(), json!({}));
        assert_eq!(parse_arguments(" {\"a\":1} ").unwrap(), json!({"a": 1}));
        assert!(parse_arguments("{\"a\":").is_err());
        assert_eq!(input_of("{\"a\":"), json!("{\"a\":"));
    }
}
