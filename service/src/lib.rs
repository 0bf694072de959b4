//! Parley's application layer: what a turn *is*, independent of HTTP and of the worker.
//!
//! The routes of `parley-api` parse a request, call one function here and map the result
//! to a response; the worker of `parley-worker` calls the same functions where a turn
//! crosses into the API's territory (handing the session to the next prompt, telling
//! readers how a turn ended). Below this layer sit `parley-entity` (SQL) and
//! `parley-runtime` (the job queue and the event log); nothing here knows whether they
//! are PostgreSQL + Redis or SQLite + in-process.
//!
//! * [`turns::TurnService`] — submit (validate, record, enqueue, and the compensation
//!   when the queue is down), cancel, resume, wait for the end of a turn;
//! * [`sessions::SessionService`] — a session's start and every way it ends (completed,
//!   an action, a limit, idleness), where `session:start` and `session:end` fire;
//! * [`feedback::FeedbackService`] — ratings of answers by their sessions' owners, and
//!   the export of conversations in OpenAI's chat fine-tuning format
//!   ([`feedback::export`]);
//! * [`teaching::TeachingService`] — a teacher's read-only view of the classes they
//!   teach: sessions, extractions and blocks, for their classes only;
//! * [`reports::ReportService`] — what administrators read about the deployment: the
//!   dashboard's figures and rows, a session's audit, the model providers' health;
//! * [`budget::BudgetService`] — the budgets administrators set, with their counters;
//! * [`files::FileService`] — uploads (classified, a PDF's text extracted in the
//!   sandbox) and their rows; [`saved::SavedService`] — a user's todos and notes;
//! * [`health::HealthService`] — whether the database can serve (`/readyz`);
//! * [`admin::AdminService`] — the resources administrators manage (users and their
//!   tokens, groups, tools, classes, assignments, memberships): one implementation of
//!   list, get, update, delete and members, with each resource's own rules as hooks;
//! * [`turns::handoff`] — enqueueing a prompt's job and starting the session's next one;
//! * [`functions`] — the catalog of functions a model may call (specs; the worker runs
//!   them), checked against permissions and tool definitions;
//! * [`modules`] — the module hooks (DESIGN §8): the catalog, the runner and the built-in
//!   modules (PII redactor, safety filter, webhook, analytics);
//! * [`outbound`] — the HTTP client for operators' endpoints (webhooks, MCP servers):
//!   same-origin redirects only, and `outbound.deny_private_addresses`;
//! * [`turns::record`] — the one rule that turns a finished turn into its events: the
//!   live `complete` a worker emits and the one rebuilt from the database after the
//!   event log's retention come from [`turns::record::terminal_event`].

pub mod admin;
pub mod budget;
pub mod catalog;
pub mod feedback;
pub mod files;
pub mod functions;
pub mod health;
pub mod modules;
pub mod outbound;
pub mod payloads;
pub mod quota;
pub mod reports;
pub mod respond;
pub mod saved;
pub mod sessions;
pub mod structured;
pub mod teaching;
pub mod tls;
pub mod turns;

pub use admin::AdminService;
pub use budget::BudgetService;
pub use catalog::{Limits, Models, ProviderEntry, Providers};
pub use feedback::FeedbackService;
pub use files::FileService;
pub use functions::{FunctionCatalog, FunctionSpec, SharedCatalog};
pub use health::HealthService;
pub use reports::ReportService;
pub use saved::SavedService;
pub use sessions::SessionService;
pub use teaching::TeachingService;
pub use turns::TurnService;
