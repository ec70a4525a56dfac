//! Not hookwire's trait.

/// A trait of its own.
pub trait LifecycleHooks {}

/// Audits.
#[derive(Default)]
pub struct Audit;

impl LifecycleHooks for Audit {}
