/// Does nothing.
#[hookwire::tool]
async fn nothing(x: i64) {
    let _ = x;
}

fn main() {}
