//! The PMO orchestrator from fast-agent's tool-hooks note, in Rust.
//!
//! ```text
//! cargo run -p hookwire-examples --bin pmo                 # both forms, scripted model
//! cargo run -p hookwire-examples --bin pmo -- --form cards # one form
//! cargo run -p hookwire-examples --bin pmo -- --model openai   # OPENAI_BASE_URL / OPENAI_API_KEY / HOOKWIRE_MODEL
//! cargo run -p hookwire-examples --bin pmo -- --model anthropic:claude-sonnet-4-5   # ANTHROPIC_API_KEY (/ ANTHROPIC_BASE_URL)
//! cargo run -p hookwire-examples --bin pmo -- --typed      # the answer as a typed `PmoSummary`
//! ```
//!
//! It declares the orchestrator twice (`#[agent]` and AgentCards), runs
//! each on the same model, prints each trace live from the run's event
//! stream (every hook decision, tool call and result, with timings) and
//! checks that the two traces are the same.

use std::process::ExitCode;

use hookwire::agent::{RunEvent, TraceLines};
use hookwire_examples::pmo::{self, Form};

fn main() -> ExitCode {
    let mut forms = vec![Form::Macro, Form::Cards];
    // `scripted`, `openai` (from HOOKWIRE_MODEL), or any model string
    // (`anthropic:claude-sonnet-4-5`, `ollama:qwen3`, ...).
    let mut model_spec = "scripted".to_owned();
    let mut typed = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--typed" {
            typed = true;
            continue;
        }
        match (arg.as_str(), args.next().as_deref()) {
            ("--form", Some("macro")) => forms = vec![Form::Macro],
            ("--form", Some("cards")) => forms = vec![Form::Cards],
            ("--form", Some("both")) => forms = vec![Form::Macro, Form::Cards],
            ("--model", Some(spec)) => model_spec = spec.to_owned(),
            _ => {
                eprintln!(
                    "usage: pmo [--form macro|cards|both] [--model scripted|openai|<provider>:<model>] [--typed]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let mcp = match pmo::mcp_config() {
            Ok(config) => config,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let mut traces = Vec::new();
        for form in forms {
            let model = match model_spec.as_str() {
                "scripted" => pmo::scripted_model(),
                "openai" => pmo::openai_model(),
                spec => hookwire::model::from_spec(spec, None),
            };
            let model = match model {
                Ok(model) => model,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            println!("== PMO-orchestrator, declared with {} ==", form.name());
            // The trace prints live, as the run records it.
            let mut lines = None;
            let print = |event: &RunEvent, shown: Option<usize>| {
                if let (true, Some(trace)) = (event.is_root(), event.trace()) {
                    let lines = lines.get_or_insert_with(|| TraceLines::new(shown));
                    print!("{}", lines.line(trace));
                }
            };
            let done = if typed {
                pmo::run_live_typed(form, model, &mcp, print)
                    .await
                    .map(|typed| {
                        let json = serde_json::to_string_pretty(&typed.value).unwrap_or_default();
                        println!("\n== the typed answer (PmoSummary) ==\n{json}");
                        typed.output
                    })
            } else {
                pmo::run_live(form, model, &mcp, print).await
            };
            match done {
                Ok(output) => {
                    println!();
                    traces.push(pmo::normalized_trace(&output));
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        // A real model need not answer the same way twice; the scripted one must.
        if let (true, [first, second]) = (model_spec == "scripted", traces.as_slice()) {
            if first == second {
                println!("== the two declarations produced the same trace ==");
            } else {
                println!("== the traces differ ==");
                return ExitCode::FAILURE;
            }
        }
        ExitCode::SUCCESS
    })
}
