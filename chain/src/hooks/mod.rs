//! Built-in hooks (timeout, retry with exponential backoff, audit) and the
//! combinators a chain is built from besides [`Hooked`](crate::Hooked):
//! [`Boxed`], [`CatchPanics`] and [`catch_panics`].

pub mod audit;
mod retry;
mod timeout;

/// The combinators every chain is made of, beside the built-in hooks.
pub use crate::hook::{Boxed, CatchPanics, catch_panics};
pub use audit::Audit;
pub use retry::{Attempts, Retry, RetryPolicy};
pub use timeout::Timeout;
