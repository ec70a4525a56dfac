//! Built-in hooks: timeout, retry with exponential backoff, and audit.

pub mod audit;
mod retry;
mod timeout;

pub use audit::Audit;
pub use retry::{Attempts, Retry};
pub use timeout::Timeout;
