use hookwire::agent::lifecycle::LifecycleHooks;

/// Echoes.
#[hookwire::tool]
fn echo(text: String) -> String {
    text
}

/// Checks.
#[derive(Default)]
struct Check;

impl LifecycleHooks for Check {}

#[hookwire::agent(
    name = "ops",
    function_tools = [echo],
    hooks = [Check(on_failure = "sometimes", timeout_ms = 50)],
)]
struct Ops;

fn main() {
    let _ = Ops::new();
}
