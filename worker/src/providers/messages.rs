//! What is sent to a model: chat messages — including the function calls an assistant
//! message made and their results — and the functions it may call. The serde forms are
//! the OpenAI chat-completions wire forms; a provider of another dialect (Anthropic's
//! Messages) builds its own from the same values. An assistant message that made calls
//! carries what its provider needs back of it ([`ResponseState`], [`CallState`]); the
//! OpenAI form sends the OpenAI-compatible kinds of it and nothing of another kind's.

use serde::{Serialize, ser::SerializeStruct};
use serde_json::{Value, json};

use super::replay::{CallState, ResponseState};

/// A chat message sent to a provider. With images its content goes out as parts (the
/// text, then one `image_url` part per image), else as a string.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub role: &'static str,
    pub content: String,
    /// Images of a user message, as `data:` URLs.
    pub images: Vec<String>,
    /// PDF attachments of a user message, for providers that read documents themselves
    /// (Anthropic's `document` blocks); every other provider reads their text, which
    /// `content` carries.
    pub documents: Vec<Document>,
    /// The calls an assistant message made.
    pub tool_calls: Vec<CallRequest>,
    /// The call a `tool` message answers.
    pub tool_call_id: Option<String>,
    /// What the provider that wrote this assistant message needs back of it.
    pub state: Option<ResponseState>,
}

impl Serialize for ChatMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reasoning = self.state.as_ref().and_then(ResponseState::openai);
        let fields = 2
            + usize::from(!self.tool_calls.is_empty())
            + usize::from(self.tool_call_id.is_some())
            + usize::from(reasoning.is_some());
        let mut out = serializer.serialize_struct("ChatMessage", fields)?;
        out.serialize_field("role", self.role)?;
        if self.images.is_empty() {
            out.serialize_field("content", &self.content)?;
        } else {
            let mut parts = vec![json!({"type": "text", "text": self.content})];
            parts.extend(
                self.images
                    .iter()
                    .map(|url| json!({"type": "image_url", "image_url": {"url": url}})),
            );
            out.serialize_field("content", &parts)?;
        }
        if !self.tool_calls.is_empty() {
            out.serialize_field("tool_calls", &self.tool_calls)?;
        }
        if let Some(id) = &self.tool_call_id {
            out.serialize_field("tool_call_id", id)?;
        }
        if let Some((field, text)) = reasoning {
            out.serialize_field(field.as_str(), text)?;
        }
        out.end()
    }
}

impl ChatMessage {
    fn new(role: &'static str, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            images: Vec::new(),
            documents: Vec::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            state: None,
        }
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::new("system", content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::new("user", content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new("assistant", content)
    }

    /// An assistant message that called functions (after its text, if any), with what
    /// its provider needs back of it.
    pub fn assistant_calls(
        content: impl Into<String>,
        calls: Vec<CallRequest>,
        state: Option<ResponseState>,
    ) -> Self {
        Self {
            tool_calls: calls,
            state,
            ..Self::new("assistant", content)
        }
    }

    /// The result of one call, for the model.
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            ..Self::new("tool", content)
        }
    }
}

/// A PDF attached to a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The file's name.
    pub name: String,
    /// The PDF, base64-encoded.
    pub data: String,
    /// What the message's `content` says of it for a provider that cannot read it: its
    /// header and extracted text, exactly as they stand in `content`. A provider that
    /// sends the document puts [`Document::placeholder`] there instead.
    pub inlined: String,
}

impl Document {
    /// What stands in the text for a document sent beside it.
    pub fn placeholder(&self) -> String {
        format!(
            "\n\n[Attachment: {} (application/pdf)] — the document is attached.",
            self.name
        )
    }
}

/// A function call an assistant message made.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRequest {
    pub id: String,
    pub function: CalledFunction,
    /// What the provider that made the call needs back with it.
    pub state: Option<CallState>,
}

impl Serialize for CallRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = self.state.as_ref().and_then(CallState::openai_extra);
        let mut out =
            serializer.serialize_struct("CallRequest", 3 + usize::from(extra.is_some()))?;
        out.serialize_field("id", &self.id)?;
        out.serialize_field("type", "function")?;
        out.serialize_field("function", &self.function)?;
        if let Some(extra) = extra {
            out.serialize_field("extra_content", extra)?;
        }
        out.end()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CalledFunction {
    pub name: String,
    /// The arguments exactly as the model wrote them (a JSON text, or not).
    pub arguments: String,
}

impl CallRequest {
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            function: CalledFunction {
                name: name.into(),
                arguments: arguments.into(),
            },
            state: None,
        }
    }
}

/// A function offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionOffer {
    pub name: String,
    pub description: String,
    /// The JSON schema of its arguments.
    pub parameters: Value,
}

impl FunctionOffer {
    /// The `tools` entry of a chat-completions request.
    pub fn to_wire(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_serialize_in_the_openai_wire_form() {
        let call = CallRequest::new("c1", "getCurrentTime", r#"{"time_zone":"UTC"}"#);
        let assistant = ChatMessage::assistant_calls("", vec![call], None);
        assert_eq!(
            serde_json::to_value(&assistant).unwrap(),
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "getCurrentTime", "arguments": "{\"time_zone\":\"UTC\"}"}}]})
        );
        assert_eq!(
            serde_json::to_value(ChatMessage::tool_result("c1", "12:00")).unwrap(),
            json!({"role": "tool", "content": "12:00", "tool_call_id": "c1"})
        );
        assert_eq!(
            serde_json::to_value(ChatMessage::user("hi")).unwrap(),
            json!({"role": "user", "content": "hi"})
        );
        let with_image = ChatMessage {
            images: vec!["data:image/png;base64,AAAA".into()],
            ..ChatMessage::user("look")
        };
        assert_eq!(
            serde_json::to_value(with_image).unwrap(),
            json!({"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]})
        );
    }

    #[test]
    fn an_openai_compatible_state_goes_back_under_its_field_and_another_kinds_not_at_all() {
        use crate::providers::replay::{ReasoningField, ThinkingBlock};
        let call = CallRequest {
            state: Some(CallState::Openai {
                extra_content: json!({"google": {"thought_signature": "sig"}}),
            }),
            ..CallRequest::new("c1", "getCurrentTime", "{}")
        };
        let deepseek = ChatMessage::assistant_calls(
            "",
            vec![call],
            Some(ResponseState::Openai {
                field: ReasoningField::ReasoningContent,
                text: "Check the clock.".into(),
            }),
        );
        assert_eq!(
            serde_json::to_value(&deepseek).unwrap(),
            json!({"role": "assistant", "content": "", "reasoning_content": "Check the clock.",
                "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "getCurrentTime", "arguments": "{}"},
                    "extra_content": {"google": {"thought_signature": "sig"}}}]})
        );
        let anthropic = ChatMessage::assistant_calls(
            "",
            vec![CallRequest::new("c1", "f", "{}")],
            Some(ResponseState::Anthropic {
                thinking: vec![ThinkingBlock::RedactedThinking { data: "x".into() }],
            }),
        );
        let sent = serde_json::to_value(&anthropic).unwrap();
        assert_eq!(sent.as_object().map(|o| o.len()), Some(3), "{sent}");
    }
}
