/// Deletes.
#[hookwire::tool(meta(risk = "high", kind = "a|b"))]
fn delete(path: String) -> String {
    path
}

fn main() {}
