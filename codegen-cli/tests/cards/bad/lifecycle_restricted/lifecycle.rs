//! Lifecycle hooks.

/// Records.
#[derive(Default)]
pub(super) struct Recorder;

impl hookwire::agent::lifecycle::LifecycleHooks for Recorder {}
