//! The context stage: what the turn is about, read once for the stages after it — the
//! session, the message with its files, the conversation's recent messages and the
//! models that may answer — and readers told the turn runs. A repeated attempt first
//! tells readers it starts over and drops the blocks the earlier one wrote, keeping the
//! text its model was writing (a provider that continues a partial answer goes on from
//! it).

use parley_entity::{
    blocks,
    enums::BlockType,
    files, messages, prompts,
    query::{self, conversation, prompts::SessionAt},
    sessions,
};
use parley_protocol::error::Error;
use parley_protocol::{
    events::{EventKind, PromptState},
    turn::TurnInput,
};
use parley_service::turns::record;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::user_breaker::{self, Asked};
use crate::{
    agent_loop::Sink,
    error::TurnError,
    history::HistoryCache,
    providers::{Catalog, Route},
    sink::TurnSink,
};

/// What the context stage reads from.
#[derive(Clone, Copy)]
pub(super) struct Sources<'a> {
    pub db: &'a DatabaseConnection,
    pub catalog: &'a Catalog,
    pub history: &'a HistoryCache,
}

/// What the turn is about.
pub(super) struct TurnContext {
    pub session: sessions::Model,
    pub input: TurnInput,
    /// The message's attachments, the user's own, in the order given.
    pub files: Vec<files::Model>,
    /// The conversation's recent messages, newest first, without this turn's own: the
    /// branch the user message follows (DESIGN §13).
    pub history: Vec<messages::Model>,
    /// The session's message counter under which the worker's history cache holds that
    /// history (and keeps the window's start beside it); `None`: not kept.
    pub history_at: Option<i32>,
    /// Where the turn's user message is in the session's tree.
    pub place: Place,
    /// The models that may answer: the one asked for, then its fallbacks.
    pub chain: Vec<Route>,
    /// What an earlier attempt's model was writing when it stopped.
    pub partial: Option<String>,
    /// The user's breaker, asked as the turn starts so its round trip runs beside the
    /// reads and the hooks; the generation stage awaits the answer.
    pub admission: Asked,
    /// The owner's effective permissions as the claim read them (`None`: read them).
    pub owner_permissions: Option<Vec<String>>,
}

/// Where a turn's user message is in its session's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    /// The user message's id: the one saved already (a repeated attempt, a
    /// regenerate), else the one chosen when the turn was accepted.
    pub user_message_id: Uuid,
    /// The message a new user message follows; `None` for a first message.
    pub parent: Option<Uuid>,
    /// The user message is in place already (it is not written by this turn).
    pub saved: bool,
}

impl Place {
    /// Where `prompt`'s user message goes: the one it has, else after what its input
    /// names (an edit), else after the session's active leaf as the claim found it.
    fn of(prompt: &prompts::Model, input: &TurnInput, leaf: Option<Uuid>) -> Self {
        match prompt.user_message_id {
            Some(id) => Self {
                user_message_id: id,
                parent: None,
                saved: true,
            },
            None => Self {
                user_message_id: input.message_id.unwrap_or_else(Uuid::now_v7),
                parent: input.placement.map_or(leaf, |p| p.parent()),
                saved: false,
            },
        }
    }

    /// The `in_progress` event that tells readers the turn runs and where it goes.
    fn in_progress(self, attempt: u32) -> EventKind {
        EventKind::PromptState {
            state: PromptState::InProgress,
            attempt,
            user_message_id: Some(self.user_message_id),
            parent_id: if self.saved { None } else { self.parent },
        }
    }
}

/// Reads the turn's context; `None` when the prompt names a model this deployment does
/// not serve. `known` is the session the job carried (its configuration and owner never
/// change); without it (the reaper's job, a resume's) it is read. `at` is where the
/// session stood when the claim took the prompt (its counter and active leaf).
#[tracing::instrument(name = "context", skip_all, fields(attempt = prompt.attempt), err)]
pub(super) async fn gather(
    from: Sources<'_>,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    known: Option<sessions::Model>,
    mut at: SessionAt,
) -> Result<Option<TurnContext>, TurnError> {
    let owner_permissions = at.owner_permissions.take();
    let mut partial = None;
    if prompt.attempt > 1 {
        sink.event(EventKind::Retry {
            attempt: record::attempt(prompt),
            reason: "the turn starts over".into(),
        })
        .await?;
        partial = partial_answer(&conversation::blocks_of(from.db, prompt.id).await?);
        conversation::discard_blocks(from.db, prompt.id).await?;
    }
    let input = prompt
        .input
        .clone()
        .ok_or_else(|| Error::internal("running a turn", "the prompt has no input"))?;
    let place = Place::of(prompt, &input, at.leaf);
    let in_progress = place.in_progress(record::attempt(prompt));
    let Some(chain) = from.catalog.chain(prompt.model.as_deref()) else {
        sink.event(in_progress).await?;
        return Ok(None);
    };
    let session = match known.filter(|s| s.id == prompt.session_id) {
        Some(session) => session,
        None => query::sessions::get(from.db, prompt.session_id).await?,
    };
    // The `prompt_state` append (the event log) runs on its own while the turn goes on
    // to its history (PostgreSQL or SQLite, or the worker's cache) and the model call;
    // every later event still follows it (the sink waits for it before the next one).
    sink.event_soon(in_progress).await?;
    // The context is assembled for the model asked for; a fallback gets the same.
    let read = crate::prompt::history_read(crate::hooks::CONTEXT_MESSAGES);
    let admission = user_breaker::ask(from.catalog, session.user_id);
    let recent = recent_history(from, prompt, session.id, place, at, read).await;
    let files = query::files::owned_in_order(from.db, session.user_id, &input.attachments).await?;
    let (recent, history_at) = recent?;
    let history = recent
        .into_iter()
        .filter(|m| Some(m.id) != prompt.user_message_id && m.prompt_id != Some(prompt.id))
        .collect();
    Ok(Some(TurnContext {
        session,
        input,
        files,
        history,
        history_at,
        place,
        chain,
        partial,
        admission,
        owner_permissions,
    }))
}

