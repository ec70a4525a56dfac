//! The dependencies of the Dial-Desk card: what its tools record and what
//! they report. The test that builds the agent keeps a clone.

use std::sync::{Arc, Mutex};

/// Shared by the Dial-Desk card's tools.
#[derive(Clone, Debug, Default)]
pub struct DialDeps {
    /// Each call a tool received, as `tool <arguments>`, in order.
    pub calls: Arc<Mutex<Vec<String>>>,
    /// What `weather` reports.
    pub forecast: Arc<Mutex<String>>,
}
