//! JSON values the API document must describe exactly, shared by the api (which parses
//! requests with them) and the types of this crate that carry them (the tool
//! configuration, [`crate::config`]).
//!
//! * [`Text`] — a JSON string, strictly: poem-openapi's `String` also accepts a number
//!   or a boolean in its place (`{"content": 42}` would become the text "42"), which the
//!   document (`type: string`) does not allow.
//! * [`JsonObject`] — any JSON object (settings, a module's config), documented as
//!   `type: object`.
//!
//! Both are plain serde values too (a string, an object), so a type that holds them
//! derives serde and poem-openapi's `Object` alike.

use std::ops::Deref;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A string that only a JSON string parses as.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
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

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Self(text.to_owned())
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Self(text)
    }
}

/// A JSON object with any members.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JsonObject(pub Map<String, Value>);

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

#[cfg(feature = "openapi")]
mod openapi {
    //! `Type`, `ParseFromJSON` and `ToJSON` for the newtypes: each parses from its one
    //! kind of JSON value only and is documented as that type.

    use std::borrow::Cow;

    use poem_openapi::{
        registry::{MetaSchema, MetaSchemaRef},
        types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type},
    };
    use serde_json::Value;

    use super::{JsonObject, Text};

    macro_rules! json_newtype {
        ($name:ident, $variant:ident, $ty:literal) => {
            impl Type for $name {
                const IS_REQUIRED: bool = true;
                type RawValueType = Self;
                type RawElementValueType = Self;

                fn name() -> Cow<'static, str> {
                    $ty.into()
                }

                fn schema_ref() -> MetaSchemaRef {
                    MetaSchemaRef::Inline(Box::new(MetaSchema::new($ty)))
                }

                fn as_raw_value(&self) -> Option<&Self::RawValueType> {
                    Some(self)
                }

                fn raw_element_iter<'a>(
                    &'a self,
                ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
                    Box::new(self.as_raw_value().into_iter())
                }
            }

            impl ParseFromJSON for $name {
                fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
                    match value.unwrap_or_default() {
                        Value::$variant(inner) => Ok(Self(inner)),
                        other => Err(ParseError::expected_type(other)),
                    }
                }
            }

            impl ToJSON for $name {
                fn to_json(&self) -> Option<Value> {
                    Some(Value::$variant(self.0.clone()))
                }
            }
        };
    }

    json_newtype!(Text, String, "string");
    json_newtype!(JsonObject, Object, "object");
}