/// The newest `read` messages of the branch the turn's user message follows, newest
/// first. A new message after the active leaf (the common case) is answered from the
/// worker's history cache when it is at the counter and leaf the claim found, else read
/// (and, on a first attempt, kept for the conversation's next turn); an edit reads the
/// branch it names, a saved user message (a repeated attempt, a regenerate) its own
/// ancestry (the caller drops the message itself). With the counter under which the
/// cache keeps them (a first attempt after the leaf), if it does.
async fn recent_history(
    from: Sources<'_>,
    prompt: &prompts::Model,
    session_id: Uuid,
    place: Place,
    at: SessionAt,
    read: usize,
) -> Result<(Vec<messages::Model>, Option<i32>), Error> {
    let (start, limit) = if place.saved {
        (Some(place.user_message_id), read + 1)
    } else {
        (place.parent, read)
    };
    let continues_leaf = !place.saved && place.parent == at.leaf;
    let first = prompt.attempt <= 1 && continues_leaf;
    let kept = (first && from.history.is_enabled()).then_some(at.count);
    if first && let Some(recent) = from.history.get(session_id, at.count, at.leaf, read) {
        return Ok((recent, kept));
    }
    let recent = match start {
        Some(start) => query::tree::ancestry(from.db, start, limit as u64).await?,
        // A first message: nothing before it (kept too, so the entry grows from here).
        None => Vec::new(),
    };
    if first {
        from.history.keep(session_id, at.count, &recent, read);
    } else {
        from.history.forget(session_id);
    }
    Ok((recent, kept))
}

/// What an earlier attempt's model was writing when it stopped: the text after its
/// last function call (whose `[[tool:N]]` markers the replay writes again), as far as it
/// was persisted; `None` when it stopped elsewhere (thinking, or making a call).
fn partial_answer(blocks: &[blocks::Model]) -> Option<String> {
    let trailing = blocks
        .iter()
        .rev()
        .take_while(|b| b.r#type == BlockType::Text)
        .collect::<Vec<_>>();
    let mut text: String = trailing.iter().rev().map(|b| b.content.as_str()).collect();
    while let Some(rest) = text.strip_prefix("[[tool:")
        && let Some((n, after)) = rest.split_once("]]")
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        text = after.to_owned();
    }
    (!text.trim().is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: BlockType, content: &str) -> blocks::Model {
        blocks::Model {
            id: Uuid::nil(),
            message_id: None,
            prompt_id: Uuid::nil(),
            index: 0,
            r#type: kind,
            content: content.into(),
            metadata: serde_json::json!({}),
            is_finalized: false,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn the_partial_answer_is_the_text_after_the_last_call_without_its_markers() {
        use BlockType::{Text, Thinking, ToolCall};
        let of = |blocks: &[(BlockType, &str)]| {
            let blocks: Vec<_> = blocks.iter().map(|(k, c)| block(*k, c)).collect();
            partial_answer(&blocks)
        };
        assert_eq!(of(&[(Text, "Once upon")]).as_deref(), Some("Once upon"));
        assert_eq!(
            of(&[
                (Text, "Let me look. "),
                (ToolCall, "{}"),
                (ToolCall, "{}"),
                (Text, "[[tool:0]][[tool:1]]It is "),
                (Text, "noon"),
            ])
            .as_deref(),
            Some("It is noon")
        );
        // Stopped while making a call, thinking, or before writing: nothing to continue.
        assert_eq!(of(&[(Text, "Let me look. "), (ToolCall, "{}")]), None);
        assert_eq!(of(&[(Text, "Hm"), (Thinking, "so…")]), None);
        assert_eq!(of(&[(ToolCall, "{}"), (Text, "[[tool:0]]")]), None);
        assert_eq!(of(&[]), None);
        // Text that merely looks like a marker stays.
        assert_eq!(
            of(&[(Text, "[[tool:x]] is how markers look")]).as_deref(),
            Some("[[tool:x]] is how markers look")
        );
    }
}
