//! The marker gate: the model's text as it streams, with its marker lines held back
//! until they are decided and taken out, so what a reader is shown is what is stored.
//!
//! The gate sees the answer's text in pieces (deltas) and returns, for each, the text
//! that may be shown now:
//!
//! * inside a line that cannot be a marker, text passes at once;
//! * a line is held from its start while it may still become one (`SUGG`… of
//!   `SUGGESTED_VALUES:`, white space before it) — a few characters, decided by the
//!   first one that departs from every marker;
//! * a line that opens with a marker (`NAME:`) is held until its JSON value and the
//!   rest of its line are whole: a value that parses is taken out (kept in
//!   [`Gate::found`]), anything else is shown as the text it is. A value spread over
//!   several lines (pretty-printed, fenced) is held until it ends, at most
//!   [`MAX_MARKER_BYTES`]; a longer one is text;
//! * white space at the end of what was shown is held until text follows it: an
//!   answer's trailing white space (before markers that are taken out, or at its end) is
//!   never shown, as the stored message is trimmed.
//!
//! The decisions depend only on the text, never on how it was cut into deltas, so
//! [`super::extract`] is this gate run over a whole text, and the concatenated output
//! of any streaming of a text equals it.

use serde_json::Value;

use super::{ACTIONS_MARKER, VALUES_MARKER};
use crate::payloads::{PayloadRegistry, PayloadSource};

/// A marker line whose value (with its line) is longer than this is shown as text.
pub const MAX_MARKER_BYTES: usize = 16 * 1024;

/// The markers an answer may carry: suggestions, and the LLM payload types a tool
/// enables (with the type each names).
#[derive(Debug, Clone, PartialEq)]
pub struct Markers(Vec<(String, Option<String>)>);

impl Default for Markers {
    /// Suggestions only.
    fn default() -> Self {
        Self(vec![
            (VALUES_MARKER.to_owned(), None),
            (ACTIONS_MARKER.to_owned(), None),
        ])
    }
}

impl Markers {
    /// Suggestions, and the markers of the LLM types among `payload_types` (names in
    /// `registry`).
    pub fn new(registry: &PayloadRegistry, payload_types: &[&str]) -> Self {
        let mut markers = Self::default();
        for name in payload_types {
            if let Some(kind) = registry.get(name)
                && kind.source == PayloadSource::Llm
            {
                markers.0.push((kind.marker(), Some(kind.name.clone())));
            }
        }
        markers
    }

    /// The marker `rest` (a line without its indent) opens with, followed by `:`.
    fn opening(&self, rest: &str) -> Option<usize> {
        self.0.iter().position(|(m, _)| {
            rest.strip_prefix(m.as_str())
                .is_some_and(|r| r.starts_with(':'))
        })
    }

    /// Whether `rest` (an unfinished line without its indent) may still become a marker.
    fn may_open(&self, rest: &str) -> bool {
        self.0.iter().any(|(m, _)| m.starts_with(rest))
    }
}

/// A marker taken out of the text: its name, the payload type it names (none for
/// suggestions), and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub marker: String,
    pub payload_type: Option<String>,
    pub value: Value,
}

/// Where the gate is in the text it holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    /// The held text starts a line, which is not decided yet.
    #[default]
    LineStart,
    /// Inside a line that is text: shown up to its end.
    Plain,
    /// The held line opens with marker `marker`; its value starts at byte `from`.
    /// `scanned`: the held text's length when it was last looked at.
    Marker {
        marker: usize,
        from: usize,
        scanned: usize,
    },
}

/// The streaming marker gate (see the module's note).
#[derive(Debug, Clone, Default)]
pub struct Gate {
    markers: Markers,
    /// Text not decided yet (from a line start unless in [`Mode::Plain`]).
    held: String,
    mode: Mode,
    /// White space that was decided to be text, held until text follows it.
    trailing: String,
    found: Vec<Found>,
}

impl Gate {
    pub fn new(markers: Markers) -> Self {
        Self {
            markers,
            ..Self::default()
        }
    }

    /// Takes the next piece of the text; returns what may be shown now.
    pub fn push(&mut self, text: &str) -> String {
        self.held.push_str(text);
        self.decide(false)
    }

    /// The model's text stops here (a function call follows; text may come after it,
    /// as Parley's): the held line is decided as if the text ended. White space at the
    /// end stays held.
    pub fn settle(&mut self) -> String {
        self.decide(true)
    }

    /// The answer ends here: what is left to show (trailing white space is dropped).
    pub fn finish(&mut self) -> String {
        let out = self.decide(true);
        self.trailing.clear();
        out
    }

    /// The markers taken out so far, in order.
    pub fn found(&self) -> &[Found] {
        &self.found
    }

    /// Forgets the markers taken out (the answer they were in was replaced).
    pub fn forget_found(&mut self) {
        self.found.clear();
    }

