/// Does nothing.
#[hookwire::tool]
async fn nothing(x: i64) {
    let _ = x;
}

#[hookwire::agent(name = "calc", function_tools = [nothing])]
struct Calc;

fn main() {
    let _ = Calc::new();
}
