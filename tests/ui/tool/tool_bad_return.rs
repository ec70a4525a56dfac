/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> i64 {
    x + 1
}

fn main() {}
