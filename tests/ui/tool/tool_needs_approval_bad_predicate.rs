/// Deletes a file.
#[hookwire::tool(needs_approval = outside_tmp)]
fn delete(path: String) -> String {
    path
}

/// Takes the path, not the tool's arguments.
fn outside_tmp(path: &String) -> bool {
    !path.starts_with("/tmp/")
}

fn main() {}
