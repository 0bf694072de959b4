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
    }
}
