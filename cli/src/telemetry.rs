//! The one place that builds the tracing subscriber. Logs go to stderr, so stdout stays
//! for what a person or script reads (the listen address, a token shown once).
//!
//! OpenTelemetry export over OTLP is added here when the streaming path lands (issue #3);
//! the subscriber is a registry of layers so that layer slots in beside `fmt`.

use tracing_subscriber::{EnvFilter, layer::SubscriberExt, util::SubscriberInitExt};

use crate::config::{LogFormat, LogSettings};

pub fn init(log: &LogSettings) {
    // The filter was validated with the settings; fall back to `info` defensively.
    let filter = EnvFilter::try_new(&log.filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let registry = tracing_subscriber::registry().with(filter);
    // Colours only for a person at a terminal, never into files or log collectors.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(ansi);
    let result = match log.format {
        LogFormat::Json => registry.with(fmt.json()).try_init(),
        LogFormat::Pretty => registry.with(fmt.compact()).try_init(),
    };
    if let Err(err) = result {
        eprintln!("tracing was already initialised: {err}");
    }
}
