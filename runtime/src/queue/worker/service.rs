//! The worker's service stack around a job: the backend's [`SettleLayer`] and the job's
//! own service, [`RunJob`] (see the parent module's documentation).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use apalis_core::error::BoxDynError;
use apalis_core::task::Task;
use futures::future::BoxFuture;
use tokio::task::JoinHandle;
use tower::{Layer, Service};
use tracing::{Instrument, error};

use super::source::Delivery;
use crate::queue::consumer::{ConsumerPool, JobContext};

/// The backend's layer: settles each job once its run is over (see the module doc).
#[derive(Clone)]
pub(crate) struct SettleLayer {
    context: JobContext,
}

impl SettleLayer {
    pub(super) fn new(context: JobContext) -> Self {
        Self { context }
    }
}

impl<S> Layer<S> for SettleLayer {
    type Service = Settle<S>;

    fn layer(&self, inner: S) -> Settle<S> {
        Settle {
            inner,
            context: self.context.clone(),
        }
    }
}

#[derive(Clone)]
pub(crate) struct Settle<S> {
    inner: S,
    context: JobContext,
}

impl<S, P> Service<Task<Delivery<P>>> for Settle<S>
where
    P: ConsumerPool,
    S: Service<Task<Delivery<P>>, Response = bool>,
    S::Error: Into<BoxDynError>,
    S::Future: Send + 'static,
{
    type Response = ();
    type Error = BoxDynError;
    type Future = BoxFuture<'static, Result<(), BoxDynError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxDynError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, task: Task<Delivery<P>>) -> Self::Future {
        let delivery = &task.args;
        let (pool, taken, job) = (
            delivery.pool.clone(),
            delivery.taken.clone(),
            delivery.job.clone(),
        );
        let run = self.inner.call(task);
        let context = self.context.clone();
        Box::pin(async move {
            let ran = run.await.map_err(Into::into);
            // Whether the job is over (acknowledge) rather than interrupted (hand back).
            let over = match &ran {
                Ok(over) => *over,
                Err(e) if e.is::<tower::timeout::error::Elapsed>() => {
                    error!(prompt_id = %job.prompt_id, "a job outlived the job timeout; giving it up");
                    context.hand_back(&job).await;
                    true
                }
                Err(e) => {
                    error!(prompt_id = %job.prompt_id, error = %e, "a job's run failed; giving it up");
                    true
                }
            };
            pool.settle(&taken, over).await;
            ran.map(drop)
        })
    }
}

/// The worker's service: runs a job on a task of its own (see [`JobContext`]); whether
/// it is over rather than interrupted.
#[derive(Clone)]
pub(crate) struct RunJob {
    pub(super) context: JobContext,
}

impl<P: ConsumerPool> Service<Task<Delivery<P>>> for RunJob {
    type Response = bool;
    type Error = BoxDynError;
    type Future = BoxFuture<'static, Result<bool, BoxDynError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxDynError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, task: Task<Delivery<P>>) -> Self::Future {
        let context = self.context.clone();
        let job = task.args.job;
        let run = tokio::spawn(
            async move { context.run_or_hand_back(job).await }.instrument(tracing::Span::current()),
        );
        let run = AbortOnDrop(run);
        Box::pin(async move { run.await.map_err(Into::into) })
    }
}

/// A job's task, aborted when its run is dropped (the job timeout, a killed worker).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
