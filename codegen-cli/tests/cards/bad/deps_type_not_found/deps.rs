/// What the agent is built from.
#[derive(Clone)]
pub struct AppDeps;
