//! Input tokens and prompt caching on `/v1/messages`, as Anthropic does it: the prompt is
//! `tools` → `system` → `messages` (blocks in order); blocks with `cache_control` are
//! breakpoints; a request reads the longest cached prefix ending at a breakpoint or at one
//! of the 19 block boundaries before it, and writes the prefixes at its breakpoints.
//!
//! Tokens are the mock's word counts (README.md, "Input tokens"). Thinking blocks before the
//! current turn are dropped, as Anthropic drops them: they count no tokens and are no part of
//! any prefix, so sending them back or not changes nothing.

use serde_json::Value;

use super::convert::{blocks, kind, tool_result_text, turn_start};
use crate::cache::{Api, Caches, PrefixHash, chain};

/// Tokens of one `image` block.
pub(crate) const IMAGE_TOKENS: u64 = 100;
/// Tokens of one `document` block.
pub(crate) const DOCUMENT_TOKENS: u64 = 500;
/// Block boundaries a breakpoint looks back over (itself included).
const LOOKBACK: usize = 20;

/// One block of the prompt: the hash of the prefix up to and including it, the tokens of
/// that prefix, and whether it is a breakpoint.
pub(crate) struct Piece {
    hash: PrefixHash,
    tokens: u64,
    breakpoint: bool,
}

/// The input tokens of a request, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PromptUsage {
    /// All input tokens.
    pub total: u64,
    /// `cache_read_input_tokens`.
    pub read: u64,
    /// `cache_creation_input_tokens`.
    pub creation: u64,
}

impl PromptUsage {
    /// `input_tokens`: neither read from the cache nor written to it.
    pub(crate) fn input(self) -> u64 {
        self.total - self.read - self.creation
    }
}

fn words(text: &str) -> u64 {
    text.split_whitespace().count() as u64
}

/// A block as hashed: its JSON without `cache_control` (here and in a tool result's content).
fn canonical(block: &Value) -> String {
    let mut block = block.clone();
    if let Some(object) = block.as_object_mut() {
        object.remove("cache_control");
    }
    if let Some(content) = block.get_mut("content").and_then(Value::as_array_mut) {
        for inner in content.iter_mut().filter_map(Value::as_object_mut) {
            inner.remove("cache_control");
        }
    }
    block.to_string()
}

fn has_cache_control(block: &Value) -> bool {
    let here = |b: &Value| b.get("cache_control").is_some_and(|c| !c.is_null());
    here(block)
        || block["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(here))
}

/// The tokens of one content block.
fn tokens(block: &Value) -> u64 {
    let media = |b: &Value| match kind(b) {
        "image" => IMAGE_TOKENS,
        "document" => DOCUMENT_TOKENS,
        _ => 0,
    };
    match kind(block) {
        "text" => words(block["text"].as_str().unwrap_or_default()),
        "image" | "document" => media(block),
        "tool_use" => words(&block["input"].to_string()),
        "tool_result" => {
            let attached: u64 = block["content"]
                .as_array()
                .map_or(0, |c| c.iter().map(media).sum());
            words(&tool_result_text(block)) + attached
        }
        "thinking" => words(block["thinking"].as_str().unwrap_or_default()),
        _ => 0,
    }
}

/// The prompt's pieces, in order. The thinking settings are part of every prefix that
/// reaches into the messages (changing them invalidates those, not tools and system).
pub(crate) fn pieces(body: &Value) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut hash = chain(&[0; 16], b"anthropic");
    let mut total = 0;
    let mut push = |hash: PrefixHash, tokens: u64, breakpoint: bool, out: &mut Vec<Piece>| {
        total += tokens;
        out.push(Piece {
            hash,
            tokens: total,
            breakpoint,
        });
    };
    for tool in body["tools"].as_array().map_or(&[][..], Vec::as_slice) {
        let text = canonical(tool);
        hash = chain(&hash, text.as_bytes());
        push(hash, words(&text), has_cache_control(tool), &mut out);
    }
    for block in blocks(&body["system"]).iter() {
        hash = chain(&hash, canonical(block).as_bytes());
        push(hash, tokens(block), has_cache_control(block), &mut out);
    }
    hash = chain(&hash, format!("thinking {}", body["thinking"]).as_bytes());
    let messages = body["messages"].as_array().map_or(&[][..], Vec::as_slice);
    let turn = turn_start(messages);
    for (i, message) in messages.iter().enumerate() {
        hash = chain(&hash, format!("role {}", message["role"]).as_bytes());
        for block in blocks(&message["content"]).iter() {
            if i < turn && matches!(kind(block), "thinking" | "redacted_thinking") {
                continue;
            }
            hash = chain(&hash, canonical(block).as_bytes());
            push(hash, tokens(block), has_cache_control(block), &mut out);
        }
    }
    out
}

/// All input tokens of the pieces.
pub(crate) fn total(pieces: &[Piece]) -> u64 {
    pieces.last().map_or(0, |p| p.tokens)
}

/// Reads and writes the cache of `model` for an accepted request. Read: the longest cached
/// prefix ending at a breakpoint or up to 19 blocks before one. Written: the prefix at each
/// breakpoint of `min` tokens or more; `creation` counts the tokens from the read prefix to
/// the last of them.
pub(crate) fn account(caches: &Caches, model: &str, pieces: &[Piece], min: u64) -> PromptUsage {
    let total = total(pieces);
    let breakpoints: Vec<usize> = (0..pieces.len())
        .filter(|&i| pieces[i].breakpoint)
        .collect();
    caches.with(Api::Anthropic, model, |store| {
        let read = breakpoints
            .iter()
            .flat_map(|&b| b.saturating_sub(LOOKBACK - 1)..=b)
            .filter(|&i| store.contains(&pieces[i].hash))
            .max();
        let read_tokens = read.map_or(0, |i| pieces[i].tokens);
        if let Some(i) = read {
            store.touch(pieces[i].hash);
        }
        let written: Vec<usize> = breakpoints
            .iter()
            .copied()
            .filter(|&b| pieces[b].tokens >= min.max(1))
            .collect();
        for &b in &written {
            store.touch(pieces[b].hash);
        }
        let creation = match written.last() {
            Some(&last) if Some(last) > read => pieces[last].tokens - read_tokens,
            _ => 0,
        };
        PromptUsage {
            total,
            read: read_tokens,
            creation,
        }
    })
}
