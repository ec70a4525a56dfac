//! Lifecycle hooks.
use hookwire::agent::lifecycle::LifecycleHooks;

/// Records events.
#[derive(Debug)]
pub struct Recorder {
    prefix: String,
}

impl LifecycleHooks for Recorder {}
