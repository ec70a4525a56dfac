//! Lifecycle hooks made of others: a reference, no hooks (`()`) and
//! tuples (several hooks, in declared order), each written from the
//! events' table (`for_each_lifecycle_event!`).

use std::future::Future;

use super::{
    Decision, Flow, LifecycleHooks, StopDecision, call_hook, event_cx, for_each_lifecycle_event,
};

/// A reference forwards every event to the hooks it points at.
macro_rules! ref_events {
    ($(
        $(#[$doc:meta])*
        $m:ident($($cx:tt)+) -> $out:tt, tools: $tools:ident, fails: $fails:ident $(($f:ident))?;
    )*) => {
        impl<T: LifecycleHooks + ?Sized> LifecycleHooks for &T {
            const NONE: bool = T::NONE;

            $(
                fn $m(&self, cx: event_cx!($($cx)+)) -> impl Future<Output = $out> + Send {
                    (**self).$m(cx)
                }
            )*

            fn name(&self) -> &'static str {
                (**self).name()
            }
        }
    };
}
for_each_lifecycle_event!(ref_events);

/// No lifecycle hooks.
impl LifecycleHooks for () {
    const NONE: bool = true;

    fn name(&self) -> &'static str {
        "none"
    }
}

/// A tuple of hooks, for each size up to twelve: every event asks each
/// hook in declared order, and combines their answers by the answer's type
/// (the table's rules).
macro_rules! tuple_events {
    (@impl $rows:tt $($h:ident),+) => {
        #[allow(non_snake_case)]
        impl<$($h: LifecycleHooks),+> LifecycleHooks for ($($h,)+) {
            const NONE: bool = $($h::NONE &&)+ true;

            tuple_events!(@events ($($h),+) $rows);

            fn name(&self) -> &'static str {
                "hooks"
            }
        }
    };
    (@events $hooks:tt { $(
        $(#[$doc:meta])*
        $m:ident($($cx:tt)+) -> $out:tt, tools: $tools:ident, fails: $fails:ident $(($f:ident))?;
    )* }) => {
        $( tuple_events!(@event $hooks $m($($cx)+) -> $out); )*
    };
    // `Flow`: the first stop ends the event.
    (@event ($($h:ident),+) $m:ident($($cx:tt)+) -> Flow) => {
        async fn $m(&self, cx: event_cx!($($cx)+)) -> Flow {
            let ($($h,)+) = self;
            $( if let Flow::Stop(r) = $h.$m(cx).await { return Flow::Stop(r); } )+
            Flow::Continue
        }
    };
    // `()`: every hook runs.
    (@event ($($h:ident),+) $m:ident($($cx:tt)+) -> ()) => {
        async fn $m(&self, cx: event_cx!($($cx)+)) {
            let ($($h,)+) = self;
            $( $h.$m(cx).await; )+
        }
    };
    // `StopDecision`: the first hook that keeps the run going ends the event.
    (@event ($($h:ident),+) $m:ident($($cx:tt)+) -> StopDecision) => {
        async fn $m(&self, cx: event_cx!($($cx)+)) -> StopDecision {
            let ($($h,)+) = self;
            $(
                if let StopDecision::Continue(m) = $h.$m(cx).await {
                    return StopDecision::Continue(m);
                }
            )+
            StopDecision::Allow
        }
    };
    // `Decision`: the first stop or deny ends the event; the first ask is
    // kept (with its decider) while later hooks still run.
    (@event ($($h:ident),+) $m:ident($($cx:tt)+) -> Decision) => {
        async fn $m(&self, cx: event_cx!($($cx)+)) -> Decision {
            let ($($h,)+) = self;
            let mut ask: Option<(String, Option<&'static str>)> = None;
            $(
                match call_hook!($h, $m(cx) -> Decision).await {
                    Decision::Continue => {}
                    Decision::Ask(reason) => {
                        if ask.is_none() { ask = Some((reason, cx.decided_by)); }
                        cx.decided_by = None;
                    }
                    other => return other,
                }
            )+
            match ask {
                Some((reason, by)) => { cx.decided_by = by; Decision::Ask(reason) }
                None => Decision::Continue,
            }
        }
    };
    // The table's rows (the entry: the arms above are its steps).
    ($($rows:tt)*) => {
        tuple_events!(@impl { $($rows)* } A);
        tuple_events!(@impl { $($rows)* } A, B);
        tuple_events!(@impl { $($rows)* } A, B, C);
        tuple_events!(@impl { $($rows)* } A, B, C, D);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E, F);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E, F, G);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E, F, G, H);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E, F, G, H, I);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E, F, G, H, I, J);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E, F, G, H, I, J, K);
        tuple_events!(@impl { $($rows)* } A, B, C, D, E, F, G, H, I, J, K, L);
    };
}
for_each_lifecycle_event!(tuple_events);
