//! One turn (DESIGN §5), as named stages, one module each, in the order [`run`] calls
//! them:
//!
//! 1. [`claim`] — take the prompt with a lease, or find there is nothing to do (it
//!    finished already, another worker holds it, or it was cancelled before it ran);
//! 2. [`context`] — what the turn is about: the session, the message and its files, the
//!    conversation's recent messages, the models that may answer; readers are told it
//!    runs;
//! 3. [`before`] — `chat:before_ai`: the session's modules may block the message
//!    (answered then by the module, and no model is called), rewrite it or add to the
//!    system prompt;
//! 4. [`route`] — the skill router: a skill may answer instead of a model;
//! 5. [`user_message`] — the user's message saved, once per prompt, then
//!    `chat:on_message`;
//! 6. [`generation`] — the model's context assembled and the agent loop: the model
//!    streams, calls functions, is called again;
//! 7. [`after`] — `chat:after_ai` over the answer (may block or replace it);
//! 8. [`persist`] — the end written in one transaction: answer, blocks, usage, state;
//! 9. [`finish`] — readers told how the turn ended; quotas; the log's retention.
//!
//! A turn whose model called a function that needs the user's approval stops after the
//! generation stage instead: [`suspend`] writes what it has (the user message, the
//! blocks so far, the usage of its model calls) and lets go of the prompt, which waits
//! with no worker and no lease until the decision's job resumes it as a new attempt.
//!
//! Each stage takes typed input and the parts of [`Deps`] it uses, and returns typed
//! output; none imports this module. Jobs are at-least-once, so every stage is
//! idempotent: a job for a finished prompt does nothing, one for a prompt another worker
//! holds is tried again later, and a turn that runs again (its worker died, or it was
//! resumed) reuses the user message it saved and tells readers to drop its partial
//! blocks.

mod after;
mod answer;
mod before;
mod claim;
mod context;
mod finish;
mod generation;
mod persist;
mod route;
mod suspend;
mod user_breaker;
mod user_message;

use std::time::Instant;

use parley_entity::{prompts, query::prompts::SessionAt, sessions};
use parley_protocol::jobs::PromptJob;

use crate::agent_loop::LoopEnd;
use crate::{
    deps::Deps,
    error::{Handled, JobError, TurnError},
    sink::{DbRow, Stop, TurnSink, Watcher},
};
use answer::{Answer, Produced};

/// Runs the turn of a `PromptJob` job, from the claim to the end told to readers.
pub async fn run(deps: &Deps, job: &PromptJob) -> Result<Handled, JobError> {
    let started = Instant::now();
    // Listening before the claim reads the row: a cancel recorded after that is heard.
    let cancel = deps.events.listen_cancel(job.prompt_id);
    let claimed = match claim::claim(claiming(deps), job.prompt_id).await? {
        claim::Start::Run(claimed) => claimed,
        claim::Start::Skip(handled) => return Ok(handled),
    };
    let prompt = &claimed.prompt;
    let row = DbRow {
        db: deps.db.clone(),
        prompt_id: prompt.id,
        worker: deps.worker_id.clone(),
        lease: deps.settings.lease,
    };
    let watcher = Watcher::start(row, cancel, deps.settings.lease);
    let mut sink = TurnSink::new(
        &deps.events,
        claim::seqs(prompt),
        deps.db.clone(),
        prompt.id,
        deps.settings.checkpoint_interval,
        &watcher,
    )
    .coalesce(deps.settings.delta_window, deps.settings.delta_max_bytes)
    .renews_lease(&deps.worker_id, deps.settings.lease, &watcher);
    let known = job.session.clone().map(sessions::Model::from);
    let count_at_claim = claimed.at.count;
    let ended = match stages(
        deps, prompt, &mut sink, &watcher, known, claimed.at, started,
    )
    .await
    {
        Ok(Produced::Suspended(suspended)) => {
            suspend::suspend(
                store(deps),
                deps.queue.as_ref(),
                prompt,
                &mut sink,
                *suspended,
            )
            .await
        }
        Ok(produced) => {
            let record = persist::record(store(deps), prompt, produced).await;
            match record {
                Ok(record) => end(deps, prompt, &mut sink, record, Some(count_at_claim)).await,
                Err(err) => Err(err),
            }
        }
        Err(err) => Err(err),
    };
    match ended {
        Ok(next) => Ok(Handled::Done { next }),
        Err(TurnError::LeaseLost) => {
            tracing::warn!("lost the prompt to another worker; stopping");
            Ok(Handled::Done { next: None })
        }
        Err(err) => fail_internally(deps, prompt, &mut sink, err).await,
    }
}

