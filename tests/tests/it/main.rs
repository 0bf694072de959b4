#![allow(
    clippy::disallowed_methods,
    reason = "black-box tests read their servers (PARLEY_TEST_*) from the environment and inspect files and processes directly"
)]
//! The one integration test binary: the real `parley` binary, one module per area.
//!
//! Run it through `scripts/test.sh` (it starts PostgreSQL and Redis); most tests run
//! twice, as `<module>::<test>::postgres` and `<module>::<test>::sqlite`.

mod admin_access;
mod admin_classes;
mod admin_groups;
mod admin_metrics;
mod admin_tools;
mod admin_users;
mod ask;
mod attachments;
mod auth;
mod budgets;
mod contract;
mod distributed;
mod edge;
mod embedded_memory;
mod errors;
mod feedback;
mod feeds;
mod first_run;
mod fixtures;
mod functions;
mod health_and_process;
mod history_window;
mod migrations;
mod modules;
mod observability;
mod openai;
mod openai_media;
mod openai_response_tools;
mod openai_sampling;
mod openai_structured;
mod openai_surface;
mod openai_tools;
mod quotas;
mod read_replica;
mod restart;
mod session_management;
mod session_rules;
mod sessions;
mod skills;
mod structured_turns;
mod teaching;
mod todos_notes_search;
mod token_kinds;
mod tool_config;
mod turns;
mod upgrades_and_backups;
mod user_feed;