    /// Decides what it can of the held text; `ended`: no more text follows it.
    fn decide(&mut self, ended: bool) -> String {
        let mut out = String::new();
        loop {
            match self.mode {
                Mode::Plain => match self.held.find('\n') {
                    Some(i) => {
                        let line: String = self.held.drain(..=i).collect();
                        self.keep(&line, &mut out);
                        self.mode = Mode::LineStart;
                    }
                    None => {
                        let rest = std::mem::take(&mut self.held);
                        self.keep(&rest, &mut out);
                        return out;
                    }
                },
                Mode::LineStart => {
                    if self.held.is_empty() {
                        return out;
                    }
                    let line_end = self.held.find('\n');
                    let line = &self.held[..line_end.unwrap_or(self.held.len())];
                    let rest = line.trim_start();
                    if let Some(marker) = self.markers.opening(rest) {
                        let indent = line.len() - rest.len();
                        self.mode = Mode::Marker {
                            marker,
                            from: indent + self.markers.0[marker].0.len() + 1,
                            scanned: 0,
                        };
                    } else if line_end.is_none() && !ended && self.markers.may_open(rest) {
                        return out;
                    } else {
                        self.mode = Mode::Plain;
                    }
                }
                Mode::Marker {
                    marker,
                    from,
                    scanned,
                } => {
                    // Until a new line arrives a value cannot be decided (it owns the
                    // rest of its line): nothing to look at again.
                    if !ended && scanned > 0 && !self.held[scanned..].contains('\n') {
                        self.mode = Mode::Marker {
                            marker,
                            from,
                            scanned: self.held.len(),
                        };
                        return out;
                    }
                    match value_after(&self.held, from, ended) {
                        Scan::Value(value, end) => {
                            let (name, payload_type) = self.markers.0[marker].clone();
                            self.found.push(Found {
                                marker: name,
                                payload_type,
                                value,
                            });
                            self.held.drain(..end);
                            self.mode = Mode::LineStart;
                        }
                        Scan::More => {
                            self.mode = Mode::Marker {
                                marker,
                                from,
                                scanned: self.held.len(),
                            };
                            return out;
                        }
                        Scan::Not => self.mode = Mode::Plain,
                    }
                }
            }
        }
    }

    /// Shows `text` (decided to be text), holding its trailing white space back.
    fn keep(&mut self, text: &str, out: &mut String) {
        let body = text.trim_end().len();
        if body == 0 {
            self.trailing.push_str(text);
            return;
        }
        out.push_str(&self.trailing);
        out.push_str(&text[..body]);
        self.trailing.clear();
        self.trailing.push_str(&text[body..]);
    }
}

/// What the text after a marker is, so far.
#[derive(Debug, PartialEq)]
enum Scan {
    /// One JSON value, and where it (its fence, the rest of its line and the line's end)
    /// ends.
    Value(Value, usize),
    /// It may still become one: more text is needed.
    More,
    /// It is not one (the line is text).
    Not,
}

/// The JSON value starting at `from` of `text` (after white space, optionally in a
/// ```` ``` ```` fence), with nothing else on the line it ends on. `ended`: no more
/// text follows `text`.
fn value_after(text: &str, from: usize, ended: bool) -> Scan {
    // More text could make it a value, unless none comes or its line would be too long.
    let more = if ended || text.len() > MAX_MARKER_BYTES {
        Scan::Not
    } else {
        Scan::More
    };
    let mut at = from + (text[from..].len() - text[from..].trim_start().len());
    if at == text.len() || (!ended && "```".starts_with(&text[at..])) {
        return more;
    }
    let fenced = text[at..].starts_with("```");
    if fenced {
        match text[at..].find('\n') {
            Some(i) => at += i + 1,
            None => return more,
        }
    }
    let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
    let value = match values.next() {
        None => return more,
        Some(Err(err)) if err.is_eof() => return more,
        Some(Err(_)) => return Scan::Not,
        Some(Ok(value)) => value,
    };
    let mut end = at + values.byte_offset();
    if fenced {
        let after = &text[end..];
        match after.find("```") {
            Some(close) if after[..close].trim().is_empty() => end += close + 3,
            Some(_) => return Scan::Not,
            None if after.trim_end_matches('`').trim().is_empty() => return more,
            None => return Scan::Not,
        }
    }
    // The rest of the line must be empty: the marker owns its line.
    let after = &text[end..];
    match after.find('\n') {
        Some(i) if after[..i].trim().is_empty() => end += i + 1,
        Some(_) => return Scan::Not,
        None if !after.trim().is_empty() => return Scan::Not,
        None if ended => end = text.len(),
        None => return more,
    }
    if end > MAX_MARKER_BYTES {
        return Scan::Not;
    }
    Scan::Value(value, end)
}

#[cfg(test)]
mod tests;
