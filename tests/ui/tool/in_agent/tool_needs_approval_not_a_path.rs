/// Deletes a file.
#[hookwire::tool(needs_approval = "always")]
fn delete(path: String) -> String {
    path
}

#[hookwire::agent(name = "calc", function_tools = [delete])]
struct Calc;

fn main() {
    let _ = Calc::new();
}
