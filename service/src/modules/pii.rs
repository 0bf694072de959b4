//! The PII redactor: finds personal data in the user's message (at `chat:before_ai`; in
//! the answer when configured at `chat:after_ai`) and replaces each finding with a
//! placeholder such as `[email]` before the model sees it.
//!
//! Detected: email addresses; phone numbers (international `+…`, and national forms);
//! payment card numbers (13–19 digits passing the Luhn check); IBANs (passing the
//! ISO 13616 mod-97 check); national ids from a configurable list (default: US SSN, UK
//! National Insurance number). The audit row holds the redacted text and the names of
//! the patterns that matched — never the values (DESIGN §8) — and the extraction
//! `pii_detected` says which kinds were found.
//!
//! Settings (`config`): `types` — which of `email`, `phone`, `card`, `iban`,
//! `national_id` to look for (default: all); `national_ids` — `[{name, pattern}]`
//! (regular expressions), replacing the default list.

use std::sync::LazyLock;

use async_trait::async_trait;
use parley_protocol::hooks::{Audit, Extraction, HookContext, HookResult, Modifications};
use regex::Regex;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ConfigError, Module, ModuleError, SettingsCache, read_settings};

/// A pattern of this file (tests compile each of them).
fn builtin(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid built-in pattern")
}

const KINDS: [&str; 5] = ["email", "phone", "card", "iban", "national_id"];

