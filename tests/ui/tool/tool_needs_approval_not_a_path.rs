/// Deletes a file.
#[hookwire::tool(needs_approval = "always")]
fn delete(path: String) -> String {
    path
}

fn main() {}
