//! Prompt caching: which prefixes of earlier prompts the mock has "seen", per endpoint and
//! model, and the cached input of the chat endpoint (OpenAI's rules).
//!
//! A prompt is a chain of pieces (messages on the chat endpoint, blocks on the Anthropic
//! one); the hash of a prefix is a SHA-256 chained over its pieces, so checking every prefix
//! of a prompt costs one pass. The store keeps hashes only (16 bytes each), at most
//! [`CAPACITY`] per model and endpoint, evicting the least recently used: benchmarks can run
//! for hours without the mock growing. The Anthropic accounting is in
//! `crate::anthropic::cache`.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The most prefix hashes kept per model and endpoint.
pub(crate) const CAPACITY: usize = 65_536;

/// The hash of a prompt prefix.
pub(crate) type PrefixHash = [u8; 16];

/// Extends a prefix hash by one piece.
pub(crate) fn chain(previous: &PrefixHash, piece: &[u8]) -> PrefixHash {
    let mut hash = Sha256::new();
    hash.update(previous);
    hash.update((piece.len() as u64).to_le_bytes());
    hash.update(piece);
    let full: [u8; 32] = hash.finalize().into();
    let mut out = [0; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// The endpoints, each with caches of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Api {
    Chat,
    Anthropic,
}

/// A bounded set of prefix hashes, least recently used evicted first.
#[derive(Default)]
pub(crate) struct PrefixStore {
    /// Hash → the tick it was last used at.
    entries: HashMap<PrefixHash, u64>,
    /// (hash, tick) in use order; entries whose tick is stale are skipped.
    order: VecDeque<(PrefixHash, u64)>,
    tick: u64,
}

impl PrefixStore {
    pub(crate) fn contains(&self, hash: &PrefixHash) -> bool {
        self.entries.contains_key(hash)
    }

    /// Adds `hash`, or marks it used now when it is there.
    pub(crate) fn touch(&mut self, hash: PrefixHash) {
        self.tick += 1;
        self.entries.insert(hash, self.tick);
        self.order.push_back((hash, self.tick));
        while self.entries.len() > CAPACITY {
            let Some((old, tick)) = self.order.pop_front() else {
                break;
            };
            if self.entries.get(&old) == Some(&tick) {
                self.entries.remove(&old);
            }
        }
        // Stale (hash, tick) pairs pile up when hashes are touched again: drop them.
        if self.order.len() > 2 * CAPACITY.max(self.entries.len()) {
            let entries = &self.entries;
            self.order.retain(|(h, t)| entries.get(h) == Some(t));
        }
    }
}

/// Every store of a running mock.
#[derive(Default)]
pub(crate) struct Caches(Mutex<HashMap<(Api, String), PrefixStore>>);

impl Caches {
    /// Runs `f` on the store of `api` and `model`.
    pub(crate) fn with<T>(
        &self,
        api: Api,
        model: &str,
        f: impl FnOnce(&mut PrefixStore) -> T,
    ) -> T {
        let mut stores = self.0.lock().unwrap_or_else(|e| e.into_inner());
        f(stores.entry((api, model.to_owned())).or_default())
    }

    pub(crate) fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// OpenAI's caching rules: nothing below `min` tokens; above, in steps of `increment`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    pub min: u64,
    pub increment: u64,
}

impl Rules {
    /// The cached count reported for a cached prefix of `tokens`: 0 below `min`, else the
    /// largest `min + k·increment` not above it.
    pub(crate) fn round(self, tokens: u64) -> u64 {
        if tokens < self.min || tokens == 0 {
            return 0;
        }
        let step = self.increment.max(1);
        self.min + (tokens - self.min) / step * step
    }
}

/// The prefixes of a chat request, one per message: its hash and its tokens (content
/// words). Each message counts with its `role`, `content`, `tool_calls`, `tool_call_id` and
/// `reasoning_content` as sent; the chain starts from the `tools` as sent, so offering other
/// tools is a miss, as at OpenAI.
pub(crate) fn chat_prefixes(body: &Value) -> Vec<(PrefixHash, u64)> {
    let messages = body["messages"].as_array().map_or(&[][..], Vec::as_slice);
    let mut hash = chain(&[0; 16], b"chat");
    hash = chain(&hash, body["tools"].to_string().as_bytes());
    let mut prefixes = Vec::with_capacity(messages.len());
    let mut tokens = 0;
    for message in messages {
        let fields = json!({
            "role": message["role"],
            "content": message["content"],
            "tool_calls": message["tool_calls"],
            "tool_call_id": message["tool_call_id"],
            "reasoning_content": message["reasoning_content"],
        });
        hash = chain(&hash, fields.to_string().as_bytes());
        tokens += crate::reply::text_of(&message["content"])
            .split_whitespace()
            .count() as u64;
        prefixes.push((hash, tokens));
    }
    prefixes
}

/// The cached input of a chat request: the tokens of the longest of its `prefixes` that an
/// earlier answered request of the same model began with, rounded by `rules`. Records this
/// request's prefixes for the next ones.
pub(crate) fn chat_cached_tokens(
    caches: &Caches,
    model: &str,
    prefixes: &[(PrefixHash, u64)],
    rules: Rules,
) -> u64 {
    caches.with(Api::Chat, model, |store| {
        let hit = prefixes
            .iter()
            .rev()
            .find(|(h, _)| store.contains(h))
            .map_or(0, |(_, t)| *t);
        // Prefixes below the minimum could never be reported: not worth keeping.
        for (h, t) in prefixes {
            if *t >= rules.min {
                store.touch(*h);
            }
        }
        rules.round(hit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_follows_the_minimum_and_the_increment() {
        let openai = Rules {
            min: 1024,
            increment: 128,
        };
        assert_eq!(openai.round(1023), 0);
        assert_eq!(openai.round(1024), 1024);
        assert_eq!(openai.round(1151), 1024);
        assert_eq!(openai.round(1152), 1152);
        let small = Rules {
            min: 10,
            increment: 4,
        };
        assert_eq!(
            (small.round(9), small.round(13), small.round(14)),
            (0, 10, 14)
        );
        assert_eq!(
            Rules {
                min: 0,
                increment: 0
            }
            .round(7),
            7
        );
    }

    #[test]
    fn the_store_is_bounded_and_keeps_what_is_used() {
        let mut store = PrefixStore::default();
        let hash = |i: u32| chain(&[0; 16], &i.to_le_bytes());
        store.touch(hash(0));
        for i in 1..=(CAPACITY as u32) {
            store.touch(hash(i));
            store.touch(hash(0));
        }
        assert_eq!(store.entries.len(), CAPACITY);
        assert!(store.contains(&hash(0)), "used all along");
        assert!(!store.contains(&hash(1)), "the least recently used went");
        assert!(store.order.len() <= 2 * CAPACITY + 1);
    }
}
