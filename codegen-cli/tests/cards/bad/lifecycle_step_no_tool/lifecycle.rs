//! Lifecycle hooks.
use hookwire::agent::lifecycle::LifecycleHooks;

/// Records events.
#[derive(Default)]
pub struct Recorder;

impl LifecycleHooks for Recorder {}
