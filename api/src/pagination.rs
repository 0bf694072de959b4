//! Cursor pagination on the wire: opaque cursors (base64url of the position's key) and
//! the `Page` envelope every list answers with.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use parley_entity::{
    error::{Error, Result},
    query::page::{self, PageRequest},
};
use poem_openapi::{
    Object,
    types::{ParseFromJSON, ToJSON},
};
use serde::{Serialize, de::DeserializeOwned};

pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;

/// One page of a list. Pass `next_cursor` as `cursor` to get the next page; it is absent
/// on the last page.
#[derive(Debug, Object)]
pub struct Page<T: ParseFromJSON + ToJSON> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T: ParseFromJSON + ToJSON> Page<T> {
    /// Converts a page of rows into the wire envelope.
    pub fn from_rows<R, K: Serialize>(rows: page::Page<R, K>, view: impl FnMut(R) -> T) -> Self {
        Self {
            next_cursor: rows.next.as_ref().map(encode),
            items: rows.items.into_iter().map(view).collect(),
        }
    }
}

pub fn encode<K: Serialize>(key: &K) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(key).unwrap_or_default())
}

pub fn decode<K: DeserializeOwned>(cursor: &str) -> Result<K> {
    URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| {
            Error::invalid(
                "invalid_cursor",
                "the cursor is not one this list handed out",
            )
        })
}

/// Builds a page request from the `limit` and `cursor` query parameters.
pub fn request<K: DeserializeOwned>(
    limit: Option<u32>,
    cursor: Option<&str>,
) -> Result<PageRequest<K>> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::invalid(
            "invalid_limit",
            format!("limit must be between 1 and {MAX_LIMIT}"),
        ));
    }
    Ok(PageRequest {
        limit: u64::from(limit),
        after: cursor.map(decode).transpose()?,
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
        assert!(request::<uuid::Uuid>(Some(0), None).is_err());
        assert!(request::<uuid::Uuid>(Some(MAX_LIMIT + 1), None).is_err());
        assert_eq!(
            request::<uuid::Uuid>(None, None).unwrap().limit,
            u64::from(DEFAULT_LIMIT)
        );
    }
}
