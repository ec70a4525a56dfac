/// Echoes, offered to the model as `say`.
#[hookwire::tool(name = "say")]
fn echo(text: String) -> String {
    text
}

#[hookwire::agent(name = "ops", function_tools = [echo])]
struct Ops;

fn main() {
    let _ = Ops::new();
}
