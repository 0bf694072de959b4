//! `GET /v1/admin/modules`: the modules of the deployment — the built-in ones and those
//! of `[[modules]]` in its configuration — that a tool definition's `modules` may name,
//! with the hooks each runs at and the settings a tool's `config` overrides key by key.
//!
//! The list is the catalogue the api checks tool definitions against
//! ([`ModuleCatalog`](parley_service::modules::ModuleCatalog)), so a name it shows is a
//! name a definition may use. A webhook's URL and secret are not shown.

use parley_protocol::hooks::Hook;
use parley_service::modules::{ModuleKind, Registered};
use poem::web::Data;
use poem_openapi::{Enum, Object, OpenApi, payload::Json};

use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    routes::ApiTags,
    state::AppState,
    types::JsonObject,
};

/// What a module does, by the code that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum ModuleKindName {
    PiiRedactor,
    SafetyFilter,
    Webhook,
    Analytics,
}

impl From<ModuleKind> for ModuleKindName {
    fn from(kind: ModuleKind) -> Self {
        match kind {
            ModuleKind::PiiRedactor => Self::PiiRedactor,
            ModuleKind::SafetyFilter => Self::SafetyFilter,
            ModuleKind::Webhook => Self::Webhook,
            ModuleKind::Analytics => Self::Analytics,
        }
    }
}

/// A module of the deployment.
#[derive(Debug, Object)]
pub struct ModuleInfo {
    /// What a tool definition's `modules` names it by.
    pub name: String,
    pub kind: ModuleKindName,
    /// What it does and which settings it reads.
    pub description: String,
    /// The hooks it runs at.
    pub hooks: Vec<Hook>,
    /// 1–99; lower runs first.
    pub priority: u8,
    /// An error or a timeout blocks the message instead of being skipped.
    pub fail_closed: bool,
    /// How long one run may take, in milliseconds.
    pub timeout_ms: u64,
    /// The deployment's settings of the module, which a tool's `config` for it
    /// overrides key by key.
    pub config: JsonObject,
}

impl From<&Registered> for ModuleInfo {
    fn from(m: &Registered) -> Self {
        Self {
            name: m.name.clone(),
            kind: m.kind.into(),
            description: m.kind.description().to_owned(),
            hooks: m.hooks.clone(),
            priority: m.priority,
            fail_closed: m.fail_closed,
            timeout_ms: u64::try_from(m.timeout.as_millis()).unwrap_or(u64::MAX),
            config: JsonObject::of(m.config.clone()),
        }
    }
}

/// The deployment's modules.
#[derive(Debug, Object)]
pub struct ModuleList {
    /// By name.
    pub items: Vec<ModuleInfo>,
}

pub struct ModulesAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl ModulesAdminApi {
    /// List the deployment's modules
    ///
    /// Every module a tool definition's `modules` may name, by name: the built-in
    /// `pii_redactor`, `safety_filter` and `analytics` (unless configured otherwise) and
    /// those of the deployment's configuration, with the hooks each runs at, its
    /// priority and its settings.
    #[oai(path = "/modules", method = "get", operation_id = "admin_list_modules")]
    async fn list_modules(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
    ) -> ApiResult<Json<ModuleList>, statuses::AdminConfig> {
        let items = state.turns.modules.all().map(ModuleInfo::from).collect();
        Ok(Json(ModuleList { items }))
    }
}
