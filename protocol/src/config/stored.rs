//! The tolerant reader of stored configurations (serde's side of the types).
//!
//! Before the configuration was typed, group settings and assignment configs were any
//! JSON object, merged key by key into the session's config, and every reader took the
//! key it wanted by name and let a value of another type count as absent (`as_str`,
//! `as_bool`, `as_u64`, a list's strings). Rows stored then still load, and mean what
//! they meant: the field deserializers here ignore what they cannot read instead of
//! failing the whole row, and serde ignores unknown keys (the types do not deny them on
//! the serde side; the API's parse does).

use serde::{Deserialize, Deserializer, de::DeserializeOwned};
use serde_json::Value;

/// A `T`, or absent when the stored value is not one (or is `null`).
pub fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// A list of `T`: the items that are `T`s, in order (others are skipped, as the string
/// readers skipped them); absent when the stored value is no list.
pub fn list<'de, D, T>(deserializer: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => Some(
            items
                .into_iter()
                .filter_map(|item| serde_json::from_value(item).ok())
                .collect(),
        ),
        _ => None,
    })
}

/// The `skills` switch: a boolean, or — in free-form settings of earlier versions — an
/// object whose `enabled: false` turned the router off (an object without a boolean
/// `enabled` said nothing, so it reads as absent).
pub fn skills<'de, D>(deserializer: D) -> Result<Option<bool>, D::Error>
where
    D: Deserializer<'de>,
{
    #[derive(Deserialize)]
    struct Switch {
        #[serde(default, deserialize_with = "lenient")]
        enabled: Option<bool>,
    }
    Ok(match Value::deserialize(deserializer)? {
        Value::Bool(on) => Some(on),
        object @ Value::Object(_) => serde_json::from_value::<Switch>(object)
            .ok()
            .and_then(|s| s.enabled),
        _ => None,
    })
}

/// `above` over `below`: set replaces, absent inherits.
pub(crate) fn over<T: Clone>(below: &mut Option<T>, above: &Option<T>) {
    if above.is_some() {
        below.clone_from(above);
    }
}