static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?i)\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b"));
static IBAN: LazyLock<Regex> = LazyLock::new(|| builtin(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b"));
static CARD: LazyLock<Regex> = LazyLock::new(|| builtin(r"\b\d(?:[ -]?\d){12,18}\b"));
static PHONE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(concat!(
        r"(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}\b)",
        r"|(?:\(\d{3}\) ?\d{3}[ .-]\d{4}\b)",
        r"|(?:\b\d{3}[ .-]\d{3}[ .-]\d{4}\b)",
        r"|(?:\b0\d{2,4}[ .-]?\d{3,4}[ .-]?\d{3,4}\b)",
    ))
});
static DEFAULT_IDS: LazyLock<Vec<(String, Regex)>> = LazyLock::new(|| {
    vec![
        ("us_ssn".into(), builtin(r"\b\d{3}-\d{2}-\d{4}\b")),
        (
            "uk_nino".into(),
            builtin(r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"),
        ),
    ]
});

/// The redactor's settings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    #[serde(default)]
    types: Option<Vec<String>>,
    #[serde(default)]
    national_ids: Option<Vec<NationalId>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NationalId {
    name: String,
    pattern: String,
}

/// Settings made ready to match.
#[derive(Debug)]
struct Compiled {
    kinds: Vec<String>,
    national_ids: Vec<(String, Regex)>,
}

impl Compiled {
    fn from_config(config: &Value) -> Result<Self, ConfigError> {
        let settings: Settings = read_settings(config, &["types", "national_ids"])?;
        let kinds = settings
            .types
            .unwrap_or_else(|| KINDS.iter().map(|k| (*k).to_owned()).collect());
        if let Some(bad) = kinds.iter().find(|k| !KINDS.contains(&k.as_str())) {
            return Err(ConfigError::invalid(
                "types",
                format!("unknown type `{bad}` (known: {})", KINDS.join(", ")),
            ));
        }
        let national_ids = match settings.national_ids {
            None => DEFAULT_IDS.clone(),
            Some(ids) => ids
                .into_iter()
                .map(|id| {
                    Regex::new(&id.pattern)
                        .map(|re| (id.name.clone(), re))
                        .map_err(|e| {
                            ConfigError::invalid("national_ids", format!("`{}`: {e}", id.name))
                        })
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(Self {
            kinds,
            national_ids,
        })
    }

    fn wants(&self, kind: &str) -> bool {
        self.kinds.iter().any(|k| k == kind)
    }
}

/// What redaction found.
#[derive(Debug, Default, PartialEq)]
pub struct Redaction {
    pub text: String,
    /// The patterns that matched (`email`, `card`, `national_id:us_ssn`, …), once each.
    pub patterns: Vec<String>,
    pub count: usize,
}

/// The PII redactor module.
#[derive(Debug, Default)]
pub struct PiiRedactor {
    compiled: SettingsCache<Compiled>,
}

#[async_trait]
impl Module for PiiRedactor {
    fn check_config(&self, config: &Value) -> Result<(), ConfigError> {
        Compiled::from_config(config).map(|_| ())
    }

    async fn run(&self, ctx: &HookContext) -> Result<HookResult, ModuleError> {
        let compiled = self.compiled.get(&ctx.config, Compiled::from_config)?;
        let (location, text) = super::subject(ctx);
        let Some(text) = text else {
            return Ok(HookResult::proceed());
        };
        let found = redact_with(text, &compiled);
        if found.count == 0 {
            return Ok(HookResult::proceed());
        }
        let types: Vec<&str> = found
            .patterns
            .iter()
            .map(|p| p.split(':').next().unwrap_or(p))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let modifications = if location == "response" {
            Modifications {
                response_content: Some(found.text.clone()),
                ..Modifications::default()
            }
        } else {
            Modifications {
                message_content: Some(found.text.clone()),
                ..Modifications::default()
            }
        };
        Ok(HookResult {
            modifications: Some(modifications),
            block_category: Some("pii".into()),
            extractions: vec![Extraction {
                kind: "pii_detected".into(),
                data: json!({"location": location, "types": types, "count": found.count}),
            }],
            audit: Some(Audit {
                original_content: found.text,
                redaction_reason: "personal data redacted".into(),
                patterns_matched: found.patterns,
            }),
            ..HookResult::default()
        })
    }
}

/// Redacts `text` with the default settings.
pub fn redact(text: &str) -> Redaction {
    static DEFAULT: LazyLock<Compiled> =
        LazyLock::new(|| Compiled::from_config(&json!({})).expect("the defaults are valid"));
    redact_with(text, &DEFAULT)
}

fn redact_with(text: &str, settings: &Compiled) -> Redaction {
    let mut out = Redaction {
        text: text.to_owned(),
        ..Redaction::default()
    };
    if settings.wants("email") {
        replace(&mut out, &EMAIL, "email", "[email]", |_| true);
    }
    if settings.wants("iban") {
        replace(&mut out, &IBAN, "iban", "[iban]", iban_valid);
    }
    if settings.wants("card") {
        replace(&mut out, &CARD, "card", "[card]", luhn_valid);
    }
    if settings.wants("national_id") {
        for (name, re) in &settings.national_ids {
            replace(
                &mut out,
                re,
                &format!("national_id:{name}"),
                "[national id]",
                |_| true,
            );
        }
    }
    if settings.wants("phone") {
        replace(&mut out, &PHONE, "phone", "[phone]", |m| {
            (8..=15).contains(&m.chars().filter(char::is_ascii_digit).count())
        });
    }
    out
}

/// Replaces the matches of `re` that pass `valid` with `placeholder`.
fn replace(
    out: &mut Redaction,
    re: &Regex,
    pattern: &str,
    placeholder: &str,
    valid: impl Fn(&str) -> bool,
) {
    let mut count = 0;
    let replaced = re.replace_all(&out.text, |caps: &regex::Captures<'_>| {
        let found = &caps[0];
        if valid(found) {
            count += 1;
            placeholder.to_owned()
        } else {
            found.to_owned()
        }
    });
    if count > 0 {
        out.text = replaced.into_owned();
        out.count += count;
        out.patterns.push(pattern.to_owned());
    }
}

/// The Luhn check of a card number (separators ignored).
pub fn luhn_valid(candidate: &str) -> bool {
    let digits: Vec<u32> = candidate.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The ISO 13616 check of an IBAN: the country and check digits moved to the end,
/// letters as numbers (A = 10), the whole mod 97 is 1.
pub fn iban_valid(candidate: &str) -> bool {
    let compact: String = candidate.chars().filter(|c| !c.is_whitespace()).collect();
    if !(15..=34).contains(&compact.len()) {
        return false;
    }
    let (head, tail) = compact.split_at(4);
    let mut remainder: u32 = 0;
    for c in tail.chars().chain(head.chars()) {
        let value = match c.to_digit(36) {
            Some(v) => v,
            None => return false,
        };
        remainder = if value >= 10 {
            (remainder * 100 + value) % 97
        } else {
            (remainder * 10 + value) % 97
        };
    }
    remainder == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modules::{
        ModuleKind, ModuleSettings,
        conformance::{Example, Expect, Harness, conformance_suite},
    };
    use parley_protocol::hooks::Hook;

    /// The redactor with its default settings.
    struct Redactor;

    #[async_trait]
    impl Harness for Redactor {
        async fn settings(&self) -> ModuleSettings {
            ModuleSettings::builtin("pii_redactor", ModuleKind::PiiRedactor)
        }

        fn refused(&self) -> Vec<(Value, &'static str)> {
            vec![
                (json!({"types": "email"}), "types"),
                (json!({"types": ["dna"]}), "types"),
                (
                    json!({"national_ids": [{"name": "x", "pattern": "("}]}),
                    "national_ids",
                ),
                (json!({"national_ids": [{"name": "x"}]}), "national_ids"),
                (json!({"typo": 1}), "typo"),
            ]
        }

        fn examples(&self) -> Vec<Example> {
            vec![
                Example::new(
                    Hook::BeforeAi,
                    "Mail me at jane.doe@example.org about it",
                    Expect::Modify,
                ),
                Example::new(
                    Hook::BeforeAi,
                    "My card is 4111 1111 1111 1111",
                    Expect::Modify,
                ),
            ]
        }
    }

    conformance_suite!(Redactor);

    #[test]
    fn finds_each_kind_and_keeps_the_rest() {
        let text = "Mail me at jane.doe@example.org or call +44 20 7946 0958, \
                    card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32, \
                    SSN 123-45-6789, US phone (415) 555-2671. Thanks!";
        let found = redact(text);
        assert_eq!(
            found.text,
            "Mail me at [email] or call [phone], card [card], IBAN [iban], \
             SSN [national id], US phone [phone]. Thanks!"
        );
        assert_eq!(
            found.patterns,
            ["email", "iban", "card", "national_id:us_ssn", "phone"]
        );
        assert_eq!(found.count, 6);
    }

    #[test]
    fn numbers_that_fail_their_check_are_left_alone() {
        // Not Luhn-valid, not a valid IBAN, not a phone (too few digits), a date.
        let text = "order 4111 1111 1111 1112, ref GB00 WEST 1234 5698 7654 32, \
                    room 1234, on 2026-11-23";
        let found = redact(text);
        assert_eq!(found.count, 0, "{found:?}");
        assert_eq!(found.text, text);
    }

    #[test]
    fn luhn_and_mod97() {
        assert!(luhn_valid("4111111111111111"));
        assert!(luhn_valid("5500-0000-0000-0004"));
        assert!(!luhn_valid("4111111111111112"));
        assert!(!luhn_valid("411111"));
        assert!(iban_valid("DE89 3704 0044 0532 0130 00"));
        assert!(!iban_valid("DE89 3704 0044 0532 0130 01"));
    }

    #[test]
    fn settings_choose_the_kinds_and_the_national_ids() {
        let only_email =
            Compiled::from_config(&json!({"types": ["email"]})).expect("valid settings");
        let found = redact_with("a@b.io 123-45-6789", &only_email);
        assert_eq!(found.text, "[email] 123-45-6789");
        let custom = Compiled::from_config(&json!({
            "national_ids": [{"name": "fr_insee", "pattern": r"\b[12]\d{12}\d{2}\b"}]
        }))
        .unwrap();
        let found = redact_with("n° 184127645108946 / 123-45-6789", &custom);
        assert_eq!(found.text, "n° [national id] / 123-45-6789");
        assert_eq!(found.patterns, ["national_id:fr_insee"]);
        assert!(Compiled::from_config(&json!({"types": ["dna"]})).is_err());
        assert!(
            Compiled::from_config(&json!({"national_ids": [{"name": "x", "pattern": "("}]}))
                .is_err()
        );
        assert!(Compiled::from_config(&json!({"typo": 1})).is_err());
    }
}
