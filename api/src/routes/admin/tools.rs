//! `/v1/admin/tools`: chat tools and their full definitions.
//!
//! The definition's type, [`ToolDefinition`] (the protocol's), is its schema: a body that
//! parses is a valid definition, stored as it is typed. Stored definitions are read
//! tolerantly (`parley_protocol::config::stored`): one written by an earlier version
//! still loads.

use chrono::{DateTime, Utc};
use parley_entity::{
    query::{page, tools as q},
    tools,
};
use parley_protocol::config::ToolDefinition;
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde_json::Value;
use uuid::Uuid;

use super::Deleted;
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::ApiTags,
    state::AppState,
    types::Text,
};

/// A chat tool with its full definition.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Tool {
    pub id: Uuid,
    pub group_id: Uuid,
    pub name: String,
    /// The tool's kind (e.g. `chat`).
    #[oai(rename = "type")]
    pub kind: String,
    pub definition: ToolDefinition,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<tools::Model> for Tool {
    fn from(t: tools::Model) -> Self {
        Self {
            id: t.id,
            group_id: t.group_id,
            name: t.name,
            kind: t.r#type,
            definition: t.definition,
            created_at: t.created_at,
            updated_at: t.updated_at,
        }
    }
}

/// 422 `unknown_function` when the definition names a function the deployment lacks,
/// `unknown_payload_type` when it enables a payload type the model cannot write,
/// `unknown_module` when it names a module the deployment lacks (or one twice),
/// `invalid_module_config` when a module's settings do not suit it.
fn check_functions(
    state: &AppState,
    definition: &ToolDefinition,
) -> parley_entity::error::Result<()> {
    let names = definition.functions.iter().flatten().map(|name| &**name);
    state.turns.functions.load().check_names(names)?;
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
        .map_err(|(code, detail)| parley_entity::error::Error::invalid(code, detail))?;
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

#[derive(ApiResponse)]
pub enum CreatedTool {
    /// The tool was created.
    #[oai(status = 201)]
    Created(Json<Tool>, #[oai(header = "Location")] String),
}

pub struct ToolsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl ToolsAdminApi {
    /// Create a tool
    ///
    /// 422 `group_not_found` when the group does not exist, `unknown_function` when the
    /// definition names a function the deployment does not have (see `GET /v1/functions`),
    /// `unknown_payload_type` when it enables a payload type the model cannot write (see
    /// `GET /v1/payload-types`), `unknown_module` when it names a module the deployment
    /// does not have, `invalid_module_config` when a module's `config` does not suit it.
    #[oai(path = "/tools", method = "post", operation_id = "admin_create_tool")]
    async fn create_tool(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        body: Json<CreateTool>,
    ) -> ApiResult<CreatedTool, statuses::AdminCreate> {
        let body = body.0;
        check_functions(&state, &body.definition)?;
        let new = q::NewTool {
            group_id: body.group_id,
            name: body.name.into(),
            kind: body.kind.into(),
            definition: body.definition,
        };
        let tool = Tool::from(q::create(&state.db, new).await?);
        let location = format!("/v1/admin/tools/{}", tool.id);
        Ok(CreatedTool::Created(Json(tool), location))
    }

    /// List tools
    ///
    /// Every tool of every group, newest first, with full definitions.
    #[oai(path = "/tools", method = "get", operation_id = "admin_list_tools")]
    async fn list_tools(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Tool>>, statuses::AdminList> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = q::list(&state.db, page).await?;
        let items = rows.items.into_iter().map(Tool::from).collect();
        Ok(Json(Page::from_rows(
            page::Page {
                items,
                next: rows.next,
            },
            |tool| tool,
        )))
    }

    /// Get a tool
    #[oai(path = "/tools/:id", method = "get", operation_id = "admin_get_tool")]
    async fn get_tool(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Tool>, statuses::AdminRead> {
        Ok(Json(q::get(&state.db, id.0).await?.into()))
    }

    /// Update a tool
    ///
    /// New sessions use the new definition; open sessions keep the config they started
    /// with. 422 `unknown_function` and `unknown_payload_type` as on create.
    #[oai(
        path = "/tools/:id",
        method = "patch",
        operation_id = "admin_update_tool"
    )]
    async fn update_tool(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<UpdateTool>,
    ) -> ApiResult<Json<Tool>, statuses::AdminWrite> {
        let body = body.0;
        if let Some(definition) = &body.definition {
            check_functions(&state, definition)?;
        }
        let changes = q::ToolChanges {
            name: body.name.map(Into::into),
            kind: body.kind.map(Into::into),
            definition: body.definition,
        };
        Ok(Json(q::update(&state.db, id.0, changes).await?.into()))
    }

    /// Delete a tool
    ///
    /// 409 `tool_in_use` while sessions or assignments use it: those are records, so a
    /// used tool is kept.
    #[oai(
        path = "/tools/:id",
        method = "delete",
        operation_id = "admin_delete_tool"
    )]
    async fn delete_tool(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        q::delete(&state.db, id.0).await?;
        Ok(Deleted::NoContent)
    }
}

#[cfg(test)]
mod tests {
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
        let tool = Tool::from(model);
        assert_eq!(&*tool.definition.behavior, "Be kind.");
        assert_eq!(tool.definition.model, None);
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
