//! Wire types the document must describe exactly.
//!
//! * [`Text`] — a JSON string, strictly: poem-openapi's `String` also accepts a number
//!   or a boolean in its place (`{"content": 42}` would become the text "42"), which the
//!   document (`type: string`) does not allow.
//! * [`JsonObject`] — any JSON object (settings, configs), documented as `type: object`.
//! * [`Documented`] — a value serialized with serde (the protocol's types, on the hot
//!   path) that presents the schema of a poem-openapi mirror type; a unit test per use
//!   checks that the serde form fits the mirror's schema.

use std::{borrow::Cow, marker::PhantomData, ops::Deref};

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

/// A string that only a JSON string parses as.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(pub String);

impl Text {
    pub fn into_inner(self) -> String {
        self.0
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<Text> for String {
    fn from(text: Text) -> Self {
        text.0
    }
}

impl Type for Text {
    const IS_REQUIRED: bool = true;
    raw_self!();

    fn name() -> Cow<'static, str> {
        "string".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema::new("string")))
    }
}

impl ParseFromJSON for Text {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value.unwrap_or_default() {
            Value::String(s) => Ok(Self(s)),
            other => Err(ParseError::expected_type(other)),
        }
    }
}

impl ToJSON for Text {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

/// The strings of a list of [`Text`]s.
pub fn texts(items: Vec<Text>) -> Vec<String> {
    items.into_iter().map(Text::into_inner).collect()
}

/// A JSON object with any members.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonObject(pub serde_json::Map<String, Value>);

impl From<JsonObject> for Value {
    fn from(object: JsonObject) -> Self {
        Value::Object(object.0)
    }
}

impl JsonObject {
    /// The object of a stored JSON value (anything else reads as empty).
    pub fn of(value: Value) -> Self {
        match value {
            Value::Object(map) => Self(map),
            _ => Self::default(),
        }
    }
}

impl Type for JsonObject {
    const IS_REQUIRED: bool = true;
    raw_self!();

    fn name() -> Cow<'static, str> {
        "object".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema::new("object")))
    }
}

impl ParseFromJSON for JsonObject {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value.unwrap_or_default() {
            Value::Object(map) => Ok(Self(map)),
            other => Err(ParseError::expected_type(other)),
        }
    }
}

impl ToJSON for JsonObject {
    fn to_json(&self) -> Option<Value> {
        Some(Value::Object(self.0.clone()))
    }
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
