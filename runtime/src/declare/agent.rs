//! What generated agents are: the trait a parent's child slot checks.

/// An agent declared with `#[hookwire::agent]` or an AgentCard, with the
/// name it was declared with: a parent that lists it in `agents = [..]` is
/// checked against it at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire agent",
    label = "not an agent",
    note = "agents are structs marked `#[hookwire::agent(...)]`, or generated from AgentCards by `cardgen`"
)]
pub trait GeneratedAgent: crate::agent::Agent {
    /// The declared name (`name = "..."`, or the struct's name).
    const NAME: &'static str;

    /// The agent's policy: every tool with the hooks its calls run
    /// through, in order, and its approval rule, built when the agent was
    /// generated (the agent's `policy()` returns it).
    const POLICY: crate::Policy;
}
