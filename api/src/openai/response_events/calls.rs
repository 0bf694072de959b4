//! The calls of a response: a function Parley runs for the model is an `mcp_call` item
//! (announced with its arguments, finished with its output or error); a call of one of
//! the caller's functions is a `function_call` item (`call_id`, `name`, `arguments`),
//! and once every call of the model's response has run or waits (for the caller, or
//! for an approval) a response with such an item ends `completed` while the turn waits.
//! The turn's usage is told by the response that ends it.

use parley_protocol::client_functions::{ClientFunction, ToolChoice};
use parley_protocol::events::{ToolCallState, Usage};
use serde_json::{Value, json};

use super::super::chat_events::tool_call_id;
use super::super::types::{ResponseFunctionCall, ResponseMcpCall, ResponseOutputItem};
use super::{ResponsesTranslator, usage_of};

/// A caller's function as the response's `tools` lists it.
pub fn shown(function: &ClientFunction) -> Value {
    json!({
        "type": "function",
        "name": function.name,
        "description": function.description,
        "parameters": function.parameters,
        "strict": false,
    })
}

/// A request's `tool_choice` as the response shows it.
pub fn choice_shown(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => "auto".into(),
        ToolChoice::None => "none".into(),
        ToolChoice::Required => "required".into(),
        ToolChoice::Function { name } => json!({"type": "function", "name": name}),
    }
}

impl ResponsesTranslator {
    pub(super) fn start_call(
        &mut self,
        call: u32,
        tool: &str,
        input: &Value,
        out: &mut Vec<Value>,
    ) {
        self.open.insert(call);
        if self.client.contains(tool) {
            // Shown once it waits for the caller (`client_call_requested`); arguments
            // that do not fit the function are the model's to mend, not the caller's.
            return;
        }
        let item = self.items.len();
        let arguments = input.to_string();
        self.items
            .push(ResponseOutputItem::McpCall(ResponseMcpCall {
                id: format!("mcp_{}_{item}", self.meta.hex),
                kind: "mcp_call".into(),
                server_label: "parley".into(),
                name: tool.to_owned(),
                arguments: String::new(),
                output: None,
                error: None,
                status: "in_progress".into(),
            }));
        self.calls.insert(call, item);
        let id = self.item_id(item);
        self.added(item, out);
        self.emit(
            json!({"type": "response.mcp_call_arguments.delta", "item_id": id, "output_index": item, "delta": arguments}),
            out,
        );
        if let ResponseOutputItem::McpCall(c) = &mut self.items[item] {
            c.arguments = arguments.clone();
        }
        self.emit(
            json!({"type": "response.mcp_call_arguments.done", "item_id": id, "output_index": item, "arguments": arguments}),
            out,
        );
        self.emit(
            json!({"type": "response.mcp_call.in_progress", "item_id": id, "output_index": item}),
            out,
        );
    }

    pub(super) fn finish_call(
        &mut self,
        call: u32,
        state: ToolCallState,
        output: &Value,
        out: &mut Vec<Value>,
    ) {
        self.open.remove(&call);
        let Some(item) = self.calls.remove(&call) else {
            // A call of the caller's function refused before it waited.
            self.end_with_calls(out);
            return;
        };
        let succeeded = state == ToolCallState::Success;
        if let ResponseOutputItem::McpCall(c) = &mut self.items[item] {
            if succeeded {
                c.output = Some(output.to_string());
                c.status = "completed".into();
            } else {
                let text = output
                    .get("error")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| output.to_string());
                c.error = Some(text);
                c.status = "failed".into();
            }
        }
        let id = self.item_id(item);
        let kind = if succeeded {
            "response.mcp_call.completed"
        } else {
            "response.mcp_call.failed"
        };
        self.emit(
            json!({"type": kind, "item_id": id, "output_index": item}),
            out,
        );
        self.item_done(item, out);
        self.end_with_calls(out);
    }

    /// A call of the caller's function, waiting for its result: a `function_call` item.
    pub(super) fn function_call(
        &mut self,
        call: u32,
        name: &str,
        call_id: uuid::Uuid,
        input: &Value,
        out: &mut Vec<Value>,
    ) {
        self.open.remove(&call);
        let item = self.items.len();
        let arguments = input.to_string();
        self.items
            .push(ResponseOutputItem::FunctionCall(ResponseFunctionCall {
                id: format!("fc_{}_{item}", self.meta.hex),
                kind: "function_call".into(),
                call_id: tool_call_id(call_id),
                name: name.to_owned(),
                arguments: String::new(),
                status: "in_progress".into(),
            }));
        self.function_calls += 1;
        let id = self.item_id(item);
        self.added(item, out);
        self.emit(
            json!({"type": "response.function_call_arguments.delta", "item_id": id, "output_index": item, "delta": arguments}),
            out,
        );
        if let ResponseOutputItem::FunctionCall(c) = &mut self.items[item] {
            c.arguments = arguments.clone();
            c.status = "completed".into();
        }
        self.emit(
            json!({"type": "response.function_call_arguments.done", "item_id": id, "output_index": item, "name": name, "arguments": arguments}),
            out,
        );
        self.item_done(item, out);
        self.end_with_calls(out);
    }

    /// Ends the response once it has a `function_call` and no call of the model's
    /// response is open: the turn waits for the caller's results.
    pub(super) fn end_with_calls(&mut self, out: &mut Vec<Value>) {
        if self.function_calls == 0 || !self.open.is_empty() || self.ended.is_some() {
            return;
        }
        self.close_all("completed", out);
        self.usage = Some(usage_of(&Usage::default()));
        self.ended = Some("completed");
        let last = self.with_response("response.completed", "completed");
        self.emit(last, out);
    }

    /// `response.output_item.added` for output item `item`, as it now is.
    fn added(&mut self, item: usize, out: &mut Vec<Value>) {
        let added = json!({
            "type": "response.output_item.added",
            "output_index": item,
            "item": self.item_json(item),
        });
        self.emit(added, out);
    }
}
