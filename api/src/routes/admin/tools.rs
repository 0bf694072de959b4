//! `/v1/admin/tools`: chat tools and their full definitions.
//!
//! The definition's type, [`ToolDefinition`] (the protocol's), is its schema: a body that
//! parses is a valid definition, stored as it is typed. Stored definitions are read
//! tolerantly (`parley_protocol::config::stored`): one written by an earlier version
//! still loads.

use chrono::{DateTime, Utc};
use parley_entity::{
    query::{resource::names::Names, tools as q},
    tools,
};
use parley_protocol::config::ToolDefinition;
use parley_protocol::error::{Error, ErrorCode, Result};
use poem_openapi::Object;
use serde_json::Value;
use uuid::Uuid;

use super::resource::{FromRow, IntoChanges, IntoNew, admin_api};
use crate::{state::AppState, types::Text};

/// A chat tool with its full definition.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Tool {
    pub id: Uuid,
    pub group_id: Uuid,
    /// The group's name (absent only when it was deleted while the answer was read).
    pub group_name: Option<String>,
    pub name: String,
    /// The tool's kind (e.g. `chat`).
    #[oai(rename = "type")]
    pub kind: String,
    pub definition: ToolDefinition,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl FromRow<tools::Model, Names> for Tool {
    fn from_row(t: tools::Model, groups: &Names) -> Self {
        Self {
            id: t.id,
            group_id: t.group_id,
            group_name: groups.get(t.group_id),
            name: t.name,
            kind: t.r#type,
            definition: t.definition,
            created_at: t.created_at,
            updated_at: t.updated_at,
        }
    }
}

/// 422 `unknown_function` when the definition names a function the deployment lacks
/// (or lists one under `approval_required` that is not among its `functions`),
/// `unknown_payload_type` when it enables a payload type the model cannot write,
/// `unknown_module` when it names a module the deployment lacks (or one twice),
/// `invalid_module_config` when a module's settings do not suit it,
/// `validation_failed` when its sampling bounds cannot hold.
fn check_functions(state: &AppState, definition: &ToolDefinition) -> Result<()> {
    if let Some(refused) = definition.sampling.as_ref().and_then(|s| s.problem()) {
        return Err(Error::invalid(
            ErrorCode::ValidationFailed,
            format!("definition.sampling.{refused}"),
        ));
    }
    let names = definition.functions.iter().flatten().map(|name| &**name);
    state.turns.functions.load().check_names(names)?;
    let offered = |name: &str| definition.functions.iter().flatten().any(|f| &**f == name);
    if let Some(name) = definition
        .approval_required
        .iter()
        .flatten()
        .find(|name| !offered(name))
    {
        return Err(Error::invalid(
            ErrorCode::UnknownFunction,
            format!(
                "`approval_required` names `{}`, which is not one of the tool's `functions`",
                &**name
            ),
        ));
    }
    let modules: Vec<(String, Option<Value>)> = definition
        .modules
        .iter()
        .flatten()
        .map(|m| (m.name.to_string(), m.config.clone().map(Value::from)))
        .collect();
    state
        .turns
        .modules
        .check_tool(&modules)
        .map_err(|err| Error::invalid(err.code(), err.to_string()))?;
    let types = definition
        .payload_types
        .iter()
        .flatten()
        .map(|name| &**name);
    state.turns.payloads.check_llm_names(types)
}

fn default_kind() -> Text {
    Text("chat".to_owned())
}

/// A new tool.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateTool {
    /// The group that owns the tool; its members and those of its sub-groups may use it.
    pub group_id: Uuid,
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Text,
    /// The tool's kind (default `chat`).
    #[oai(
        rename = "type",
        default = "default_kind",
        validator(min_length = 1, max_length = 40)
    )]
    pub kind: Text,
    pub definition: ToolDefinition,
}

/// Changes to a tool; absent fields stay as they are. The group cannot change.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateTool {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<Text>,
    #[oai(rename = "type", validator(min_length = 1, max_length = 40))]
    pub kind: Option<Text>,
    /// Replaces the definition as a whole.
    pub definition: Option<ToolDefinition>,
}

impl IntoNew<tools::Entity> for CreateTool {
    fn into_new(self, state: &AppState) -> Result<q::NewTool> {
        check_functions(state, &self.definition)?;
        Ok(q::NewTool {
            group_id: self.group_id,
            name: self.name.into(),
            kind: self.kind.into(),
            definition: self.definition,
        })
    }
}

