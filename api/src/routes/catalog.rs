//! `/v1/tools`: the chat tools the caller may open sessions with, and the functions and
//! payload types a tool definition may name. The definition's own type
//! (`parley_protocol::config::ToolDefinition`) is the protocol's, shared with the store
//! and the worker.

use chrono::{DateTime, Utc};
use parley_entity::{query::sessions::Opener, tools};
use parley_service::{
    FunctionSpec,
    functions::Mode,
    payloads::{PayloadSource, PayloadType},
};
use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Query, payload::Json};
use uuid::Uuid;

use super::ApiTags;
use crate::{
    auth::BearerAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    state::AppState,
    types::JsonObject,
};

/// A chat tool as its users see it.
#[derive(Debug, Object)]
pub struct ToolSummary {
    pub id: Uuid,
    pub group_id: Uuid,
    pub name: String,
    /// The tool's kind (e.g. `chat`).
    #[oai(rename = "type")]
    pub kind: String,
    pub created_at: DateTime<Utc>,
}

impl From<tools::Model> for ToolSummary {
    fn from(t: tools::Model) -> Self {
        Self {
            id: t.id,
            group_id: t.group_id,
            name: t.name,
            kind: t.r#type,
            created_at: t.created_at,
        }
    }
}

/// How a function answers.
#[derive(Debug, Clone, Copy, poem_openapi::Enum)]
#[oai(rename_all = "snake_case")]
pub enum FunctionMode {
    /// The call runs inside the turn; its result goes back to the model.
    Sync,
    /// The model gets an acknowledgement at once; the work runs as a job of its own.
    Async,
}

/// A function models may call, as a tool definition names it.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Function {
    pub name: String,
    pub description: String,
    /// The JSON schema of its arguments.
    pub parameters: JsonObject,
    /// What a caller needs to call it.
    pub permissions: Vec<String>,
    pub mode: FunctionMode,
    /// How long one call may run, in seconds.
    pub timeout_s: u64,
    /// The payload type its results carry (see `GET /v1/payload-types`).
    pub payload_type: Option<String>,
    /// Every call waits for the session's owner to approve it (a tool may ask it of any
    /// function: its definition's `approval_required`).
    pub requires_approval: bool,
}

impl From<&FunctionSpec> for Function {
    fn from(spec: &FunctionSpec) -> Self {
        Self {
            name: spec.name.clone(),
            description: spec.description.clone(),
            parameters: JsonObject::of(spec.parameters.clone()),
            permissions: spec.permissions.clone(),
            mode: match spec.mode {
                Mode::Sync => FunctionMode::Sync,
                Mode::Async => FunctionMode::Async,
            },
            timeout_s: spec.timeout.as_secs(),
            payload_type: spec.payload_type.clone(),
            requires_approval: spec.requires_approval,
        }
    }
}

/// The functions the caller may call.
#[derive(Debug, Object)]
pub struct FunctionList {
    pub items: Vec<Function>,
}

/// Where a payload comes from.
#[derive(Debug, Clone, Copy, poem_openapi::Enum)]
#[oai(rename_all = "snake_case")]
pub enum PayloadSourceKind {
    /// A function's result (the function's `payload_type`).
    Tool,
    /// A marker in the model's answer (`NAME: {json}`), enabled per tool.
    Llm,
}

/// A payload type: what a `custom_payload` or a `tool_complete.payload` of this `type`
/// holds and how to show it.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct PayloadTypeInfo {
    pub name: String,
    pub description: String,
    pub source: PayloadSourceKind,
    /// The JSON schema its `data` fits.
    pub schema: JsonObject,
    /// What the model is told about it.
    pub llm_instructions: String,
    /// What a frontend needs to render it (title, icon, panel width…), as configured.
    pub frontend_config: Option<JsonObject>,
}

impl From<&PayloadType> for PayloadTypeInfo {
    fn from(kind: &PayloadType) -> Self {
        Self {
            name: kind.name.clone(),
            description: kind.description.clone(),
            source: match kind.source {
                PayloadSource::Tool => PayloadSourceKind::Tool,
                PayloadSource::Llm => PayloadSourceKind::Llm,
            },
            schema: JsonObject::of(kind.schema.clone()),
            llm_instructions: kind.llm_instructions.clone(),
            frontend_config: kind.frontend_config.clone().map(JsonObject::of),
        }
    }
}

/// The payload types of this deployment.
#[derive(Debug, Object)]
pub struct PayloadTypeList {
    pub items: Vec<PayloadTypeInfo>,
}

/// A model messages may name.
#[derive(Debug, Object)]
pub struct Model {
    pub id: String,
    /// Used when a message names no model.
    pub default: bool,
}

/// The models this deployment serves.
#[derive(Debug, Object)]
pub struct ModelList {
    pub items: Vec<Model>,
}

pub struct CatalogApi;

#[OpenApi(prefix_path = "/v1", tag = "ApiTags::Catalog")]
impl CatalogApi {
    /// List usable chat tools
    ///
    /// The chat tools the caller may open sessions with: those of their groups and of
    /// those groups' ancestors (administrators see every tool).
    #[oai(path = "/tools", method = "get", operation_id = "list_tools")]
    async fn list_tools(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<ToolSummary>>, statuses::List> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let who = Opener {
            user_id: auth.0.user_id,
            is_admin: auth.0.is_admin(),
        };
        let rows = state.sessions().usable_tools(who, page).await?;
        Ok(Json(Page::from_rows(rows, ToolSummary::from)))
    }

    /// List functions
    ///
    /// The functions models may call that the caller's permissions allow, with the JSON
    /// schemas of their arguments; a tool definition's `functions` names them.
    #[oai(path = "/functions", method = "get", operation_id = "list_functions")]
    async fn list_functions(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
    ) -> ApiResult<Json<FunctionList>, statuses::Read> {
        let catalog = state.turns.functions.load();
        let allowed = catalog.allowed(&auth.0.permissions);
        let items = allowed.map(Function::from).collect();
        Ok(Json(FunctionList { items }))
    }

    /// List payload types
    ///
    /// Every payload type of the deployment — built in or configured — with the schema
    /// its data fits and what a frontend needs to render it. `tool_complete.payload` and
    /// `complete.payload.custom_payload` name one of these as their `type`.
    #[oai(
        path = "/payload-types",
        method = "get",
        operation_id = "list_payload_types"
    )]
    async fn list_payload_types(
        &self,
        _auth: BearerAuth,
        state: Data<&AppState>,
    ) -> ApiResult<Json<PayloadTypeList>, statuses::Read> {
        let items = state
            .turns
            .payloads
            .all()
            .map(PayloadTypeInfo::from)
            .collect();
        Ok(Json(PayloadTypeList { items }))
    }

    /// List models
    ///
    /// The models a message may name; the default one is used when it names none. With
    /// no provider configured this is Parley's offline demo model only.
    #[oai(path = "/models", method = "get", operation_id = "list_models")]
    async fn list_models(
        &self,
        _auth: BearerAuth,
        state: Data<&AppState>,
    ) -> ApiResult<Json<ModelList>, statuses::Read> {
        let models = &state.turns.models;
        let default = models.default_model();
        let items = models
            .ids
            .iter()
            .map(|id| Model {
                default: id == default,
                id: id.clone(),
            })
            .collect();
        Ok(Json(ModelList { items }))
    }
}
