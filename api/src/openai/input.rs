//! Reading an OpenAI request's conversation: its messages' text (text parts only), the
//! instructions its `system` / `developer` messages give, and the last message, which
//! must be the user's.

use parley_entity::enums::MessageRole;
use parley_protocol::error::ErrorCode;

use super::types::{ChatContent, ChatRole};
use crate::error::Problem;

/// Text of a message's content (text parts joined; image and file parts, read apart,
/// skipped; other parts refused).
pub fn text_of(content: Option<ChatContent>) -> Result<String, Box<Problem>> {
    text_with(content, "text|image_url|file")
}

/// Text of a `tool` message's content: only text parts.
pub fn tool_text_of(content: Option<ChatContent>) -> Result<String, Box<Problem>> {
    text_with(content, "text")
}

fn text_with(content: Option<ChatContent>, kinds: &str) -> Result<String, Box<Problem>> {
    match content {
        None => Ok(String::new()),
        Some(ChatContent::Text(text)) => Ok(text),
        Some(ChatContent::Parts(parts)) => {
            parts_text(parts.into_iter().map(|p| (p.kind, p.text)), kinds)
        }
    }
}

/// The kinds of parts that carry an image or a file: read apart ([`super::media`]), no
/// text of the message.
const MEDIA_KINDS: [&str; 4] = ["image_url", "file", "input_image", "input_file"];

pub fn parts_text(
    parts: impl Iterator<Item = (String, Option<String>)>,
    text_kinds: &str,
) -> Result<String, Box<Problem>> {
    let mut text = Vec::new();
    for (kind, part) in parts {
        if MEDIA_KINDS.contains(&kind.as_str()) && text_kinds.split('|').any(|k| k == kind) {
            continue;
        }
        if !text_kinds.split('|').any(|k| k == kind) {
            return Err(invalid(
                ErrorCode::UnsupportedContent,
                format!(
                    "content parts of type `{kind}` are not supported; send text, images or files"
                ),
            ));
        }
        text.push(part.unwrap_or_default());
    }
    Ok(text.join("\n"))
}

/// A request OpenAI's API would refuse with a 400: `code` is one of the catalogue's
/// 400 codes of the OpenAI-compatible surface.
pub fn invalid(code: ErrorCode, detail: impl Into<String>) -> Box<Problem> {
    debug_assert_eq!(code.status(), 400, "`{code}` is not a 400's code");
    Box::new(Problem::new(code, detail))
}

/// What a conversation says: its instructions, its history and the last message.
pub type Split = (Option<String>, Vec<(MessageRole, String)>, String);

/// Splits a conversation into its instructions, its history and the last message,
/// which must be the user's.
pub fn split(messages: Vec<(ChatRole, String)>) -> Result<Split, Box<Problem>> {
    let mut instructions = Vec::new();
    let mut history = Vec::new();
    for (role, text) in messages {
        match role {
            ChatRole::System | ChatRole::Developer => instructions.push(text),
            ChatRole::User => history.push((MessageRole::User, text)),
            ChatRole::Assistant if !text.trim().is_empty() => {
                history.push((MessageRole::Assistant, text))
            }
            // Tool results and calls are the client's; Parley runs its own functions.
            ChatRole::Assistant | ChatRole::Tool | ChatRole::Function => {}
        }
    }
    let last = match history.pop() {
        Some((MessageRole::User, text)) if !text.trim().is_empty() => text,
        Some((MessageRole::Assistant, _)) => {
            return Err(invalid(
                ErrorCode::LastMessageNotUser,
                "the last message is the assistant's: a Parley turn answers the user's message and does not continue a prefilled answer; send the user's message last",
            ));
        }
        _ => {
            return Err(invalid(
                ErrorCode::LastMessageNotUser,
                "the last message must be the user's, with text",
            ));
        }
    };
    let instructions = instructions
        .into_iter()
        .filter(|i| !i.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    Ok((
        (!instructions.is_empty()).then_some(instructions),
        history,
        last,
    ))
}

/// Refuses the options of a request that Parley does not offer, naming the first one: a
/// client asking for five choices or token log probabilities must not get one plain
/// answer as if it had.
pub fn refuse_unsupported(options: &[(&str, bool)]) -> Result<(), Box<Problem>> {
    match options.iter().find(|(_, asked)| *asked) {
        Some((param, _)) => Err(Box::new(
            Problem::new(
                ErrorCode::UnsupportedParameter,
                format!("`{param}`: Parley does not offer it; leave it out (docs/openai.md, \"What differs from OpenAI\")"),
            )
            .param(*param),
        )),
        None => Ok(()),
    }
}
