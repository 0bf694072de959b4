//! The load levels: for each C, the same closed loop straight against the mock (the
//! baseline), then through Parley, with the RSS and CPU of the watched processes; the CPU
//! is also read at the measured window's edges and divided by the tokens that streamed
//! inside it.

use std::sync::Arc;

use anyhow::Context;

use crate::{
    load::{self, Expected, Run, Timing},
    procs::{self, CpuSnapshot, Proc, RssSampler},
    report,
    setup::{Api, Fixtures, User},
    stream::{TokenCpu, Window},
};

pub struct Options {
    pub levels: Vec<usize>,
    pub timing: Timing,
    pub tokens: usize,
    pub content: Arc<str>,
    pub expected: Expected,
    pub no_direct: bool,
    pub session_per_turn: bool,
    pub mock_url: String,
    pub model: String,
    pub procs: Vec<Proc>,
    pub clk_tck: u64,
    pub series: Option<std::path::PathBuf>,
    /// The mock's pause between tokens asked per request, when one is.
    pub token_delay_ms: Option<u64>,
}

pub async fn run(api: &Api, fixtures: &Fixtures, options: &Options) -> anyhow::Result<()> {
    let timing = options.timing;
    let mut summary = Vec::new();
    let mut series = vec!["users,started_s,headers_ms,claimed_ms,ttft_ms,latency_ms".to_owned()];
    for &users in &options.levels {
        let load_before = procs::loadavg();
        let (direct, direct_cpu) = if options.no_direct {
            (None, None)
        } else {
            let (run, cpu) = direct_level(api, users, options).await;
            (Some(run), cpu)
        };

        let mut urls = Vec::with_capacity(users);
        if !options.session_per_turn {
            for (i, user) in fixtures.users[..users].iter().enumerate() {
                let session = api.open_session(user, &fixtures.tool_id).await?;
                urls.push(api.url_for(i, &format!("/v1/sessions/{session}/messages")));
            }
        }
        let users_of_level: Arc<Vec<User>> = Arc::new(fixtures.users[..users].to_vec());
        let urls = Arc::new(urls);
        let rss_pids = procs::rss_pids(&options.procs);
        let sampler = RssSampler::start(rss_pids.iter().map(|(_, pid)| *pid).collect());
        let cpu_before = CpuSnapshot::take(&options.procs);
        let window = Arc::new(Window::new(timing.warmup, timing.duration));
        let edges = cpu_at_edges(&window, &options.procs);
        let parley = {
            let client = api.client.clone();
            let content = options.content.clone();
            let expected = options.expected;
            let (api, tool_id) = (api.clone(), Arc::<str>::from(fixtures.tool_id.as_str()));
            let per_turn = options.session_per_turn;
            let turns_window = window.clone();
            load::run_users_in(window.clone(), users, timing, move |user| {
                let (client, urls, users, content) = (
                    client.clone(),
                    urls.clone(),
                    users_of_level.clone(),
                    content.clone(),
                );
                let (api, tool_id, window) = (api.clone(), tool_id.clone(), turns_window.clone());
                async move {
                    let who = &users[user];
                    if per_turn {
                        load::new_session_turn(
                            &api,
                            who,
                            &tool_id,
                            &content,
                            expected,
                            Some(&window),
                        )
                        .await
                    } else {
                        load::parley_turn_in(
                            &client,
                            &urls[user],
                            &who.token,
                            &content,
                            expected,
                            Some(&window),
                        )
                        .await
                    }
                }
            })
            .await
        };
        let cpu_after = CpuSnapshot::take(&options.procs);
        let peaks = sampler.finish();
        let cpu = procs::cpu_use(&options.procs, &cpu_before, &cpu_after, options.clk_tck);
        let token_cpu = token_cpu(edges, &options.procs, &window, options.clk_tck).await;
        let rss: Vec<(String, u64, u64)> = rss_pids
            .iter()
            .zip(&peaks)
            .map(|((name, pid), peak)| (name.clone(), *peak, procs::hwm(*pid).unwrap_or_default()))
            .collect();
        let level = report::Level {
            users,
            load_before: load_before.clone(),
            parley,
            direct,
            rss,
            cpu,
            token_cpu,
            direct_cpu,
            bound: model_bound(users, options.tokens, options.token_delay_ms),
        };
        report::print_level(&level);
        series.extend(
            level
                .parley
                .series()
                .into_iter()
                .map(|line| format!("{users},{line}")),
        );
        summary.push(level);
    }
    report::print_summary(&summary);
    report::print_pace_summary(&summary);
    if let Some(path) = &options.series {
        std::fs::write(path, series.join("\n") + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
        println!("\nper-turn series: {}", path.display());
    }
    println!("\nload avg at the end: {}", procs::loadavg());
    Ok(())
}

/// The same load straight against the mock, and what its window cost the mock and
/// this benchmark's client per 1,000 tokens: a bare reader of the model's stream, the
/// floor under what the worker pays to read it.
async fn direct_level(api: &Api, users: usize, options: &Options) -> (Run, Option<TokenCpu>) {
    let client = api.client.clone();
    let url: Arc<str> = format!(
        "{}/chat/completions",
        options.mock_url.trim_end_matches('/')
    )
    .into();
    let (model, content) = (
        Arc::<str>::from(options.model.as_str()),
        options.content.clone(),
    );
    let tokens = options.tokens;
    let window = Arc::new(Window::new(options.timing.warmup, options.timing.duration));
    let turns_window = window.clone();
    let procs: Vec<Proc> = options
        .procs
        .iter()
        .filter(|p| p.name == "mock")
        .cloned()
        .collect();
    let edges = cpu_at_edges(&window, &procs);
    let run =
        load::run_users_in(window.clone(), users, options.timing, move |_| {
            let (client, url, model, content, window) = (
                client.clone(),
                url.clone(),
                model.clone(),
                content.clone(),
                turns_window.clone(),
            );
            async move {
                load::direct_turn_in(&client, &url, &model, &content, tokens, Some(&window)).await
            }
        })
        .await;
    let cpu = token_cpu(edges, &procs, &window, options.clk_tck).await;
    (run, cpu)
}

/// The CPU counters read when the window opens and when it closes.
fn cpu_at_edges(
    window: &Window,
    procs: &[Proc],
) -> tokio::task::JoinHandle<(CpuSnapshot, CpuSnapshot)> {
    let (from, to, procs) = (window.from, window.to, procs.to_vec());
    tokio::spawn(async move {
        tokio::time::sleep_until(from.into()).await;
        let a = CpuSnapshot::take(&procs);
        tokio::time::sleep_until(to.into()).await;
        (a, CpuSnapshot::take(&procs))
    })
}

/// What `procs` spent per 1,000 tokens of `window`, from the counters read at its edges
/// (None when they could not be read).
async fn token_cpu(
    edges: tokio::task::JoinHandle<(CpuSnapshot, CpuSnapshot)>,
    procs: &[Proc],
    window: &Window,
    clk_tck: u64,
) -> Option<TokenCpu> {
    let (a, b) = edges.await.ok()?;
    let seconds = procs::cpu_seconds(procs, &a, &b, clk_tck);
    Some(TokenCpu::new(&seconds, window.tokens(), window.length()))
}

/// The most turns/s C users can run when each turn takes the model's time alone:
/// C / (tokens × the pause between them). None without a pace.
pub fn model_bound(users: usize, tokens: usize, token_delay_ms: Option<u64>) -> Option<f64> {
    let turn_s = (token_delay_ms? * tokens as u64) as f64 / 1e3;
    (turn_s > 0.0).then(|| users as f64 / turn_s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_model_bound_rate() {
        // 500 users, 200 tokens 20 ms apart: 4 s a turn, 125 turns/s at most.
        assert_eq!(super::model_bound(500, 200, Some(20)), Some(125.0));
        assert_eq!(super::model_bound(200, 200, Some(5)), Some(200.0));
        assert_eq!(super::model_bound(50, 200, None), None);
        assert_eq!(super::model_bound(50, 200, Some(0)), None);
    }
}
