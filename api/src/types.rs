//! Wire types the document must describe exactly.
//!
//! * [`Text`] — a JSON string, strictly: poem-openapi's `String` also accepts a number
//!   or a boolean in its place (`{"content": 42}` would become the text "42"), which the
//!   document (`type: string`) does not allow. Defined in `parley_protocol::wire`, with
//!   [`JsonObject`], because the tool configuration's types hold them too.
//! * [`MessageText`] — what a user says: a JSON string with a character that is not
//!   white space, at most [`MAX_MESSAGE_CHARS`] characters. Checked in code rather than
//!   with poem's `pattern` validator, which compiles its regex on every request (a
//!   Unicode `\S` costs about a millisecond, on the hottest route).
//! * [`Email`] — an e-mail address: one `@` between two runs of characters that are
//!   neither `@` nor white space. In code for the same reason, and because regex
//!   engines disagree on `\s` (Rust's and Python's count U+0085, ECMAScript's — the one
//!   JSON Schema means — does not): a fuzzer found the server rejecting an address the
//!   document allowed.
//! * [`EventId`] — the `Last-Event-ID` header: a `seq`.
//! * [`AnyJson`] — any JSON value, `null` included, that must be present: poem's own
//!   `Value` reads a missing field as `null`, which would let `{}` pass for a body whose
//!   one field is required.
//! * [`JsonObject`] — any JSON object (a module's settings, a schema), documented as
//!   `type: object`.
//! * [`Documented`] — a value serialized with serde (the protocol's types, on the hot
//!   path) that presents the schema of a poem-openapi mirror type; a unit test per use
//!   checks that the serde form fits the mirror's schema.

use std::{borrow::Cow, marker::PhantomData};

use parley_service::catalog::MAX_MESSAGE_CHARS;
use poem_openapi::types::ParseFromParameter;
use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type},
};
use serde::Serialize;
use serde_json::Value;

/// Implements the parts of `Type` every wrapper here shares.
macro_rules! raw_self {
    () => {
        type RawValueType = Self;
        type RawElementValueType = Self;

        fn as_raw_value(&self) -> Option<&Self::RawValueType> {
            Some(self)
        }

        fn raw_element_iter<'a>(
            &'a self,
        ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
            Box::new(self.as_raw_value().into_iter())
        }
    };
}
pub(crate) use raw_self;

/// `Type`, `ParseFromJSON` and `ToJSON` for a newtype over a JSON string that
/// `$name::check` accepts (its error is the message a client reads), documented as the
/// `type: string` schema `$schema` makes of a plain one.
macro_rules! checked_string {
    ($name:ident, |$schema:ident| $doc:expr) => {
        impl Type for $name {
            const IS_REQUIRED: bool = true;
            raw_self!();

            fn name() -> Cow<'static, str> {
                "string".into()
            }

            fn schema_ref() -> MetaSchemaRef {
                let $schema = MetaSchema::new("string");
                MetaSchemaRef::Inline(Box::new($doc))
            }
        }

        impl ParseFromJSON for $name {
            fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
                let Text(text) = Text::parse_from_json(value).map_err(ParseError::propagate)?;
                Self::check(&text).map_err(ParseError::custom)?;
                Ok(Self(text))
            }
        }

        impl ToJSON for $name {
            fn to_json(&self) -> Option<Value> {
                Some(Value::String(self.0.clone()))
            }
        }
    };
}

pub use parley_protocol::wire::{JsonObject, Text};

/// White space as JSON Schema's (ECMAScript's) `\s` sees it, so that the server and
/// the document's `pattern: "\\S"` agree on every character.
fn is_schema_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// Any JSON value, present (`null` is a value; a missing field is refused).
#[derive(Debug, Clone, PartialEq)]
pub struct AnyJson(pub Value);

impl Type for AnyJson {
    const IS_REQUIRED: bool = true;

    raw_self!();

    fn name() -> Cow<'static, str> {
        "any".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema::ANY))
    }
}

impl ParseFromJSON for AnyJson {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        value
            .map(Self)
            .ok_or_else(|| ParseError::custom("required (`null` is a value)"))
    }
}

impl ToJSON for AnyJson {
    fn to_json(&self) -> Option<Value> {
        Some(self.0.clone())
    }
}

/// A message's text: a JSON string holding a character that is not white space, at
/// most [`MAX_MESSAGE_CHARS`] characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageText(pub String);

impl MessageText {
    fn check(text: &str) -> Result<(), UnfitMessage> {
        if text.chars().all(is_schema_space) {
            return Err(UnfitMessage::Blank);
        }
        if text.chars().count() > MAX_MESSAGE_CHARS {
            return Err(UnfitMessage::TooLong);
        }
        Ok(())
    }
}

/// Why a message's text does not fit (the message a client reads).
#[derive(Debug, thiserror::Error)]
enum UnfitMessage {
    #[error("must hold a character that is not white space")]
    Blank,
    #[error("must be at most {MAX_MESSAGE_CHARS} characters")]
    TooLong,
}

checked_string!(MessageText, |schema| MetaSchema {
    max_length: Some(MAX_MESSAGE_CHARS),
    pattern: Some("\\S".to_owned()),
    ..schema
});

/// An e-mail address as the document's pattern says: 3 to 254 characters, one `@`
/// with at least one character on each side, no white space (ECMAScript's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(pub String);

impl Email {
    pub const PATTERN: &'static str = r"^[^@\s]+@[^@\s]+$";

