//! The sandbox's parent side: [`classify`] an upload without letting its parser near the
//! server's threads.
//!
//! Text and images need no parser and are classified where the caller is. A PDF goes to
//! a [`Sandbox`]:
//!
//! * [`Sandbox::Process`] — the server's: one child process per PDF (`parley
//!   extract-text`, [`crate::child`]) fed the bytes on stdin, its stdout read up to what
//!   the text limit allows, its stderr discarded (a full pipe must never block it), its
//!   environment cleared (a parser exploit finds no secrets there), killed at the
//!   timeout and whenever the upload's request goes away (`kill_on_drop`). A panic, an
//!   abort, a kill or a memory limit reached all end it, never the server: the file is
//!   [`FileRefusal::Unreadable`].
//! * [`Sandbox::InProcess`] — the parser on a blocking thread with a timeout: a thread
//!   cannot be killed, so past the timeout it runs on, and a stack overflow still aborts
//!   the process. For trusted callers and tests only.
//!
//! A refusal is about the file (422); a child that cannot be started or set itself up is
//! about the server ([`SandboxError`]: 500), so a broken deployment is not blamed on its
//! users' files.

use std::{
    ffi::OsString,
    path::{Path, PathBuf},
    process::Stdio,
    time::Duration,
};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use crate::{
    Classified, FileLimits, FileRefusal, Triage,
    child::{ChildLimits, code},
    clip, pdf, triage,
};

/// Where a PDF is parsed.
#[derive(Debug, Clone)]
pub enum Sandbox {
    /// In a child process: `program` with `args`, then the limits
    /// ([`ChildLimits::to_args`]); killed after `timeout`; its address space at most
    /// `max_memory_bytes`.
    Process {
        program: PathBuf,
        args: Vec<OsString>,
        timeout: Duration,
        max_memory_bytes: u64,
    },
    /// On a blocking thread of this process, abandoned (not stopped) after `timeout`:
    /// trusted callers and tests only. An abandoned thread runs until the parser returns,
    /// if ever, and the runtime's drop waits for it (`shutdown_background` does not).
    InProcess { timeout: Duration },
}

/// The sandbox could not do its work: the server's fault, not the file's.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("starting the PDF extractor {program:?}: {source}")]
    Start {
        program: PathBuf,
        source: std::io::Error,
    },
    /// The child exited with [`code::SETUP`] or [`code::USAGE`]: it could not limit
    /// itself or understand its arguments.
    #[error("the PDF extractor could not set itself up (exit code {0})")]
    Setup(i32),
}

