//! The OpenAI-compatible surface, under `/openai/v1` (so it does not collide with
//! `/v1/models`): what the official SDKs and the chat frontends built on them (Open
//! WebUI, LibreChat, LangChain, the Vercel AI SDK, …) speak.
//!
//! A translation layer over `TurnService`, not a second turn engine (DESIGN §13): a
//! request becomes a Parley turn ([`conversation`]; a response's input items: [`items`]), and what the client reads is
//! derived from the prompt's events as they are read ([`chat_events`],
//! [`response_events`]). So a chat completion or a response has everything a turn has —
//! hooks, skills, functions (run by Parley, shown as text in a chat completion and as
//! answered `mcp_call` items in a response), quotas, usage, audit, metrics — and a
//! response is a prompt: it survives restarts and can be read, streamed again and
//! resumed (`starting_after`) for as long as the prompt's events are kept, not ten
//! minutes. Errors have OpenAI's shape ([`error`]); streams are framed for the SDKs
//! ([`stream`]). The API key is a Parley token; the `chat:write` permission is needed,
//! as for `/v1/ask`.

pub mod chat_events;
pub mod conversation;
pub mod error;
#[cfg(test)]
mod fixtures;
mod input;
mod items;
mod media;
mod models;
mod output;
mod reading;
mod replies;
pub mod response_events;
mod routes;
mod sampling;
mod segment;
pub mod stream;
mod tools;
pub mod types;

pub use routes::OpenAiApi;

/// Where the surface lives.
pub const PREFIX: &str = "/openai/";