    fn check(text: &str) -> Result<(), NotAnEmail> {
        let chars = text.chars().count();
        let fits = text.split_once('@').is_some_and(|(local, domain)| {
            (3..=254).contains(&chars)
                && !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !text.chars().any(is_schema_space)
        });
        if fits { Ok(()) } else { Err(NotAnEmail) }
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// A string that is not an e-mail address as the document's pattern says.
#[derive(Debug, thiserror::Error)]
#[error(
    "must be an e-mail address: one `@` with characters on each side, no white space, 3 to 254 characters"
)]
struct NotAnEmail;

checked_string!(Email, |schema| MetaSchema {
    min_length: Some(3),
    max_length: Some(254),
    pattern: Some(Email::PATTERN.to_owned()),
    ..schema
});

/// The `Last-Event-ID` header: the `seq` of the last event a reader holds (1 to 16
/// digits, as the document's pattern says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventId(pub u64);

impl Type for EventId {
    const IS_REQUIRED: bool = true;
    raw_self!();

    fn name() -> Cow<'static, str> {
        "string".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            pattern: Some("^[0-9]{1,16}$".to_owned()),
            ..MetaSchema::new("string")
        }))
    }
}

impl ParseFromParameter for EventId {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        let digits = (1..=16).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_digit());
        match value.parse() {
            Ok(seq) if digits => Ok(Self(seq)),
            _ => Err(ParseError::custom("must be an event id (1 to 16 digits)")),
        }
    }
}

/// The strings of a list of [`Text`]s.
pub fn texts(items: Vec<Text>) -> Vec<String> {
    items.into_iter().map(Text::into_inner).collect()
}

/// `T` on the wire (serde), documented as the schema of `D`.
pub struct Documented<T, D> {
    pub value: T,
    _doc: PhantomData<fn() -> D>,
}

impl<T, D> Documented<T, D> {
    pub fn new(value: T) -> Self {
        Self {
            value,
            _doc: PhantomData,
        }
    }
}

impl<T: Send + Sync, D: Type> Type for Documented<T, D> {
    const IS_REQUIRED: bool = true;
    raw_self!();

    fn name() -> Cow<'static, str> {
        D::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        D::schema_ref()
    }

    fn register(registry: &mut Registry) {
        D::register(registry);
    }
}

impl<T: Serialize + Send + Sync, D: Type> ToJSON for Documented<T, D> {
    fn to_json(&self) -> Option<Value> {
        serde_json::to_value(&self.value).ok()
    }
}

impl<T: serde::de::DeserializeOwned + Send + Sync, D: Type> ParseFromJSON for Documented<T, D> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        serde_json::from_value(value.unwrap_or_default())
            .map(Self::new)
            .map_err(ParseError::custom)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_accepts_only_strings() {
        assert_eq!(
            Text::parse_from_json(Some(json!("hi"))).ok(),
            Some(Text("hi".into()))
        );
        for wrong in [json!(42), json!(true), json!(1.5), json!(null), json!([])] {
            assert!(
                Text::parse_from_json(Some(wrong.clone())).is_err(),
                "{wrong}"
            );
        }
    }

    #[test]
    fn any_json_takes_null_but_not_a_missing_value() {
        for value in [json!(null), json!({}), json!("x"), json!([1])] {
            assert_eq!(
                AnyJson::parse_from_json(Some(value.clone())).ok(),
                Some(AnyJson(value))
            );
        }
        assert!(AnyJson::parse_from_json(None).is_err());
    }

    #[test]
    fn message_text_needs_a_character_that_is_not_white_space() {
        for good in ["hi", " a ", "\u{85}", "x\u{feff}"] {
            assert!(
                MessageText::parse_from_json(Some(json!(good))).is_ok(),
                "{good:?}"
            );
        }
        for bad in [
            json!(""),
            json!(" \t\n"),
            json!("\u{feff}\u{3000}\u{a0}"),
            json!(42),
        ] {
            assert!(
                MessageText::parse_from_json(Some(bad.clone())).is_err(),
                "{bad}"
            );
        }
        let longest = "a".repeat(MAX_MESSAGE_CHARS);
        assert!(MessageText::parse_from_json(Some(json!(longest))).is_ok());
        let longer = "é".repeat(MAX_MESSAGE_CHARS + 1);
        assert!(MessageText::parse_from_json(Some(json!(longer))).is_err());
    }

    #[test]
    fn emails_follow_the_documented_pattern_with_ecmascript_white_space() {
        // U+0085 is white space to Rust's and Python's `\s`, not to ECMAScript's.
        for good in ["a@b", "x\u{85}y@\u{f}", "é@é.example", "a.b+c@d.e"] {
            assert!(
                Email::parse_from_json(Some(json!(good))).is_ok(),
                "{good:?}"
            );
        }
        let longest = format!("a@{}", "é".repeat(252));
        assert!(Email::parse_from_json(Some(json!(longest))).is_ok());
        for bad in [
            json!("@b"),
            json!("a@"),
            json!("ab"),
            json!("a@b@c"),
            json!("a b@c"),
            json!("a@b\u{a0}"),
            json!(format!("a@{}", "b".repeat(253))),
            json!(7),
        ] {
            assert!(Email::parse_from_json(Some(bad.clone())).is_err(), "{bad}");
        }
    }

    #[test]
    fn event_ids_are_one_to_sixteen_digits() {
        assert_eq!(EventId::parse_from_parameter("7").ok(), Some(EventId(7)));
        assert!(EventId::parse_from_parameter("9999999999999999").is_ok());
        for bad in ["", "-1", "1.0", "x", " 1", "12345678901234567"] {
            assert!(EventId::parse_from_parameter(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn json_object_accepts_only_objects() {
        assert!(JsonObject::parse_from_json(Some(json!({"a": 1}))).is_ok());
        for wrong in [json!("x"), json!(1), json!([]), json!(null)] {
            assert!(
                JsonObject::parse_from_json(Some(wrong.clone())).is_err(),
                "{wrong}"
            );
        }
    }
}
