/// Deletes a file.
#[hookwire::tool(need_approval)]
fn delete(path: String) -> String {
    path
}

fn main() {}
