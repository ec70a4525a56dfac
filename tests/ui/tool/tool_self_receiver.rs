struct S;

impl S {
    /// Greets.
    #[hookwire::tool]
    fn greet(&self, name: String) -> String {
        name
    }
}

fn main() {}
