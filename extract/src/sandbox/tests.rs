//! The sandbox's parent side against stand-in children (`/bin/sh` scripts): exit codes,
//! signals, the timeout, output clipping and a child that floods or ignores its pipes.
//! The real child (`parley extract-text`) is driven through the API by
//! `tests/tests/it/attachments.rs`.

use std::time::{Duration, Instant};

use super::*;
use crate::{Kind, tests::corpus};

/// A child that runs `script` in `sh` (the limits' arguments land in `$1…`, unused).
fn sh(script: &str, timeout: Duration) -> Sandbox {
    Sandbox::Process {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into(), "sh".into()],
        timeout,
        max_memory_bytes: 512 * 1024 * 1024,
    }
}

const SECOND: Duration = Duration::from_secs(1);

async fn pdf_in(sandbox: &Sandbox, limits: &FileLimits) -> Result<Classified, ClassifyError> {
    classify(&corpus("valid_simple.pdf"), limits, sandbox).await
}

fn refusal(result: Result<Classified, ClassifyError>) -> FileRefusal {
    match result {
        Err(ClassifyError::Refused(refusal)) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn text_and_images_never_reach_the_sandbox() {
    let nowhere = Sandbox::Process {
        program: "/nonexistent/parley".into(),
        args: Vec::new(),
        timeout: SECOND,
        max_memory_bytes: 1,
    };
    let limits = FileLimits::default();
    let text = classify(b"plain words", &limits, &nowhere).await.unwrap();
    assert_eq!(text.text.as_deref(), Some("plain words"));
    // A PDF does, and a child that cannot start is the server's fault.
    match pdf_in(&nowhere, &limits).await {
        Err(ClassifyError::Sandbox(SandboxError::Start { .. })) => {}
        other => panic!("expected a start failure, got {other:?}"),
    }
}

#[tokio::test]
async fn stdout_is_the_text_clipped_to_the_limit() {
    let limits = FileLimits {
        max_text_chars: 8,
        ..FileLimits::default()
    };
    // `cat` sends the bytes back: the PDF's first 8 characters.
    let classified = pdf_in(&sh("exec cat", SECOND * 5), &limits).await.unwrap();
    assert_eq!(classified.kind, Kind::Pdf);
    assert_eq!(classified.text.as_deref(), Some("%PDF-1.4"));
    // A child that writes far more than the limit allows is drained, not blocked on a full
    // pipe, and clipped.
    let flood = sh("cat >/dev/null; yes parley | head -c 5000000", SECOND * 5);
    let started = Instant::now();
    let classified = pdf_in(&flood, &limits).await.unwrap();
    assert_eq!(classified.text.as_deref(), Some("parley\np"));
    assert!(started.elapsed() < SECOND * 5);
    // Whitespace only is no text.
    assert_eq!(
        refusal(pdf_in(&sh("cat >/dev/null; echo '   '", SECOND * 5), &limits).await),
        FileRefusal::NoText
    );
}

#[tokio::test]
async fn exit_codes_and_signals_say_how_it_ended() {
    let limits = FileLimits::default();
    for (script, expected) in [
        ("exit 10", FileRefusal::NoText),
        ("exit 11", FileRefusal::Unreadable),
        ("exit 12", FileRefusal::Unreadable),
        // A panic that escaped, an unknown code.
        ("exit 101", FileRefusal::Unreadable),
        // An abort (stack overflow, failed allocation) and a kill (memory, CPU limits).
        ("kill -ABRT $$", FileRefusal::Unreadable),
        ("kill -KILL $$", FileRefusal::Unreadable),
    ] {
        let ended = pdf_in(&sh(script, SECOND * 5), &limits).await;
        assert_eq!(refusal(ended), expected, "{script}");
    }
    // A child that cannot set itself up, or does not understand its arguments, is the
    // server's fault.
    for script in ["exit 13", "exit 2"] {
        match pdf_in(&sh(script, SECOND * 5), &limits).await {
            Err(ClassifyError::Sandbox(SandboxError::Setup(_))) => {}
            other => panic!("{script}: expected a setup failure, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_child_past_its_timeout_is_killed() {
    let started = Instant::now();
    let hung = sh("exec sleep 30", Duration::from_millis(300));
    assert_eq!(
        refusal(pdf_in(&hung, &FileLimits::default()).await),
        FileRefusal::Unreadable
    );
    assert!(started.elapsed() < SECOND * 5, "{:?}", started.elapsed());
}

#[tokio::test]
async fn the_child_gets_its_limits_and_no_environment() {
    // The limits follow the parent's arguments; HOME (set for this test) is not passed.
    let echo = sh(
        r#"cat >/dev/null; printf '%s|%s' "$*" "${HOME:-none}""#,
        SECOND * 5,
    );
    let limits = FileLimits {
        max_file_bytes: 1000,
        max_attachments: 1,
        max_text_chars: 500,
    };
    let text = pdf_in(&echo, &limits).await.unwrap().text.unwrap();
    assert_eq!(
        text,
        "--max-file-bytes 1000 --max-text-chars 500 --max-memory-bytes 536870912 --cpu-seconds 6|none"
    );
}

#[test]
fn in_process_catches_panics_and_gives_up_at_the_timeout() {
    // A runtime of its own, shut down without waiting for the thread it abandons (a
    // runtime's drop would wait for it forever).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let limits = FileLimits::default();
        let sandbox = Sandbox::InProcess {
            timeout: SECOND * 10,
        };
        let text = pdf_in(&sandbox, &limits).await.unwrap().text.unwrap();
        assert!(text.contains("Hello from Parley"), "{text}");
        let panics = classify(&corpus("enc_unknown_name.pdf"), &limits, &sandbox).await;
        assert_eq!(refusal(panics), FileRefusal::Unreadable);
        // 12⁹ content-stream runs: it never ends on its own.
        let started = Instant::now();
        let short = Sandbox::InProcess {
            timeout: Duration::from_millis(300),
        };
        let bomb = classify(&corpus("xobject_call_bomb.pdf"), &limits, &short).await;
        assert_eq!(refusal(bomb), FileRefusal::Unreadable);
        assert!(started.elapsed() < SECOND * 5);
    });
    runtime.shutdown_background();
}
