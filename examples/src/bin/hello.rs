//! The "hello agent": one tool, one hook, `#[agent]`, and a run on
//! the scripted model (offline). `cargo run -p hookwire-examples --bin hello`;
//! with `-- --otel`, the run's OpenTelemetry spans are printed after it.

use hookwire::agent::{RunError, Runner};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::otel;
use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Adds one to `x`.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// Tags every result the model reads.
#[hookwire::hook]
async fn tag(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [checked]");
    }
    outcome
}

/// Adds one.
#[hookwire::agent(
    name = "hello",
    instruction = "Add one.",
    function_tools = [add_one],
    tool_hooks = [tag],
)]
pub struct Hello;

#[tokio::main]
async fn main() -> Result<(), RunError> {
    // `--otel`: export the run's spans (`invoke_agent hello`, `chat`,
    // `execute_tool add_one`) to stdout.
    let provider = std::env::args().any(|a| a == "--otel").then(|| {
        use tracing_subscriber::layer::SubscriberExt;
        let provider = otel::opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_simple_exporter(opentelemetry_stdout::SpanExporter::default())
            .build();
        let subscriber = tracing_subscriber::registry().with(otel::layer(&provider));
        // Fails only if a subscriber is set already: then that one has the spans.
        let _ = tracing::subscriber::set_global_default(subscriber);
        provider
    });
    // The scripted model plays these turns in order: offline, deterministic.
    let model = ScriptedModel::from_turns([
        Turn::call("add_one", hookwire::serde_json::json!({ "x": 41 })),
        Turn::text("The answer is 42."),
    ]);
    let mut session = Runner::new(Hello::new(), model);
    let out = session.run("What is 41 + 1?").await?;
    print!("{}", out.trace_text());
    if let Some(provider) = provider {
        let _ = provider.shutdown();
    }
    Ok(())
}
