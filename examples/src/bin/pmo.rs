//! The PMO orchestrator example (filled in as the agent loop lands).
fn main() {
    println!("hookwire PMO example: coming with the agent loop");
}
