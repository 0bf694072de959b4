//! `parley-mcp-test`: the test MCP server (`parley_mcp_test`) over stdio (the default)
//! or streamable HTTP (`--http ADDR`, which prints `listening on http://ADDR/mcp`).

use clap::Parser;

#[derive(Parser)]
struct Args {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:0) instead of stdio.
    #[arg(long)]
    http: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    match args.http {
        None => parley_mcp_test::serve_stdio().await,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            println!("listening on http://{}/mcp", listener.local_addr()?);
            parley_mcp_test::serve_http(listener).await
        }
    }
}
