struct Point {
    x: i64,
}

/// Plots a point.
#[hookwire::tool]
fn plot(point: Point) -> String {
    point.x.to_string()
}

fn main() {}
