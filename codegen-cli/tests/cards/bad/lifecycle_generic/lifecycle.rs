//! Lifecycle hooks.
use hookwire::agent::lifecycle::LifecycleHooks;

/// Records events.
#[derive(Default)]
pub struct Recorder<T>(T);

impl<T: Send + Sync> LifecycleHooks for Recorder<T> {}
