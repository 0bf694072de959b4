//! A response of the Responses API is a segment of a Parley turn: a turn that calls the
//! caller's functions answers with a response that ends with those `function_call`s
//! while the turn waits, and the request that hands their results back gets a new
//! response — the same prompt, read on from where it resumed. A response's id names its
//! segment: `resp_<prompt>` for a turn's first, `resp_<prompt>_<attempt>_<calls>` for
//! one that continues it (from the attempt that waited, calls numbered from `calls` on:
//! [`Continuing`]), so each is read, streamed again and referred to on its own, and its
//! output items' ids (`msg_<segment>_<n>`) are unique across the turn.

use std::fmt;

use uuid::Uuid;

use super::chat_events::Continuing;

/// A turn's part a response shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Segment {
    pub prompt: Uuid,
    /// Where a continuation starts; `None` for the turn's first response.
    pub from: Option<Continuing>,
}

impl Segment {
    pub fn first(prompt: Uuid) -> Self {
        Self { prompt, from: None }
    }

    /// The segment a key names (`<prompt>` or `<prompt>_<attempt>_<calls>`, the prompt
    /// as 32 hex digits or a hyphenated UUID).
    pub fn parse(key: &str) -> Option<Self> {
        let mut parts = key.split('_');
        let prompt = Uuid::parse_str(parts.next()?).ok()?;
        let from = match (parts.next(), parts.next(), parts.next()) {
            (None, _, _) => None,
            (Some(attempt), Some(calls), None) => Some(Continuing {
                attempt: attempt.parse().ok()?,
                calls: calls.parse().ok()?,
            }),
            _ => return None,
        };
        Some(Self { prompt, from })
    }

    /// The segment a response id names (`resp_…`; a bare key too).
    pub fn of_response(id: &str) -> Option<Self> {
        Self::parse(id.strip_prefix("resp_").unwrap_or(id))
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.prompt.simple())?;
        if let Some(from) = self.from {
            write!(f, "_{}_{}", from.attempt, from.calls)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_key_round_trips_and_nothing_else_parses() {
        let prompt = Uuid::now_v7();
        let first = Segment::first(prompt);
        assert_eq!(first.to_string(), prompt.simple().to_string());
        assert_eq!(Segment::parse(&first.to_string()), Some(first));
        assert_eq!(Segment::parse(&prompt.to_string()), Some(first));
        let next = Segment {
            prompt,
            from: Some(Continuing {
                attempt: 2,
                calls: 3,
            }),
        };
        assert_eq!(next.to_string(), format!("{}_2_3", prompt.simple()));
        assert_eq!(Segment::of_response(&format!("resp_{next}")), Some(next));
        for bad in [
            format!("{}_2", prompt.simple()),
            format!("{}_2_3_4", prompt.simple()),
            format!("{}_x_3", prompt.simple()),
            "resp_garbage".to_owned(),
            String::new(),
        ] {
            assert_eq!(Segment::of_response(&bad), None, "{bad}");
        }
    }
}
