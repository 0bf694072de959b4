//! Opaque values the mock issues and later checks without keeping state: Gemini's thought
//! signatures, Anthropic's thinking signatures and `redacted_thinking` data.
//!
//! Each is a keyed SHA-256 over what it vouches for (a fixed key, a domain name, then the
//! length-prefixed parts), base64-encoded: deterministic, so tests can predict it, and
//! verifiable, so a value a client altered, invented or moved to another call is caught.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The mock's signing key. Not a secret: the point is that a client must send back what
/// it was given, not that nobody could forge it.
const KEY: &[u8] = b"parley-mock-llm/2026 signing key";

/// SHA-256 over the key, the domain and each part (length-prefixed, so parts cannot run
/// into each other).
fn digest(domain: &str, parts: &[&[u8]]) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(KEY);
    hash.update(domain.as_bytes());
    for part in parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hash.finalize().into()
}

/// Gemini's `extra_content.google.thought_signature` of a tool call.
pub(crate) fn thought_signature(id: &str, name: &str, arguments: &str) -> String {
    let mac = digest(
        "gemini-thought",
        &[id.as_bytes(), name.as_bytes(), arguments.as_bytes()],
    );
    STANDARD.encode(mac)
}

/// The `signature` of an Anthropic `thinking` block with this text, after `redacted` (the
/// `data` of the `redacted_thinking` blocks right before it, joined; `""` for none): a client
/// that drops or reorders those blocks sends a signature that no longer verifies.
pub(crate) fn thinking_signature(redacted: &str, thinking: &str) -> String {
    STANDARD.encode(digest(
        "anthropic-thinking",
        &[redacted.as_bytes(), thinking.as_bytes()],
    ))
}

/// Bytes of payload in a `redacted_thinking` block's `data` (then 32 bytes of MAC).
const REDACTED_PAYLOAD: usize = 16;

/// The `data` of the `redacted_thinking` block issued before a thinking block with this
/// text: base64 of a 16-byte payload derived from it and a MAC over that payload.
pub(crate) fn redacted_data(thinking: &str) -> String {
    let payload = digest("anthropic-redacted-payload", &[thinking.as_bytes()]);
    let payload = &payload[..REDACTED_PAYLOAD];
    let mac = digest("anthropic-redacted", &[payload]);
    let mut data = payload.to_vec();
    data.extend_from_slice(&mac);
    STANDARD.encode(data)
}

/// Whether `data` is a `redacted_thinking` data the mock issued (for any thinking).
pub(crate) fn redacted_data_is_valid(data: &str) -> bool {
    let Ok(bytes) = STANDARD.decode(data) else {
        return false;
    };
    if bytes.len() != REDACTED_PAYLOAD + 32 {
        return false;
    }
    let (payload, mac) = bytes.split_at(REDACTED_PAYLOAD);
    digest("anthropic-redacted", &[payload]) == mac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_deterministic_and_bound_to_what_they_sign() {
        assert_eq!(
            thought_signature("a", "f", "{}"),
            thought_signature("a", "f", "{}")
        );
        assert_ne!(
            thought_signature("a", "f", "{}"),
            thought_signature("b", "f", "{}")
        );
        // Length prefixes: moving a character between parts changes the signature.
        assert_ne!(
            thought_signature("ab", "f", ""),
            thought_signature("a", "bf", "")
        );
        assert_ne!(thinking_signature("", "x"), thinking_signature("", "y"));
        assert_ne!(thinking_signature("", "x"), thinking_signature("r", "x"));
        assert!(redacted_data_is_valid(&redacted_data("x")));
        assert!(!redacted_data_is_valid(&thinking_signature("", "x")));
        assert!(!redacted_data_is_valid("not base64!"));
        let mut tampered = STANDARD.decode(redacted_data("x")).unwrap();
        tampered[0] ^= 1;
        assert!(!redacted_data_is_valid(&STANDARD.encode(tampered)));
    }
}
