//! `genai` logs a failed request's response body as it came (at `error`
//! level, target `genai::…`): a body that echoes the request's headers
//! would put the API key in the application's logs. While `genai` works
//! for us, its own log events are not passed on; everything else (our
//! events, spans, the other crates') goes to the application's subscriber
//! as before. What `genai` would have said is in our error, redacted
//! (`ModelError::scrubbed`).

use std::future::Future;

use tracing::instrument::WithSubscriber;
use tracing::level_filters::LevelFilter;
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber, span};

/// Whether `metadata` is an event of `genai`'s.
fn from_genai(metadata: &Metadata<'_>) -> bool {
    metadata.is_event()
        && (metadata.target() == "genai" || metadata.target().starts_with("genai::"))
}

/// The application's subscriber without `genai`'s events.
struct WithoutGenai {
    inner: Dispatch,
    max_level: LevelFilter,
}

impl Subscriber for WithoutGenai {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        let interest = self.inner.register_callsite(metadata);
        if from_genai(metadata) && !interest.is_never() {
            // Asked per event: outside our calls the application decides.
            Interest::sometimes()
        } else {
            interest
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        !from_genai(metadata) && self.inner.enabled(metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.max_level)
    }

    fn new_span(&self, span: &span::Attributes<'_>) -> span::Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &span::Id, values: &span::Record<'_>) {
        self.inner.record(span, values);
    }

    fn record_follows_from(&self, span: &span::Id, follows: &span::Id) {
        self.inner.record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        if !from_genai(event.metadata()) {
            self.inner.event(event);
        }
    }

    fn enter(&self, span: &span::Id) {
        self.inner.enter(span);
    }

    fn exit(&self, span: &span::Id) {
        self.inner.exit(span);
    }

    fn clone_span(&self, id: &span::Id) -> span::Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: span::Id) -> bool {
        self.inner.try_close(id)
    }
}

/// `future` (a call into `genai`) with `genai`'s log events left out.
/// Nothing is wrapped when nobody listens.
pub(super) async fn quiet<F: Future>(future: F) -> F::Output {
    let inner = tracing::dispatcher::get_default(Clone::clone);
    if inner.is::<tracing::subscriber::NoSubscriber>() {
        return future.await;
    }
    let dispatch = Dispatch::new(WithoutGenai {
        inner,
        max_level: LevelFilter::current(),
    });
    future.with_subscriber(dispatch).await
}
