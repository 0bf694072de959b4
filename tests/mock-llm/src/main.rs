//! `parley-mock-llm --listen ADDR`: the mock as a separate process, for benchmarks.
//!
//! Prints `mock-llm listening on http://ADDR/v1` once it accepts connections, then serves
//! until interrupted. The request log is off (nobody could read it).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use parley_mock_llm::{DEFAULT_MODEL, Dialect, MockConfig, MockLlm};

#[derive(Parser)]
#[command(
    about = "An OpenAI-compatible and Anthropic Messages mock LLM with fault injection ([[mock ...]] directives)."
)]
struct Args {
    /// Address to listen on; port 0 picks a free port (the line printed says which).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// A model id to serve, as NAME or NAME:DIALECT (plain, deepseek, gemini: the dialect
    /// of the chat endpoint); repeat for several. A suffix that is not a dialect stays part
    /// of the name (`llama3:8b`).
    #[arg(long = "model", default_values_t = [DEFAULT_MODEL.to_owned()])]
    models: Vec<String>,
    /// Delay before the first chunk of every stream, in ms.
    #[arg(long, default_value_t = 0)]
    first_token_delay_ms: u64,
    /// Delay between tokens of every stream, in ms.
    #[arg(long, default_value_t = 0)]
    token_delay_ms: u64,
    /// Chat endpoint: the shortest cached prefix reported in `cached_tokens`.
    #[arg(long, default_value_t = 1024)]
    cache_min_tokens: u64,
    /// Chat endpoint: the step `cached_tokens` is rounded down to.
    #[arg(long, default_value_t = 128)]
    cache_increment: u64,
    /// Anthropic endpoint: the shortest prefix a cache_control breakpoint caches.
    #[arg(long, default_value_t = 1024)]
    anthropic_cache_min_tokens: u64,
    /// A model that answers in words whatever format a request asks (repeatable).
    #[arg(long = "text-only")]
    text_only: Vec<String>,
}

/// `NAME` or `NAME:DIALECT`.
fn model_and_dialect(arg: &str) -> (String, Dialect) {
    if let Some((name, suffix)) = arg.rsplit_once(':')
        && let Ok(dialect) = suffix.parse()
    {
        return (name.to_owned(), dialect);
    }
    (arg.to_owned(), Dialect::Plain)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let mut models = Vec::new();
    let mut dialects = BTreeMap::new();
    for arg in &args.models {
        let (name, dialect) = model_and_dialect(arg);
        if dialect != Dialect::Plain {
            dialects.insert(name.clone(), dialect);
        }
        models.push(name);
    }
    let config = MockConfig {
        models,
        dialects,
        first_token_delay: Duration::from_millis(args.first_token_delay_ms),
        token_delay: Duration::from_millis(args.token_delay_ms),
        record_requests: false,
        cache_min_tokens: args.cache_min_tokens,
        cache_increment: args.cache_increment,
        anthropic_cache_min_tokens: args.anthropic_cache_min_tokens,
        text_only: args.text_only,
    };
    let mock = MockLlm::start_on(args.listen, config).await?;
    println!("mock-llm listening on {}", mock.base_url());
    tokio::signal::ctrl_c().await?;
    drop(mock);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_may_name_its_dialect() {
        assert_eq!(
            model_and_dialect("ds:deepseek"),
            ("ds".into(), Dialect::DeepSeek)
        );
        assert_eq!(model_and_dialect("g:gemini"), ("g".into(), Dialect::Gemini));
        assert_eq!(model_and_dialect("m:plain"), ("m".into(), Dialect::Plain));
        assert_eq!(
            model_and_dialect("llama3:8b"),
            ("llama3:8b".into(), Dialect::Plain)
        );
        assert_eq!(model_and_dialect("mock"), ("mock".into(), Dialect::Plain));
    }
}
