/// Adds a pair.
#[hookwire::tool]
fn add((a, b): (i64, i64)) -> String {
    (a + b).to_string()
}

#[hookwire::agent(name = "calc", function_tools = [add])]
struct Calc;

fn main() {
    let _ = Calc::new();
}
