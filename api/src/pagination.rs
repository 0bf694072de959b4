//! Cursor pagination on the wire: the `limit` parameter, opaque cursors (base64url of the
//! position's key) and the `Page` envelope every list answers with.

use std::borrow::Cow;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use parley_entity::query::page::{self, PageRequest};
use parley_protocol::error::ErrorCode;
use poem_openapi::{
    Object,
    registry::{MetaSchema, MetaSchemaRef},
    types::{ParseError, ParseFromParameter, ParseResult, ToJSON, Type},
};
use serde::{Serialize, de::DeserializeOwned};

use crate::{error::Problem, types::raw_self};

pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;

/// One page of a list. Pass `next_cursor` as `cursor` to get the next page; it is absent
/// on the last page.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Page<T: poem_openapi::types::ParseFromJSON + ToJSON> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T: poem_openapi::types::ParseFromJSON + ToJSON> Page<T> {
    /// Converts a page of rows into the wire envelope.
    pub fn from_rows<R, K: Serialize>(rows: page::Page<R, K>, view: impl FnMut(R) -> T) -> Self {
        Self {
            next_cursor: rows.next.as_ref().map(encode),
            items: rows.items.into_iter().map(view).collect(),
        }
    }
}

/// The `limit` query parameter: a page size from 1 to [`MAX_LIMIT`], documented with
/// its bounds and default so a client (or a fuzzer) knows what is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit(pub u32);

impl Default for Limit {
    fn default() -> Self {
        Self(DEFAULT_LIMIT)
    }
}

impl Type for Limit {
    const IS_REQUIRED: bool = true;
    raw_self!();

    fn name() -> Cow<'static, str> {
        "integer(int32)".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            minimum: Some(1.0),
            maximum: Some(f64::from(MAX_LIMIT)),
            default: Some(DEFAULT_LIMIT.into()),
            ..MetaSchema::new_with_format("integer", "int32")
        }))
    }
}

impl ParseFromParameter for Limit {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        let limit: u32 = value
            .parse()
            .map_err(|_| ParseError::custom("not an integer"))?;
        if (1..=MAX_LIMIT).contains(&limit) {
            Ok(Self(limit))
        } else {
            Err(ParseError::custom(format!(
                "must be between 1 and {MAX_LIMIT}"
            )))
        }
    }
}

pub fn encode<K: Serialize>(key: &K) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(key).unwrap_or_default())
}

/// The key of a cursor this list handed out; anything else is a bad parameter (400
/// `invalid_cursor`).
pub fn decode<K: DeserializeOwned>(cursor: &str) -> Result<K, Box<Problem>> {
    URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| {
            Box::new(Problem::new(
                ErrorCode::InvalidCursor,
                "parameter `cursor`: not a cursor this list handed out",
            ))
        })
}

/// Builds a page request from the `limit` and `cursor` query parameters; an empty
/// `cursor` is no cursor (the first page).
pub fn request<K: DeserializeOwned>(
    limit: Option<Limit>,
    cursor: Option<&str>,
) -> Result<PageRequest<K>, Box<Problem>> {
    Ok(PageRequest {
        limit: u64::from(limit.unwrap_or_default().0),
        // `str::is_empty` by name: with poem-openapi's `Type` in scope, `c.is_empty()` on
        // a `&&str` resolves to `Type::is_empty`, which is false for every string.
        after: cursor
            .filter(|c| !str::is_empty(c))
            .map(decode)
            .transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let id = uuid::Uuid::now_v7();
        let back: uuid::Uuid = decode(&encode(&id)).unwrap();
        assert_eq!(back, id);
        assert!(decode::<uuid::Uuid>("not a cursor").is_err());
        assert_eq!(
            request::<uuid::Uuid>(None, None).unwrap().limit,
            u64::from(DEFAULT_LIMIT)
        );
    }

    #[test]
    fn an_empty_cursor_is_the_first_page() {
        let page = request::<uuid::Uuid>(None, Some("")).expect("no error");
        assert_eq!(page.after, None);
        assert!(request::<uuid::Uuid>(None, Some(" ")).is_err());
    }

    #[test]
    fn limits_outside_their_bounds_do_not_parse() {
        assert_eq!(Limit::parse_from_parameter("1").ok(), Some(Limit(1)));
        assert_eq!(Limit::parse_from_parameter("100").ok(), Some(Limit(100)));
        for bad in ["0", "101", "-1", "1.5", "x", ""] {
            assert!(Limit::parse_from_parameter(bad).is_err(), "{bad}");
        }
    }
}
