use hookwire::Outcome;

#[hookwire::hook]
async fn audit() -> Outcome {
    todo!()
}

fn main() {}
