/// Makes coffee.
#[hookwire::tool]
fn café(cups: u32) -> String {
    format!("{cups} cups")
}

fn main() {}
