/// Echoes.
#[hookwire::tool]
fn echo(text: String) -> String {
    text
}

#[hookwire::agent(name = "billing", durable_name = "billing/eu", function_tools = [echo])]
struct Billing;

fn main() {
    let _ = Billing::new();
}
