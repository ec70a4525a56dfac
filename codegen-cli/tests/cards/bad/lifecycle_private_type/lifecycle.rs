//! Lifecycle hooks.
use hookwire::agent::lifecycle::LifecycleHooks;

/// Records events.
#[derive(Default)]
struct Recorder;

impl LifecycleHooks for Recorder {}
