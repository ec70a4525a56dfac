/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> Vec<i64> {
    vec![x + 1]
}

fn main() {}
