#[hookwire::agent(name = "calc")]
#[derive(Debug, Clone)]
struct Calc;

fn main() {
    let _ = Calc::new();
}
