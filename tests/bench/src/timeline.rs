//! Diagnosis (`--timeline N`): single turns one after the other, and when each kind of
//! event first arrived (median ms from the request).

use std::time::{Duration, Instant};

use anyhow::Context;
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::json;

use crate::{
    setup::Api,
    stats::{self, fmt_ms},
};

pub async fn print(api: &Api, tokens: usize, turns: usize) -> anyhow::Result<()> {
    let fixtures = api
        .fixtures(1, &[], &[])
        .await
        .context("creating fixtures")?;
    let user = &fixtures.users[0];
    let session = api.open_session(user, &fixtures.tool_id).await?;
    let url = api.url(&format!("/v1/sessions/{session}/messages"));
    let content = format!("[[mock tokens={tokens}]] hi");
    let mut all: Vec<Vec<(String, Duration)>> = Vec::new();
    for _ in 0..turns.max(1) {
        all.push(timeline(&api.client, &url, &user.token, &content).await?);
    }
    println!(
        "\n== timeline of {} turns at C = 1: median ms from the request",
        all.len()
    );
    let names: Vec<String> = all[0].iter().map(|(n, _)| n.clone()).collect();
    for name in names {
        let mut at: Vec<Duration> = all
            .iter()
            .filter_map(|marks| marks.iter().find(|(n, _)| *n == name).map(|(_, d)| *d))
            .collect();
        at.sort_unstable();
        println!(
            "  {name:<16} p50 {:>8} ms   min {:>8} ms   max {:>8} ms",
            fmt_ms(stats::nearest_rank(&at, 50.0)),
            fmt_ms(at.first().copied()),
            fmt_ms(at.last().copied()),
        );
    }
    Ok(())
}

/// When each kind of event first arrived in one turn, from the request being sent:
/// `headers` for the response head, then one entry per event type in arrival order.
pub async fn timeline(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    content: &str,
) -> anyhow::Result<Vec<(String, Duration)>> {
    let sent = Instant::now();
    let response = client
        .post(url)
        .bearer_auth(token)
        .header("accept", "text/event-stream")
        .json(&json!({"content": content}))
        .send()
        .await?;
    anyhow::ensure!(response.status() == 200, "http {}", response.status());
    let mut marks = vec![("headers".to_owned(), sent.elapsed())];
    let mut events = response.bytes_stream().eventsource();
    let mut last_delta = None;
    while let Some(event) = events.next().await {
        let event = event?;
        let at = sent.elapsed();
        if event.event == "text_delta" {
            last_delta = Some(at);
        }
        if !marks.iter().any(|(name, _)| *name == event.event) {
            marks.push((event.event.clone(), at));
        }
        if event.event == "complete" {
            break;
        }
    }
    if let Some(at) = last_delta {
        let pos = marks
            .iter()
            .position(|(name, _)| name == "block_stop")
            .unwrap_or(marks.len());
        marks.insert(pos, ("last text_delta".to_owned(), at));
    }
    Ok(marks)
}
