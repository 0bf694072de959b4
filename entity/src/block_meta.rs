//! `blocks.metadata`, typed: what a block records beside its content, one shape per block
//! kind. Writers build a [`BlockMeta`]; readers get one from a row with
//! [`blocks::Model::meta`](crate::blocks::Model::meta). Nothing else reads the column's
//! keys.
//!
//! The column stays JSON with the shapes it always had (a `tool_call` block's
//! `{"n", "tool", "tool_use_id", "input", "state", "duration_ms", "payload"}`, an
//! attachment's `{"file_id", "name", "content_type", "kind", "size"}`, `{}` for text and
//! thinking), so rows written before it was typed read as they did: fields that do not
//! read are absent (the tolerant readers of `parley_protocol::config::stored`), never a
//! failed row.

use parley_protocol::{
    config::stored::lenient,
    events::{BlockType, CustomPayload, ToolCallState},
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::files::FileKind;

/// What a block records beside its content, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockMeta {
    Text,
    Thinking,
    ToolCall(ToolCallMeta),
    Attachment(AttachmentMeta),
}

/// A `tool_call` block: which call of the answer it is and, once it ran, how it ended.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCallMeta {
    /// The call's number in the answer (the `N` of its `[[tool:N]]` marker).
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub n: u32,
    /// The function's name.
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub tool: String,
    /// The provider's id of the call.
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub tool_use_id: String,
    /// The arguments as `tool_start` showed them: parsed, or the raw text.
    #[serde(default)]
    pub input: Value,
    /// How the call ended; absent while it runs in the turn.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub state: Option<ToolCallState>,
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration_ms: Option<u64>,
    /// The payload its result carried (validated against the registry).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub payload: Option<CustomPayload>,
}

/// An `attachment` block of a user message: the file it shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AttachmentMeta {
    /// Absent only in a row that does not name a readable file id (it shows nothing).
    #[serde(default, deserialize_with = "lenient")]
    pub file_id: Option<Uuid>,
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub content_type: String,
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub kind: Option<FileKind>,
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub size: Option<i64>,
}

impl BlockMeta {
    /// The block kind this metadata belongs to.
    pub fn kind(&self) -> BlockType {
        match self {
            Self::Text => BlockType::Text,
            Self::Thinking => BlockType::Thinking,
            Self::ToolCall(_) => BlockType::ToolCall,
            Self::Attachment(_) => BlockType::Attachment,
        }
    }

    /// The metadata of a block of `kind` stored as `value` (read tolerantly: a field that
    /// does not read is absent, a value that is no object reads as all absent).
    pub fn read(kind: BlockType, value: &Value) -> Self {
        // Every field is optional and tolerant, so any object reads; anything else is
        // all absent.
        fn shaped<T: serde::de::DeserializeOwned + Default>(value: &Value) -> T {
            serde_json::from_value(value.clone()).unwrap_or_default()
        }
        match kind {
            BlockType::Text => Self::Text,
            BlockType::Thinking => Self::Thinking,
            BlockType::ToolCall => Self::ToolCall(shaped(value)),
            BlockType::Attachment => Self::Attachment(shaped(value)),
        }
    }

    /// The column's JSON.
    pub fn to_value(&self) -> Value {
        let object = match self {
            Self::Text | Self::Thinking => return Value::Object(Default::default()),
            Self::ToolCall(meta) => serde_json::to_value(meta),
            Self::Attachment(meta) => serde_json::to_value(meta),
        };
        object.unwrap_or_else(|_| Value::Object(Default::default()))
    }

    /// The `tool_call` metadata, if this is a `tool_call` block's.
    pub fn tool_call(&self) -> Option<&ToolCallMeta> {
        match self {
            Self::ToolCall(meta) => Some(meta),
            _ => None,
        }
    }

    /// The attachment metadata, if this is an attachment block's.
    pub fn attachment(&self) -> Option<&AttachmentMeta> {
        match self {
            Self::Attachment(meta) => Some(meta),
            _ => None,
        }
    }
}

impl crate::blocks::Model {
    /// The block's metadata, typed by its kind.
    pub fn meta(&self) -> BlockMeta {
        BlockMeta::read(self.r#type, &self.metadata)
    }
}

/// A `T`, or its default when the stored value is not one.
fn lenient_or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    Ok(lenient(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rows_written_before_the_type_read_as_they_did() {
        let call = BlockMeta::read(
            BlockType::ToolCall,
            &json!({"n": 2, "tool": "getCurrentTime", "tool_use_id": "call_1",
                    "input": {"tz": "UTC"}, "state": "success", "duration_ms": 12}),
        );
        let meta = call.tool_call().expect("a tool_call block");
        assert_eq!(meta.n, 2);
        assert_eq!(meta.tool, "getCurrentTime");
        assert_eq!(meta.state, Some(ToolCallState::Success));
        assert_eq!(meta.duration_ms, Some(12));
        assert_eq!(call.to_value()["input"], json!({"tz": "UTC"}));

        // A field of another type is absent, not a failed row.
        let odd = BlockMeta::read(BlockType::ToolCall, &json!({"n": "two", "state": 5}));
        assert_eq!(odd.tool_call().map(|m| (m.n, m.state)), Some((0, None)));
        let none = BlockMeta::read(BlockType::Attachment, &json!([1, 2]));
        assert_eq!(none.attachment().and_then(|a| a.file_id), None);
    }

    #[test]
    fn an_attachment_round_trips_in_the_shape_it_always_had() {
        let id = Uuid::now_v7();
        let meta = BlockMeta::Attachment(AttachmentMeta {
            file_id: Some(id),
            name: "a.pdf".into(),
            content_type: "application/pdf".into(),
            kind: Some(FileKind::Pdf),
            size: Some(10),
        });
        let stored = meta.to_value();
        assert_eq!(
            stored,
            json!({"file_id": id, "name": "a.pdf", "content_type": "application/pdf",
                   "kind": "pdf", "size": 10})
        );
        assert_eq!(BlockMeta::read(BlockType::Attachment, &stored), meta);
        assert_eq!(BlockMeta::Text.to_value(), json!({}));
    }
}
