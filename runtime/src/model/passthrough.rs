//! The passthrough model: echoes the last user message.

use super::{Model, ModelError, ModelRequest, ModelResponse};
use crate::BoxFuture;

/// A model that answers with the last user message, unchanged, and never
/// calls a tool (fast-agent's `passthrough`). Useful to test wiring.
#[derive(Debug, Clone, Copy, Default)]
pub struct PassthroughModel;

impl PassthroughModel {
    /// The passthrough model.
    pub fn new() -> Self {
        Self
    }
}

impl Model for PassthroughModel {
    fn name(&self) -> &str {
        "passthrough"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let text = request.last_user_text().unwrap_or_default().to_owned();
        Box::pin(std::future::ready(Ok(ModelResponse::text(text))))
    }
}
