//! [`Seeing`]: a scripted model that notes what each request offered (the
//! system prompt and the tool names). Shared with `tests/` by `#[path]`.
#![allow(dead_code, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use hookwire::BoxFuture;
use hookwire::model::{Model, ModelError, ModelRequest, ModelResponse, ScriptedModel, Turn};

/// What each request offered: the system prompt and the tool names.
pub type Offered = Arc<Mutex<Vec<(String, Vec<String>)>>>;

/// A scripted model that notes what each request offered.
pub struct Seeing(pub ScriptedModel, pub Offered);

impl Model for Seeing {
    fn name(&self) -> &str {
        "seeing"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        self.1.lock().unwrap().push((
            request.system.to_owned(),
            request.tools.iter().map(|t| t.name.clone()).collect(),
        ));
        self.0.complete(request)
    }
}

/// A model playing `turns` that notes what each request offered, and
/// where it notes it.
pub fn seeing(turns: impl IntoIterator<Item = Turn>) -> (Arc<Seeing>, Offered) {
    let offered = Offered::default();
    (
        Arc::new(Seeing(ScriptedModel::from_turns(turns), offered.clone())),
        offered,
    )
}
