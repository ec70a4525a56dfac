/// Deletes.
#[hookwire::tool(meta(risk = 3))]
fn delete(path: String) -> String {
    path
}

fn main() {}
