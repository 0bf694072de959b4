//! One module per resource. Each handler parses input, checks access, calls one domain
//! function and maps the result to a response type built with `From`.

pub mod actions;
pub mod admin;
pub mod ask;
pub mod catalog;
pub mod client_calls;
pub mod feed;
pub mod feed_doc;
pub mod feedback;
pub mod files;
pub mod messages;
pub mod notes;
pub mod ops;
pub mod output_format;
pub mod prompts;
pub mod reply;
pub mod sessions;
pub mod teaching;
pub mod todos;
pub mod turns;
pub mod views;

use poem_openapi::Tags;

/// The tag of every operation, one each.
#[derive(Tags)]
pub enum ApiTags {
    /// Conversations of the caller.
    Sessions,
    /// What the caller may use.
    Catalog,
    /// What the caller's conversations saved for them: todos and notes.
    Data,
    /// A teacher's read-only view of the classes they teach.
    Teaching,
    /// Administration (role admin).
    Admin,
    /// Health, readiness and the API document.
    Ops,
    /// The OpenAI-compatible surface (`/openai/v1`): models, chat completions and
    /// responses, for the official SDKs and the frontends built on them.
    #[oai(rename = "OpenAI")]
    OpenAi,
}

/// Every API of Parley's own routes (the document adds the OpenAI surface's, which is
/// built on these: `crate::Api`).
pub type Api = (
    sessions::SessionsApi,
    turns::TurnsApi,
    messages::MessagesApi,
    feedback::FeedbackApi,
    ask::AskApi,
    actions::ActionsApi,
    prompts::PromptsApi,
    prompts::ApprovalsApi,
    feed::FeedApi,
    catalog::CatalogApi,
    todos::TodosApi,
    notes::NotesApi,
    // Tuples implement `OpenApi` up to 16 members: nested, there is room for more.
    (files::FilesApi, teaching::TeachingApi),
    admin::AdminApi,
    ops::OpsApi,
);

pub fn api() -> Api {
    (
        sessions::SessionsApi,
        turns::TurnsApi,
        messages::MessagesApi,
        feedback::FeedbackApi,
        ask::AskApi,
        actions::ActionsApi,
        prompts::PromptsApi,
        prompts::ApprovalsApi,
        feed::FeedApi,
        catalog::CatalogApi,
        todos::TodosApi,
        notes::NotesApi,
        (files::FilesApi, teaching::TeachingApi),
        admin::api(),
        ops::OpsApi,
    )
}
