struct Point {
    x: i64,
}

fn risky(args: &hookwire::declare::ArgsOf<plot>) -> bool {
    args.point.x > 0
}

/// Plots a point.
#[hookwire::tool(needs_approval = risky)]
fn plot(point: Point) -> String {
    point.x.to_string()
}

#[hookwire::agent(name = "calc", function_tools = [plot])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
