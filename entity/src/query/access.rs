//! Who may use what: group reach, and the group settings the config cascade starts with.
//!
//! A user reaches the groups they are a member of and every ancestor of those groups
//! (a tool defined for an organisation serves all of its sub-groups). Ancestry is read
//! from the materialized `groups.path` ("/root/child/…/self/"), so one query suffices.

use std::collections::HashSet;

use parley_protocol::config::ConfigOverrides;
use parley_protocol::error::Result;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::Value;
use uuid::Uuid;

use crate::{error::Context, group_members, groups};

/// The ids of every group the user reaches.
pub async fn reachable_groups<C: ConnectionTrait>(db: &C, user_id: Uuid) -> Result<HashSet<Uuid>> {
    let paths: Vec<String> = groups::Entity::find()
        .select_only()
        .column(groups::Column::Path)
        .inner_join(group_members::Entity)
        .filter(group_members::Column::UserId.eq(user_id))
        .into_tuple()
        .all(db)
        .await
        .context("reading the caller's groups")?;
    Ok(paths.iter().flat_map(|path| path_ids(path)).collect())
}

/// The group ids named by a materialized path, root first.
pub fn path_ids(path: &str) -> Vec<Uuid> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .filter_map(|s| Uuid::parse_str(s).ok())
        .collect()
}

/// Deep-merges `overlay` into `base`: objects merge key by key, `null` means "not set
/// here" and keeps the base, anything else replaces. For free-form JSON (a module's
/// settings over the deployment's); the tool configuration merges typed
/// ([`parley_protocol::config::SessionConfig::overlay`]).
pub fn merge_json(base: &mut Value, overlay: &Value) {
    match (base, overlay) {
        (_, Value::Null) => {}
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                merge_json(base.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (base, overlay) => *base = overlay.clone(),
    }
}

/// The settings of a group's chain, root first (the first layers of a session's
/// configuration).
pub async fn group_settings_chain<C: ConnectionTrait>(
    db: &C,
    group: &groups::Model,
) -> Result<Vec<ConfigOverrides>> {
    let chain = path_ids(&group.path);
    let rows = groups::Entity::find()
        .filter(groups::Column::Id.is_in(chain.clone()))
        .all(db)
        .await
        .context("reading a group's ancestors")?;
    let mut settings = Vec::with_capacity(chain.len());
    for id in chain {
        if let Some(row) = rows.iter().find(|g| g.id == id) {
            settings.push(row.settings.clone());
        }
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn merge_overrides_scalars_and_merges_objects() {
        let mut base = json!({"level": "a", "limits": {"words": ["x"], "strict": false}});
        merge_json(
            &mut base,
            &json!({"limits": {"strict": true}, "retries": 5}),
        );
        assert_eq!(
            base,
            json!({"level": "a", "limits": {"words": ["x"], "strict": true}, "retries": 5})
        );
        merge_json(
            &mut base,
            &json!({"level": null, "limits": {"words": ["y"]}}),
        );
        assert_eq!(base["level"], json!("a"), "null leaves the inherited value");
        assert_eq!(base["limits"]["words"], json!(["y"]));
    }

    #[test]
    fn path_ids_reads_root_first_and_skips_garbage() {
        let a = Uuid::now_v7();
        let b = Uuid::now_v7();
        assert_eq!(path_ids(&format!("/{a}/{b}/")), vec![a, b]);
        assert!(path_ids("/not-a-uuid/").is_empty());
    }
}
