//! The trait's own tests: which hooks are none, and that the events' table
//! and the card spellings (`HookEvent`) name the same events.

use super::*;
use hookwire_spec::HookEvent;

struct Counts;
impl LifecycleHooks for Counts {}

/// The loop skips the calls of hooks that are none at all, and only
/// of those: one real hook anywhere in a tuple (or behind a
/// reference) keeps every call.
#[test]
fn only_no_hooks_at_all_are_none() {
    fn none<L: LifecycleHooks>() -> bool {
        L::NONE
    }
    assert_eq!(
        [
            none::<()>(),
            none::<((), &())>(),
            none::<&((),)>(),
            none::<Counts>(),
            none::<((), Counts)>(),
            none::<(Counts, &())>(),
            none::<&Counts>(),
        ],
        [true, true, true, false, false, false, false]
    );
}

/// Every event of the table has its card spelling in `HookEvent`, and
/// every spelling but those of `kind: tool_call` entries is an event.
#[test]
fn the_events_are_the_spelled_lifecycle_events() {
    let mut events = EVENTS.to_vec();
    let mut spelled: Vec<&str> = HookEvent::ALL
        .into_iter()
        .filter(|(_, e)| !HookEvent::TOOL_CALL_EVENTS.contains(e))
        .map(|(name, _)| name)
        .collect();
    events.sort_unstable();
    spelled.sort_unstable();
    assert_eq!(events, spelled);
}
