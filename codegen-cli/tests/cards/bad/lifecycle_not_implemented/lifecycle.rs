//! Lifecycle hooks.

/// Records events (but implements nothing).
#[derive(Default)]
pub struct Recorder;
