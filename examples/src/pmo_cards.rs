//! The PMO orchestrator declared as AgentCards (`pmo/cards/*.md`), compiled
//! by `cardgen`'s `Builder` in `build.rs`.

hookwire::include_agents!();
