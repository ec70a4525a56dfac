/// Does nothing.
#[hookwire::tool]
async fn nothing(x: i64) {
    let _ = x;
}

#[hookwire::agent(name = "calc", function_tools = [nothing])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
