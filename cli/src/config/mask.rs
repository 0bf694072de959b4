//! How secrets print in `parley config check`: never. A secret shows as `***` (so a
//! reader sees it is set), a URL keeps everything but its password.

use secrecy::{ExposeSecret, SecretString};
use serde::Serializer;

const MASK: &str = "***";

pub fn secret_opt<S: Serializer>(secret: &Option<SecretString>, s: S) -> Result<S::Ok, S::Error> {
    match secret {
        Some(_) => s.serialize_str(MASK),
        None => s.serialize_none(),
    }
}

pub fn secret_map<S: Serializer>(
    secrets: &std::collections::BTreeMap<String, SecretString>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(secrets.keys().map(|key| (key, MASK)))
}

/// A URL with its password (if any) replaced by `***`.
pub fn url_opt<S: Serializer>(url: &Option<SecretString>, s: S) -> Result<S::Ok, S::Error> {
    match url {
        Some(url) => s.serialize_str(&masked_url(url.expose_secret())),
        None => s.serialize_none(),
    }
}

/// `scheme://user:password@host/…` → `scheme://user:***@host/…`; a URL without a
/// password is shown whole; one that cannot be read is masked whole.
pub fn masked_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return MASK.to_owned();
    };
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split_once(':').map_or(credentials, |(u, _)| u);
            let password = credentials.contains(':');
            if password || user.is_empty() {
                format!("{scheme}://{user}:{MASK}@{host}{path}")
            } else {
                // `redis://token@host`: a lone user part may be a password.
                format!("{scheme}://{MASK}@{host}{path}")
            }
        }
        None => url.to_owned(),
    }
}

/// Removes the `null`s TOML cannot say (absent settings print as absent).
pub fn drop_nulls(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::masked_url;

    #[test]
    fn urls_keep_everything_but_the_password() {
        for (url, shown) in [
            (
                "postgres://parley:s3cret@db:5432/parley",
                "postgres://parley:***@db:5432/parley",
            ),
            ("redis://:pw@cache:6379/0", "redis://:***@cache:6379/0"),
            ("redis://cache:6379/", "redis://cache:6379/"),
            ("rediss://token@cache/", "rediss://***@cache/"),
            (
                "redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7000",
                "redis+cluster://:***@10.0.0.1:7000,10.0.0.2:7000",
            ),
            ("postgres://u:p@w@h/db?x=@", "postgres://u:***@h/db?x=@"),
            ("sqlite://data/parley.db", "sqlite://data/parley.db"),
            ("not a url", "***"),
        ] {
            assert_eq!(masked_url(url), shown, "{url}");
        }
    }
}
