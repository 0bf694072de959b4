//! A round of the tool loop: one model response that called functions. Each call of a
//! round keeps what the next request of the turn must send again of that response
//! ([`CallRecord`]): on the call while the turn runs, and on the call's row
//! (`tool_calls.provider_state`) for an attempt that replays the turn's finished calls
//! after a retry, a takeover or an approval. [`transcript`] turns calls back into the
//! messages the model reads: per round, the assistant message that made its calls — its
//! text and its provider's state — and one `tool` message per result.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CallResult;
use crate::providers::{
    CallRequest, ChatMessage,
    replay::{CallState, ResponseState},
};
use parley_protocol::config::stored::lenient;

/// What a call keeps of the response that made it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The round: the `[[tool:N]]` number of its first call.
    #[serde(default, deserialize_with = "lenient_or_zero")]
    pub round: u32,
    /// What the model wrote before its calls (on the round's first call).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub said: String,
    /// The response's state (on the round's first call).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub response: Option<ResponseState>,
    /// The call's own state.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub call: Option<CallState>,
    /// The arguments exactly as the model wrote them (the row keeps them parsed): sent
    /// back as written, unless the call ran with other ones (an approval that edited
    /// them).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub arguments: String,
}

fn lenient_or_zero<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    Ok(lenient(deserializer)?.unwrap_or(0))
}

impl CallRecord {
    /// The record a call's row holds (`tool_calls.provider_state`); none reads as the
    /// default (a row of before: every such call of a turn is one round).
    pub fn of_row(stored: Option<&Value>) -> Self {
        stored
            .and_then(|value| serde_json::from_value(value.clone()).ok())
            .unwrap_or_default()
    }

    /// The row's JSON.
    pub fn to_row(&self) -> Option<Value> {
        serde_json::to_value(self).ok()
    }

    /// The arguments of a call that ran with `ran` (its row's `tool_args`), as the
    /// model reads them back: as it wrote them when that is what ran.
    pub fn arguments_for(&self, ran: &Value) -> String {
        let written = serde_json::from_str::<Value>(&self.arguments).ok();
        match written {
            Some(written) if written == *ran => self.arguments.clone(),
            _ => ran.to_string(),
        }
    }
}

/// The messages that give the model `results`: per round, in order, the assistant
/// message that made the round's calls and the calls' results.
pub fn transcript(results: &[CallResult]) -> Vec<ChatMessage> {
    let mut messages = Vec::new();
    let mut rest = results;
    while let Some(first) = rest.first() {
        let len = rest
            .iter()
            .take_while(|r| r.record.round == first.record.round)
            .count();
        let (round, after) = rest.split_at(len);
        let calls = round
            .iter()
            .map(|r| CallRequest {
                state: r.record.call.clone(),
                ..CallRequest::new(&r.id, &r.name, &r.arguments)
            })
            .collect();
        // The round's text and state are on its first call; a round whose first call
        // an earlier attempt did not record keeps whatever a later one has.
        let said = round
            .iter()
            .map(|r| r.record.said.as_str())
            .find(|s| !s.is_empty());
        let state = round.iter().find_map(|r| r.record.response.clone());
        messages.push(ChatMessage::assistant_calls(
            said.unwrap_or_default(),
            calls,
            state,
        ));
        messages.extend(
            round
                .iter()
                .map(|r| ChatMessage::tool_result(&r.id, r.for_model())),
        );
        rest = after;
    }
    messages
}

#[cfg(test)]
mod tests {
    use parley_protocol::events::ToolCallState;
    use serde_json::json;

    use super::*;
    use crate::{agent_loop::CallOutput, providers::replay::ReasoningField};

    fn result(id: &str, round: u32, said: &str, reasoning: Option<&str>) -> CallResult {
        CallResult {
            id: id.into(),
            name: "f".into(),
            arguments: "{}".into(),
            input: json!({}),
            state: ToolCallState::Success,
            output: CallOutput::Result(json!({"ok": id})),
            payload: None,
            duration_ms: 1,
            record: CallRecord {
                round,
                said: said.into(),
                response: reasoning.map(|text| ResponseState::Openai {
                    field: ReasoningField::ReasoningContent,
                    text: text.into(),
                }),
                call: None,
                arguments: String::new(),
            },
        }
    }

    #[test]
    fn each_round_is_its_assistant_message_with_its_state_then_its_results() {
        let results = [
            result("a", 0, "Let me look.", Some("first")),
            result("b", 0, "", None),
            result("c", 2, "", Some("second")),
        ];
        let sent: Vec<Value> = transcript(&results)
            .iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect();
        let roles: Vec<&str> = sent.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["assistant", "tool", "tool", "assistant", "tool"]);
        assert_eq!(sent[0]["content"], "Let me look.");
        assert_eq!(sent[0]["reasoning_content"], "first");
        assert_eq!(sent[0]["tool_calls"].as_array().map(Vec::len), Some(2));
        assert_eq!(sent[3]["reasoning_content"], "second");
        assert_eq!(sent[4]["tool_call_id"], "c");
    }

    #[test]
    fn a_result_that_is_text_reads_as_that_text_and_json_as_json() {
        let mut text = result("a", 0, "", None);
        text.output = CallOutput::Result(json!("cat"));
        assert_eq!(text.for_model(), "cat");
        assert_eq!(result("b", 0, "", None).for_model(), r#"{"ok":"b"}"#);
        let mut failed = result("c", 0, "", None);
        failed.output = CallOutput::Failed("offline".into());
        assert_eq!(failed.for_model(), r#"{"error":"offline"}"#);
    }

    #[test]
    fn a_row_of_before_or_of_another_shape_reads_as_one_round_without_state() {
        assert_eq!(CallRecord::of_row(None), CallRecord::default());
        let odd = CallRecord::of_row(Some(&json!({"round": "x", "response": 5})));
        assert_eq!(odd, CallRecord::default());
        let record = CallRecord {
            round: 3,
            said: "Hm.".into(),
            response: None,
            call: Some(CallState::Openai {
                extra_content: json!({"google": {"thought_signature": "s"}}),
            }),
            arguments: r#"{"title": "buy milk"}"#.into(),
        };
        assert_eq!(CallRecord::of_row(record.to_row().as_ref()), record);
        // Sent back as written when that is what ran; else what ran.
        assert_eq!(
            record.arguments_for(&json!({"title": "buy milk"})),
            r#"{"title": "buy milk"}"#
        );
        assert_eq!(
            record.arguments_for(&json!({"title": "buy oat milk"})),
            r#"{"title":"buy oat milk"}"#
        );
    }
}
