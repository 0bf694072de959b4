//! The process's allocator: jemalloc, with settings for the role the process plays.
//!
//! Measured against glibc's malloc (BENCHMARKS.md, "Issue #16: the allocator"): a worker
//! at 200 users whose model streams a token every 20 ms spends 10–15 % less CPU per
//! token, and an api process holding 10,000 open feeds needs 8.2 KiB per feed instead of
//! 13.3 KiB (glibc with `MALLOC_MMAP_THRESHOLD_=8192`).
//!
//! An api process holds thousands of open feeds. Each is a connection with two 8 KiB
//! buffers of hyper's (the read buffer and the header buffer) of which a feed touches a
//! few hundred bytes, and a page a feed never writes costs no memory unless something
//! wrote it before. So an api process gives freed pages back at once (dirty and muzzy
//! decay 0: a new connection's buffers land on untouched pages), and its threads cache
//! only small freed objects (`tcache_max:4096`: a cached 8 KiB buffer would hand a new
//! feed pages another request wrote). That costs the api some CPU at a model's full speed
//! (0 ms a token), none measurable at a real model's pace. `parley serve` holds the feeds
//! too, and is where memory is scarcest (one small machine), so it runs the same way;
//! its RSS then follows what it holds, as its memory tests expect (`memory`, `edge`),
//! which jemalloc's defaults (freed pages kept ~10 s, an arena per thread) did not.
//! Workers keep jemalloc's defaults: their CPU gain is with them.
//!
//! jemalloc reads its settings once, before `main`, from `_RJEM_MALLOC_CONF` (its
//! `MALLOC_CONF` under the prefix this build uses). So `parley api` or `parley serve`
//! started without it runs itself again with [`FEEDS_CONF`] set, as the same process
//! (`exec`). An operator's own `_RJEM_MALLOC_CONF` is kept as it is.

use std::ffi::OsString;

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The variable jemalloc reads its settings from in this build.
pub const CONF_VAR: &str = "_RJEM_MALLOC_CONF";

/// The settings of a process that holds many open connections (see the module docs).
pub const FEEDS_CONF: &str = "tcache_max:4096,dirty_decay_ms:0,muzzy_decay_ms:0";

/// The settings a process of this role should start with when it was given none
/// (`current`: the value of [`CONF_VAR`]); `None`: as it is.
pub fn conf_for(feeds: bool, current: Option<OsString>) -> Option<&'static str> {
    (feeds && current.is_none()).then_some(FEEDS_CONF)
}

/// The settings this process should run itself again with ([`conf_for`] of its
/// current ones).
pub fn restart_conf(feeds: bool) -> Option<&'static str> {
    // Not a setting of Parley's (cli::config reads those): the variable jemalloc itself
    // read before `main`, looked at to know whether the process was given one.
    #[allow(
        clippy::disallowed_methods,
        reason = "jemalloc's own variable, read before main, not a setting of Parley's"
    )]
    let current = std::env::var_os(CONF_VAR);
    conf_for(feeds, current)
}

/// Runs this process again with `conf` as the allocator's settings: returns only if
/// that failed (the process then goes on with the defaults).
pub fn restart_with(conf: &str) -> std::io::Error {
    use std::os::unix::process::CommandExt;
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => return err,
    };
    std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(CONF_VAR, conf)
        .exec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_feeds_process_without_settings_gets_the_feeds_settings() {
        assert_eq!(conf_for(true, None), Some(FEEDS_CONF));
        assert_eq!(conf_for(true, Some("narenas:1".into())), None);
        assert_eq!(conf_for(false, None), None);
    }
}