/// The stages between the claim and the persistence of the turn's end.
async fn stages(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    watcher: &Watcher,
    known: Option<sessions::Model>,
    at: SessionAt,
    started: Instant,
) -> Result<Produced, TurnError> {
    let sources = context::Sources {
        db: &deps.db,
        catalog: &deps.catalog,
        history: &deps.history,
    };
    let Some(mut context) = context::gather(sources, prompt, sink, known, at).await? else {
        return Ok(Produced::UnknownModel);
    };
    let before = before::run(&deps.modules(), prompt, &context).await?;
    if let Some(blocked) = before.outcome.blocked.clone() {
        let answer = before::answer_blocked(&deps.db, prompt, sink, context, before, blocked);
        return Ok(Produced::Answered(Box::new(answer.await?)));
    }
    let content = before.content(&context.input);
    let routed = route::route(&deps.db, prompt, &context.session, &content, sink).await?;
    let saving = user_message::Saving {
        place: context.place,
        content: &content,
        files: &context.files,
        before: before.record(),
    };
    let user_message_id = user_message::save(&deps.db, prompt, sink, saving).await?;
    if let Some(hooks) = &before.hooks
        && prompt.attempt <= 1
    {
        hooks.on_message(&deps.db, &content, user_message_id);
    }
    if let Some(generation) = routed.answer {
        let answer = route::skill_answer(
            context.session,
            routed.decision,
            generation,
            user_message_id,
        );
        return Ok(Produced::Answered(Box::new(answer)));
    }
    let engine = generation::Engine {
        db: &deps.db,
        catalog: &deps.catalog,
        history: &deps.history,
        registry: &deps.registry,
        queue: &deps.queue,
        worker_id: &deps.worker_id,
        agent_loop: &deps.settings.agent_loop,
        response_buffer: deps.settings.response_buffer,
        feed: &deps.feed,
        approval_timeout: deps.settings.approval_timeout,
        budgets: &deps.budgets,
    };
    let mut generated = generation::generate(
        engine,
        prompt,
        sink,
        &mut context,
        &before,
        &content,
        started,
    )
    .await?;
    if watcher.state() == Stop::LeaseLost {
        return Err(TurnError::LeaseLost);
    }
    if matches!(generated.end, LoopEnd::Suspended) {
        return Ok(Produced::Suspended(Box::new(answer::Suspended {
            session: context.session,
            generated,
        })));
    }
    let settled = after::settle(before.hooks.as_ref(), sink, &content, &mut generated).await?;
    let answer = Answer {
        decision: routed.decision,
        ..Answer::from_model(context.session, generated, settled, user_message_id)
    };
    Ok(Produced::Answered(Box::new(answer)))
}

/// Writes the turn's end (the persistence stage), then tells it (the finish stage).
async fn end(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    mut record: persist::Record,
    from: Option<i32>,
) -> Result<Option<uuid::Uuid>, TurnError> {
    let written = persist::write(store(deps), prompt, sink, &mut record, from).await?;
    finish::finish(telling(deps), sink, record, written).await
}

/// The turn could not be recorded normally (the database or the event log failed): end
/// it `error`/`internal_error` (resumable) if that can still be recorded, else leave it
/// to the queue's bounded retries and the reaper.
async fn fail_internally(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    err: TurnError,
) -> Result<Handled, JobError> {
    tracing::error!(error = %err, "turn failed internally");
    match end(
        deps,
        prompt,
        sink,
        persist::Record::internal_failure(),
        None,
    )
    .await
    {
        Ok(next) => Ok(Handled::Done { next }),
        Err(TurnError::LeaseLost) => Ok(Handled::Done { next: None }),
        Err(again) => Err(again.into()),
    }
}

fn claiming(deps: &Deps) -> claim::Claiming<'_> {
    claim::Claiming {
        db: &deps.db,
        events: &deps.events,
        worker_id: &deps.worker_id,
        lease: deps.settings.lease,
        retention: deps.settings.retention,
    }
}

fn store(deps: &Deps) -> persist::Store<'_> {
    persist::Store {
        db: &deps.db,
        history: &deps.history,
        worker_id: &deps.worker_id,
        registry: &deps.registry,
        catalog: &deps.catalog,
    }
}

fn telling(deps: &Deps) -> finish::Telling<'_> {
    finish::Telling {
        db: &deps.db,
        events: &deps.events,
        retention: deps.settings.retention,
        quotas: &deps.quotas,
        catalog: &deps.catalog,
        title_model: deps.settings.title_model.as_deref(),
        feed: &deps.feed,
    }
}
