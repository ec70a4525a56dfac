/// Resets the counter.
#[hookwire::tool]
fn reset() -> String {
    "reset".to_owned()
}

/// Takes a count, not the step.
fn hint(times: u32) -> String {
    format!("reset at most {times} times")
}

#[hookwire::agent(name = "counter", function_tools = [reset(instruction = hint)])]
struct Counter;

fn main() {}
