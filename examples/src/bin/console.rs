//! The console: a shop agent's run and its approvals in the browser.
//!
//! ```text
//! cargo run -p hookwire-examples --bin console -- --port 8700
//! ```
//!
//! It prints `console: <url with token>` once listening (open it, enter
//! your name, approve or deny each payment), `PAID <to> <amount>` for each
//! payment that runs, and the run's trace; it exits when the run ended.

use std::process::ExitCode;
use std::time::Duration;

use hookwire_console::Console;
use hookwire_examples::console::runner;

/// The port of `--port <PORT>` (default 0: any free port).
fn port() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    let mut port = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = value.parse().map_err(|e| format!("--port {value}: {e}"))?;
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}` (usage: console [--port PORT])"
                ));
            }
        }
    }
    Ok(port)
}

#[tokio::main]
async fn main() -> ExitCode {
    let port = match port() {
        Ok(port) => port,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let console = match Console::new() {
        Ok(console) => console,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let listening = match console.listen(port).await {
        Ok(listening) => listening,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let run = console.watch("shop", runner(&console), "Pay the vendor and mallory.");
    println!("console: {}", listening.url());
    let done = run.finished().await;
    // The pages following the run have its end before the process goes.
    console.drained(Duration::from_secs(5)).await;
    match done {
        Ok(output) => {
            println!("{}", output.trace_text());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
