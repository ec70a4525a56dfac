/// Greets someone.
#[hookwire::tool(name = "greet someone")]
fn greet(name: String) -> String {
    name
}

#[hookwire::agent(name = "calc", function_tools = [greet])]
struct Calc;

fn main() {
    let _ = Calc::new();
}
