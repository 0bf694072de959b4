//! The one place that builds the tracing subscriber. Logs go to stderr, so stdout stays
//! for what a person or script reads (the listen address, a token shown once).
//!
//! When an OTLP endpoint is configured (`telemetry.otlp_endpoint`, or OpenTelemetry's
//! own `OTEL_EXPORTER_OTLP_ENDPOINT`), the server roles also export their `tracing` spans
//! as OpenTelemetry traces over OTLP/HTTP (protobuf), batched on a thread of the SDK's
//! own, and install the W3C Trace Context propagator that carries a request's trace
//! into its job (`parley_runtime::trace`). The spans are the ones the logs already
//! have; `telemetry.filter` picks which are exported, apart from `log.filter` (which
//! picks what is logged).

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::{Resource, propagation::TraceContextPropagator, trace::SdkTracerProvider};
use tracing_subscriber::{EnvFilter, Layer, layer::SubscriberExt, util::SubscriberInitExt};

use crate::config::{LogFormat, LogSettings, TelemetrySettings};

/// What must happen before the process exits: the last spans are sent.
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Sends the spans still batched and stops the exporter (blocking: run it off the
    /// async threads).
    pub fn shutdown(self) {
        if let Some(provider) = self.provider
            && let Err(err) = provider.shutdown()
        {
            eprintln!("flushing traces failed: {err}");
        }
    }
}

/// Sets up logging, and trace export for a server role named `service` (None: a
/// one-off command such as `migrate`, which exports nothing).
pub fn init(log: &LogSettings, traces: &TelemetrySettings, service: Option<&str>) -> Telemetry {
    // The filters were validated with the settings; fall back to `info` defensively.
    let filter = |directives: &str| {
        EnvFilter::try_new(directives).unwrap_or_else(|_| EnvFilter::new("info"))
    };
    let provider = service.and_then(|service| tracer_provider(traces, service));
    // Each layer has its own filter: quiet logs (`warn`) still export the turn's spans.
    let otel = provider.as_ref().map(|p| {
        tracing_opentelemetry::layer()
            .with_tracer(p.tracer("parley"))
            .with_filter(filter(&traces.filter))
    });
    let registry = tracing_subscriber::registry().with(otel);
    // Colours only for a person at a terminal, never into files or log collectors.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(ansi);
    let result = match log.format {
        LogFormat::Json => registry
            .with(fmt.json().with_filter(filter(&log.filter)))
            .try_init(),
        LogFormat::Pretty => registry
            .with(fmt.compact().with_filter(filter(&log.filter)))
            .try_init(),
    };
    if let Err(err) = result {
        eprintln!("tracing was already initialised: {err}");
    }
    if provider.is_some() {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        tracing::info!(service, "exporting traces over OTLP");
    }
    Telemetry { provider }
}

/// The trace pipeline, when an endpoint is configured. A pipeline that cannot be built
/// is reported and left out: traces are not worth refusing to start over.
#[allow(
    clippy::disallowed_methods,
    reason = "OpenTelemetry's own variables (OTEL_*), read where its SDK would read them"
)]
fn tracer_provider(traces: &TelemetrySettings, service: &str) -> Option<SdkTracerProvider> {
    let from_env = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    let mut exporter = opentelemetry_otlp::SpanExporter::builder().with_http();
    match &traces.otlp_endpoint {
        Some(endpoint) => {
            // As with OTEL_EXPORTER_OTLP_ENDPOINT, the setting is the collector's base URL.
            let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
            exporter = exporter.with_endpoint(url);
        }
        None if from_env => {}
        None => return None,
    }
    let exporter = match exporter.build() {
        Ok(exporter) => exporter,
        Err(err) => {
            eprintln!("traces are not exported: cannot build the OTLP exporter: {err}");
            return None;
        }
    };
    let name = traces
        .service_name
        .clone()
        .or_else(|| {
            std::env::var("OTEL_SERVICE_NAME")
                .ok()
                .filter(|n| !n.is_empty())
        })
        .unwrap_or_else(|| service.to_owned());
    let resource = Resource::builder().with_service_name(name).build();
    Some(
        SdkTracerProvider::builder()
            .with_resource(resource)
            .with_batch_exporter(exporter)
            .build(),
    )
}