impl IntoChanges<tools::Entity> for UpdateTool {
    fn into_changes(self, state: &AppState) -> Result<q::ToolChanges> {
        if let Some(definition) = &self.definition {
            check_functions(state, definition)?;
        }
        Ok(q::ToolChanges {
            name: self.name.map(Into::into),
            kind: self.kind.map(Into::into),
            definition: self.definition,
        })
    }
}

admin_api! {
    ToolsAdminApi for Tool(tools::Entity) at "/v1/admin/tools";
    /// Create a tool
    ///
    /// 422 `group_not_found` when the group does not exist, `unknown_function` when the
    /// definition names a function the deployment does not have (see `GET /v1/functions`),
    /// `unknown_payload_type` when it enables a payload type the model cannot write (see
    /// `GET /v1/payload-types`), `unknown_module` when it names a module the deployment
    /// does not have, `invalid_module_config` when a module's `config` does not suit it.
    create "/tools" "admin_create_tool" CreateTool
        => CreatedTool "The tool was created.";
    /// List tools
    ///
    /// Every tool of every group, newest first, with full definitions.
    list "/tools" "admin_list_tools";
    /// Get a tool
    get "/tools/:id" "admin_get_tool";
    /// Update a tool
    ///
    /// New sessions use the new definition; open sessions keep the config they started
    /// with. 422 `unknown_function` and `unknown_payload_type` as on create.
    update "/tools/:id" "admin_update_tool" UpdateTool;
    /// Delete a tool
    ///
    /// 409 `tool_in_use` while sessions or assignments use it: those are records, so a
    /// used tool is kept.
    delete "/tools/:id" "admin_delete_tool";
}

#[cfg(test)]
mod tests {
    use parley_protocol::error::ErrorCode;
    use poem_openapi::types::ParseFromJSON;
    use serde_json::json;

    use super::*;

    #[test]
    fn stored_definitions_drop_absent_options_and_read_back() {
        let input = json!({"behavior": "Be kind.", "functions": ["todos_list"], "modules": [{"name": "pii_redactor"}]});
        let definition = ToolDefinition::parse_from_json(Some(input)).unwrap();
        let stored = serde_json::to_value(&definition).unwrap();
        let fields = stored.as_object().unwrap();
        assert!(!fields.contains_key("model"));
        assert!(!fields.contains_key("max_messages"));
        assert!(
            !fields.contains_key("constraints"),
            "absent options are inherited, not defaulted"
        );
        assert_eq!(stored["functions"], json!(["todos_list"]));
        assert_eq!(
            stored["modules"],
            json!([{"name": "pii_redactor"}]),
            "nested Nones are left out too"
        );
        let read: ToolDefinition = serde_json::from_value(stored).unwrap();
        assert_eq!(read, definition);
        let model = tools::Model {
            id: Uuid::now_v7(),
            group_id: Uuid::now_v7(),
            name: "Tutor".into(),
            r#type: "chat".into(),
            definition: read,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        };
        let group_id = model.group_id;
        let tool = Tool::from_row(model, &Names::default());
        assert_eq!(tool.group_id, group_id);
        assert_eq!(tool.group_name, None, "no name read, none shown");
        assert_eq!(&*tool.definition.behavior, "Be kind.");
        assert_eq!(tool.definition.model, None);
    }

    #[test]
    fn the_module_catalogues_refusals_are_codes_of_the_catalogue() {
        let catalog = parley_service::modules::ModuleCatalog::builtin();
        for (entries, code) in [
            (vec![("nope".to_owned(), None)], ErrorCode::UnknownModule),
            (
                vec![("pii_redactor".to_owned(), Some(json!({"types": ["dna"]})))],
                ErrorCode::InvalidModuleConfig,
            ),
        ] {
            let refused = catalog.check_tool(&entries).unwrap_err();
            assert_eq!(refused.code(), code, "{refused}");
        }
    }

    #[test]
    fn a_misspelt_key_is_refused_by_name_when_sent_and_ignored_when_stored() {
        let body =
            json!({"behavior": "x", "constraints": {"topics": [], "no_direct_answer": true}});
        let refused = ToolDefinition::parse_from_json(Some(body.clone())).unwrap_err();
        assert!(
            refused.message().contains("no_direct_answer"),
            "{}",
            refused.message()
        );
        let stored: ToolDefinition = serde_json::from_value(body).unwrap();
        assert_eq!(stored.constraints.unwrap().no_direct_answers, None);
    }
}
