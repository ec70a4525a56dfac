#[hookwire::hook]
struct Audit;

fn main() {}