/// Why [`classify`] gave no classification.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    #[error(transparent)]
    Refused(#[from] FileRefusal),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

/// What a file is, from its bytes, a PDF parsed in `sandbox`.
pub async fn classify(
    data: &[u8],
    limits: &FileLimits,
    sandbox: &Sandbox,
) -> Result<Classified, ClassifyError> {
    match triage(data, limits)? {
        Triage::Done(classified) => Ok(classified),
        Triage::Pdf => {
            let started = std::time::Instant::now();
            let text = match sandbox {
                Sandbox::Process {
                    program,
                    args,
                    timeout,
                    max_memory_bytes,
                } => {
                    let child = ChildLimits {
                        max_file_bytes: limits.max_file_bytes,
                        max_text_chars: limits.max_text_chars,
                        max_memory_bytes: *max_memory_bytes,
                        cpu_seconds: timeout.as_secs() + 1,
                    };
                    in_child(program, args, *timeout, child, data).await?
                }
                Sandbox::InProcess { timeout } => in_thread(*timeout, data, limits).await,
            };
            let ms = started.elapsed().as_millis() as u64;
            match &text {
                Ok(_) => tracing::debug!(bytes = data.len(), ms, "PDF text extracted"),
                Err(refusal) => {
                    tracing::info!(bytes = data.len(), ms, %refusal, "PDF refused")
                }
            }
            Ok(Classified::pdf(text?))
        }
    }
}

/// The text of a PDF parsed on a blocking thread, given up on after `timeout`.
async fn in_thread(
    timeout: Duration,
    data: &[u8],
    limits: &FileLimits,
) -> Result<String, FileRefusal> {
    // The thread needs its own copy: it may outlive this call.
    let data = data.to_vec();
    let max_chars = limits.max_text_chars;
    let parse = tokio::task::spawn_blocking(move || pdf::text(&data, max_chars));
    match tokio::time::timeout(timeout, parse).await {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => Err(FileRefusal::Unreadable),
        Err(_) => {
            tracing::warn!(
                ?timeout,
                "PDF parser timed out in process; its thread runs on"
            );
            Err(FileRefusal::Unreadable)
        }
    }
}

/// The text of a PDF parsed by a child process; the outer error is the sandbox's.
async fn in_child(
    program: &Path,
    args: &[OsString],
    timeout: Duration,
    limits: ChildLimits,
    data: &[u8],
) -> Result<Result<String, FileRefusal>, SandboxError> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .args(limits.to_args())
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| SandboxError::Start {
            program: program.to_path_buf(),
            source,
        })?;
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    // Four bytes a character at most, and a little for a child that clips differently.
    let cap = limits.max_text_chars.saturating_mul(4).saturating_add(4);
    let run = async {
        // Fed and read at once: a child that writes before it has read everything must
        // not find us blocked on its full stdin. A write error is the child gone early,
        // which its exit status explains.
        let feed = async move {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(data).await;
            }
        };
        let read = async move {
            match stdout {
                Some(stdout) => read_capped(stdout, cap).await,
                None => Ok(Vec::new()),
            }
        };
        let ((), out) = tokio::join!(feed, read);
        (out, child.wait().await)
    };
    let (out, status) = match tokio::time::timeout(timeout, run).await {
        Ok(ended) => ended,
        Err(_) => {
            let _ = child.kill().await;
            tracing::warn!(
                bytes = data.len(),
                ?timeout,
                "PDF extractor killed at its timeout"
            );
            return Ok(Err(FileRefusal::Unreadable));
        }
    };
    let status = match status {
        Ok(status) => status,
        Err(_) => return Ok(Err(FileRefusal::Unreadable)),
    };
    let Some(exit) = status.code() else {
        use std::os::unix::process::ExitStatusExt;
        tracing::warn!(
            bytes = data.len(),
            signal = status.signal(),
            "PDF extractor ended by a signal (a crash, or a memory or CPU limit)"
        );
        return Ok(Err(FileRefusal::Unreadable));
    };
    Ok(match u8::try_from(exit) {
        Ok(code::TEXT) => match out {
            Ok(out) => {
                let text = String::from_utf8_lossy(&out);
                let text = text.trim();
                if text.is_empty() {
                    Err(FileRefusal::NoText)
                } else {
                    Ok(clip(text, limits.max_text_chars))
                }
            }
            Err(_) => Err(FileRefusal::Unreadable),
        },
        Ok(code::NO_TEXT) => Err(FileRefusal::NoText),
        Ok(code::SETUP | code::USAGE) => return Err(SandboxError::Setup(exit)),
        _ => {
            tracing::info!(
                bytes = data.len(),
                exit,
                "PDF extractor could not read the file"
            );
            Err(FileRefusal::Unreadable)
        }
    })
}

/// Reads `from` to its end, keeping the first `cap` bytes and discarding the rest (so a
/// child that writes more is never blocked on a full pipe).
async fn read_capped(mut from: impl AsyncRead + Unpin, cap: usize) -> std::io::Result<Vec<u8>> {
    let mut kept = Vec::new();
    (&mut from)
        .take(u64::try_from(cap).unwrap_or(u64::MAX))
        .read_to_end(&mut kept)
        .await?;
    tokio::io::copy(&mut from, &mut tokio::io::sink()).await?;
    Ok(kept)
}

#[cfg(test)]
mod tests;
