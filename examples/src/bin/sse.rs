//! A run over HTTP as Server-Sent Events (axum), on the scripted model:
//!
//! ```text
//! cargo run -p hookwire-examples --bin sse            # listens on 127.0.0.1:3000 (or $HOOKWIRE_SSE_ADDR)
//! curl -N 'http://127.0.0.1:3000/run?prompt=count'    # the run's events, as they happen
//! ```

use std::process::ExitCode;
use std::sync::Arc;

#[tokio::main]
async fn main() -> ExitCode {
    let addr = std::env::var("HOOKWIRE_SSE_ADDR").unwrap_or_else(|_| "127.0.0.1:3000".to_owned());
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("error: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("listening: curl -N 'http://{addr}/run?prompt=count'");
    let model = Arc::new(hookwire_examples::sse::scripted_model());
    match hookwire_examples::sse::serve(listener, model).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
