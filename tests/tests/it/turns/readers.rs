//! Readers of a prompt's feed: joining mid-way (`Last-Event-ID`, `?after=`), several
//! readers, a reader that leaves, keep-alive pings, and the feed rebuilt from the
//! database after the event log's retention.

use std::time::Duration;

use futures::StreamExt;
use parley_tests::turns::{assert_gap_free, text_of};
use parley_tests::{SseEvent, both_backends};

use super::{WAIT, chat, chat_with, prompt_uuid};

both_backends!(
    joining_a_turn_mid_way_and_many_readers,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let accepted = chat
            .send_in_background("[[mock tokens=30 token_delay_ms=20]] go", None, None)
            .await;
        let prompt_id = accepted.prompt_id;
        assert_eq!(
            accepted.events_url,
            format!("/v1/prompts/{prompt_id}/events")
        );

        let mut first = chat.events(prompt_id, None).await;
        let mut head = Vec::new();
        for _ in 0..6 {
            head.push(first.next(WAIT).await.expect("an event"));
        }
        let joined_after = head.last().unwrap().seq();
        let mut late = chat.events(prompt_id, Some(joined_after)).await;
        let mut second = chat.events(prompt_id, None).await;
        let mut third = chat.events(prompt_id, None).await;
        let rest = first.until_terminal(WAIT).await;
        let late_events = late.until_terminal(WAIT).await;
        assert_eq!(
            late_events, rest,
            "Last-Event-ID yields exactly the remaining events"
        );
        let all: Vec<SseEvent> = head.into_iter().chain(rest).collect();
        assert_gap_free(&all);
        assert_eq!(
            second.until_terminal(WAIT).await,
            all,
            "readers see identical streams"
        );
        assert_eq!(third.until_terminal(WAIT).await, all);
        assert_eq!(text_of(&all).split_whitespace().count(), 30);

        // After the turn, a reader joins from ?after= and gets the tail, then the feed ends.
        let tail = chat
            .app
            .prompt_events_after(&chat.token, &prompt_id.to_string(), all.len() as u64 - 2)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(tail, all[all.len() - 2..].to_vec());
    }
);

both_backends!(
    after_retention_events_are_rebuilt_from_the_database,
    |backend: Backend| async move {
        let chat = chat_with(backend, &[("event_retention_s", "1")], &[]).await;
        let live = chat
            .stream("[[mock reasoning=hmm tokens=5]] q")
            .await
            .until_terminal(WAIT)
            .await;
        let prompt_id = prompt_uuid(&live);
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let rebuilt = chat
            .events(prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        // Numbered on, gap-free, after the live feed's terminal event.
        let after = live.last().unwrap().seq();
        let seqs: Vec<u64> = rebuilt.iter().map(|e| e.seq()).collect();
        assert_eq!(
            seqs,
            (after + 1..=after + rebuilt.len() as u64).collect::<Vec<_>>()
        );
        let kinds: Vec<&str> = rebuilt.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "reset",
                "prompt_state",
                "block_start",
                "thinking_delta",
                "block_stop",
                "block_start",
                "text_delta",
                "block_stop",
                "complete"
            ],
            "the same kinds of events, each block whole"
        );
        assert_eq!(text_of(&rebuilt), text_of(&live));
        let (live_end, rebuilt_end) = (&live.last().unwrap().data, &rebuilt.last().unwrap().data);
        for field in ["message_id", "payload", "usage", "model", "vendor"] {
            assert_eq!(live_end[field], rebuilt_end[field], "{field}");
        }
    }
);

both_backends!(
    open_feeds_get_a_ping_every_eight_seconds,
    |backend: Backend| async move {
        let chat = chat_with(backend, &[("stall_timeout_ms", "20000")], &[]).await;
        let accepted = chat
            .send_in_background(
                "[[mock first_token_delay_ms=9500 tokens=2]] slow start",
                None,
                None,
            )
            .await;
        let prompt_id = accepted.prompt_id;
        // The feed's bytes as they come, not `SseReader`: it hides pings, and this test
        // checks how a ping is written (no `id:` line).
        let response = chat
            .app
            .client
            .get(chat.app.url(&format!("/v1/prompts/{prompt_id}/events")))
            .bearer_auth(&chat.token)
            .send()
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let mut raw = response.bytes_stream();
        let mut text = String::new();
        while !text.contains("event: ping") {
            let chunk = tokio::time::timeout(Duration::from_secs(12), raw.next())
                .await
                .expect("a ping within 12 s")
                .unwrap()
                .unwrap();
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(7),
            "not before the interval: {waited:?}"
        );
        let ping = text
            .split("\n\n")
            .find(|e| e.contains("event: ping"))
            .unwrap();
        assert!(!ping.contains("id:"), "a ping has no id: {ping}");
        assert!(
            ping.contains("\"type\":\"ping\"") && ping.contains("\"ts\":"),
            "{ping}"
        );
    }
);

both_backends!(
    a_reader_that_leaves_does_not_stop_the_turn,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let mut feed = chat
            .stream("[[mock tokens=30 token_delay_ms=20]] go on without me")
            .await;
        let mut head = Vec::new();
        for _ in 0..4 {
            head.push(feed.next(WAIT).await.expect("an event"));
        }
        let prompt_id = prompt_uuid(&head);
        drop(feed);
        let events = chat
            .events(prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(
            events.last().unwrap().event,
            "complete",
            "closing a reader never stops the generation"
        );
        assert_eq!(text_of(&events).split_whitespace().count(), 30);
        assert_eq!(
            events[..4],
            head[..],
            "the log is the same for every reader"
        );
    }
);
