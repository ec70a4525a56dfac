/// Searches.
#[hookwire::tool]
fn search(query: String, #[default] num_results: u32) -> String {
    format!("{query} {num_results}")
}

fn main() {}
