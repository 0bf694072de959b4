use serde_json::json;

use super::*;
use crate::payloads::PayloadType;

fn markers() -> Markers {
    let registry = PayloadRegistry::builtin_and([PayloadType {
        name: "schema_proposal".into(),
        description: "Proposed changes to a schema.".into(),
        source: PayloadSource::Llm,
        schema: json!({"type": "object"}),
        llm_instructions: "Use it when asked.".into(),
        frontend_config: None,
    }])
    .unwrap();
    Markers::new(&registry, &["schema_proposal"])
}

/// Streams `pieces` through a gate: what was shown after each piece, what it found.
fn stream(pieces: &[&str]) -> (Vec<String>, Vec<Found>) {
    let mut gate = Gate::new(markers());
    let mut shown: Vec<String> = pieces.iter().map(|p| gate.push(p)).collect();
    shown.push(gate.finish());
    (shown, gate.found().to_vec())
}

fn whole(text: &str) -> (String, Vec<Found>) {
    let (shown, found) = stream(&[text]);
    (shown.concat(), found)
}

/// Texts with markers in every position and shape the gate knows.
const TEXTS: &[&str] = &[
    "Plain answer.",
    "Here is the plan.\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes, go on\"}]\n",
    "Sure.\n\nSUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}]\nSUGGESTED_ACTIONS: [{\"label\": \"Done\", \"action\": \"end_session\", \"handler\": \"server\"}]",
    "A\n  SCHEMA_PROPOSAL: ```json\n{\"name\": \"streams\"}\n```\nB",
    "A\nSCHEMA_PROPOSAL:\n{\n  \"name\": \"x\"\n}\nafter",
    "So, SUGGESTED_VALUES: [1]\nSuggested: yes\nSUGGESTED_VALUES are nice",
    "SUGGESTED_VALUES: not json\nSUGGESTED_VALUES: [1] and more\nend",
    "SUGGESTED_VALUES: [1, 2\nstill text\n",
    "SCHEMA_PROPOSAL: ```\n{\"a\": 1}\nx```\nno",
    "Line one.  \n\n  \nSUGGESTED_VALUES: []\n   ",
    "Ünïcödé 📚 text\nSUGG 📚\nSUGGESTED_VALUES: [\"📚\"]\r\nEnd.",
    "[[tool:0]]\nSUGGESTED_ACTIONS: [] \n",
];

#[test]
fn however_the_text_is_cut_the_gate_shows_and_finds_the_same() {
    for text in TEXTS {
        let (expected, found) = whole(text);
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        // Every cut in two, and one piece per character.
        for &i in &bounds {
            let (shown, got) = stream(&[&text[..i], &text[i..]]);
            assert_eq!(shown.concat(), expected, "{text:?} cut at {i}");
            assert_eq!(got, found, "{text:?} cut at {i}");
        }
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        let (shown, got) = stream(&pieces);
        assert_eq!(shown.concat(), expected, "{text:?} by characters");
        assert_eq!(got, found, "{text:?} by characters");
    }
}

#[test]
fn markers_never_reach_the_reader_and_text_passes_as_it_comes() {
    let text = TEXTS[2];
    let chars: Vec<String> = text.chars().map(String::from).collect();
    let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
    let (shown, found) = stream(&pieces);
    let mut seen = String::new();
    for piece in &shown {
        seen.push_str(piece);
        assert!(!seen.contains("SUGG"), "{seen:?}");
    }
    assert_eq!(seen, "Sure.");
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].marker, VALUES_MARKER);
    assert_eq!(found[1].value[0]["action"], "end_session");

    // Inside a line, each piece is shown as it arrives; a line is held only while it
    // may still open a marker.
    let mut gate = Gate::new(markers());
    assert_eq!(gate.push("Hello wor"), "Hello wor");
    assert_eq!(gate.push("ld.\nS"), "ld.");
    assert_eq!(gate.push("o"), "\nSo");
    assert_eq!(gate.push(" on\n  SUGGESTED_"), " on");
    assert_eq!(gate.push("VALUES: [1]"), "");
    assert_eq!(gate.push("\nThen"), "\nThen");
    assert_eq!(gate.finish(), "");
    assert_eq!(gate.found()[0].value, json!([1]));
}

#[test]
fn what_is_not_a_marker_is_shown_as_it_was_written() {
    for (text, shown) in [
        (TEXTS[5], TEXTS[5]),
        (TEXTS[6], TEXTS[6]),
        (TEXTS[7], TEXTS[7].trim_end()),
        (TEXTS[8], TEXTS[8]),
    ] {
        let (got, found) = whole(text);
        assert_eq!(got, shown);
        assert!(found.is_empty(), "{text:?}: {found:?}");
    }
    let (got, found) = whole(TEXTS[3]);
    assert_eq!(got, "A\nB");
    assert_eq!(found[0].payload_type.as_deref(), Some("schema_proposal"));
    assert_eq!(whole(TEXTS[4]).0, "A\nafter");
    assert_eq!(whole(TEXTS[9]).0, "Line one.");
}

#[test]
fn trailing_white_space_waits_for_text_and_settle_decides_the_line() {
    let mut gate = Gate::new(markers());
    assert_eq!(gate.push("Checking.\n\n"), "Checking.");
    // A function call follows: the held line is decided, the white space still waits.
    assert_eq!(gate.push("SUGGESTED"), "");
    assert_eq!(gate.settle(), "\n\nSUGGESTED");
    assert_eq!(gate.push("[[tool:0]]"), "[[tool:0]]");
    let mut gate = Gate::new(markers());
    gate.push("Done.\nSUGGESTED_VALUES: [2]");
    assert_eq!(gate.settle(), "");
    assert_eq!(gate.found().len(), 1);
    assert_eq!(gate.push("  \n"), "");
    assert_eq!(gate.finish(), "");
}

#[test]
fn a_marker_too_long_to_hold_is_text() {
    let long = format!(
        "SUGGESTED_VALUES: [\"{}\"]\nafter",
        "x".repeat(MAX_MARKER_BYTES)
    );
    let (shown, found) = whole(&long);
    assert_eq!(shown, long);
    assert!(found.is_empty());
    // Streamed, it is held while its line may still end within the bound, and let go
    // as text when it cannot.
    let mut gate = Gate::new(markers());
    assert_eq!(gate.push("SUGGESTED_VALUES: [\""), "");
    assert_eq!(gate.push(&"x".repeat(MAX_MARKER_BYTES)), "");
    assert_eq!(gate.push("\"]\nafter"), long);
    assert!(gate.found().is_empty());
}
