//! `parley-mock-llm --listen ADDR`: the mock as a separate process, for benchmarks.
//!
//! Prints `mock-llm listening on http://ADDR/v1` once it accepts connections, then serves
//! until interrupted. The request log is off (nobody could read it).

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use parley_mock_llm::{DEFAULT_MODEL, MockConfig, MockLlm};

#[derive(Parser)]
#[command(about = "An OpenAI-compatible mock LLM with fault injection ([[mock ...]] directives).")]
struct Args {
    /// Address to listen on; port 0 picks a free port (the line printed says which).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// A model id to serve; repeat for several.
    #[arg(long = "model", default_values_t = [DEFAULT_MODEL.to_owned()])]
    models: Vec<String>,
    /// Delay before the first chunk of every stream, in ms.
    #[arg(long, default_value_t = 0)]
    first_token_delay_ms: u64,
    /// Delay between tokens of every stream, in ms.
    #[arg(long, default_value_t = 0)]
    token_delay_ms: u64,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let config = MockConfig {
        models: args.models,
        first_token_delay: Duration::from_millis(args.first_token_delay_ms),
        token_delay: Duration::from_millis(args.token_delay_ms),
        record_requests: false,
    };
    let mock = MockLlm::start_on(args.listen, config).await?;
    println!("mock-llm listening on {}", mock.base_url());
    tokio::signal::ctrl_c().await?;
    drop(mock);
    Ok(())
}
