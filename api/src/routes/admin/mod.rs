//! `/v1/admin/…`: administration, for role admin only. Every handler takes the caller
//! as an [`AdminAuth`](crate::auth::AdminAuth) (403 otherwise, before the body is read).
//!
//! One module per resource: users and their tokens, groups and their members, tools,
//! classes and their enrolments, assignments; the deployment's modules ([`modules`]);
//! and the dashboard's figures: usage, block
//! metrics and prompt statistics ([`metrics`]), the model providers and their
//! breakers ([`providers`]), a session's moderation record ([`audit`]), users' feedback
//! on answers ([`feedback`]), spend limits in money ([`budgets`]) and the export of conversations for fine-tuning
//! ([`exports`]). Lists are cursor-paginated, creates answer 201 with a `Location`
//! header, deletes answer 204 ([`Deleted`]). The standard operations of users, groups,
//! tools, classes and assignments are one implementation ([`resource`]).

pub mod assignments;
pub mod audit;
pub mod budgets;
pub mod classes;
pub mod exports;
pub mod feedback;
pub mod groups;
pub mod metrics;
pub mod modules;
pub mod providers;
pub mod resource;
pub mod tools;
pub mod users;

use poem_openapi::ApiResponse;

/// The answer of every admin delete.
#[derive(ApiResponse)]
pub enum Deleted {
    /// Deleted.
    #[oai(status = 204)]
    NoContent,
}

/// The admin APIs of the document, named once: their tuple type and its value.
macro_rules! admin_apis {
    ($($api:path),+ $(,)?) => {
        /// The admin APIs of the document.
        pub type AdminApi = ($($api,)+);

        pub fn api() -> AdminApi {
            ($($api,)+)
        }
    };
}

admin_apis!(
    users::UsersAdminApi,
    users::TokensAdminApi,
    groups::GroupsAdminApi,
    tools::ToolsAdminApi,
    modules::ModulesAdminApi,
    classes::ClassesAdminApi,
    assignments::AssignmentsAdminApi,
    metrics::MetricsAdminApi,
    metrics::UsageRowsAdminApi,
    metrics::PromptsAdminApi,
    providers::ProvidersAdminApi,
    audit::AuditAdminApi,
    feedback::FeedbackAdminApi,
    exports::ExportsAdminApi,
    budgets::BudgetsAdminApi,
);
