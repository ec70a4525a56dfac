//! What a hook says of itself (`Hook::PHASE`, `Hook::REWRITES`), as an
//! agent's policy reads it through every wrapper of a chain.

use hookwire_spec::HookKind;

use crate::hooks::{Audit, Retry, Timeout};
use crate::matcher::Matcher;
use crate::{
    Decision, Guarded, Hook, HookError, Outcome, Post, PostHook, Pre, PreHook, ToolArgs,
    ToolContext, When,
};

/// A pre hook that says it only reads the arguments.
struct Reads;

impl PreHook for Reads {
    const REWRITES: bool = false;

    async fn before(
        &self,
        _cx: &mut ToolContext,
        _args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        Ok(Decision::Continue)
    }
}

/// A pre hook that says nothing: it gets the arguments `&mut`, so it may.
struct Rewrites;

impl PreHook for Rewrites {
    async fn before(
        &self,
        _cx: &mut ToolContext,
        _args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        Ok(Decision::Continue)
    }
}

/// A post hook.
struct Observes;

impl PostHook for Observes {
    async fn after(&self, _cx: &mut ToolContext, _outcome: &mut Outcome) -> Result<(), HookError> {
        Ok(())
    }
}

fn facts<H: Hook>() -> (HookKind, bool) {
    (H::PHASE, H::REWRITES)
}

#[test]
fn every_wrapper_forwards_what_its_hook_says_of_itself() {
    assert_eq!(facts::<Pre<Reads>>(), (HookKind::Pre, false));
    assert_eq!(facts::<Pre<Rewrites>>(), (HookKind::Pre, true));
    assert_eq!(facts::<Post<Observes>>(), (HookKind::Post, false));
    // A failure policy, a matcher, a shared reference: the hook's own.
    assert_eq!(facts::<Guarded<Pre<Reads>>>(), (HookKind::Pre, false));
    assert_eq!(facts::<Guarded<Pre<Rewrites>>>(), (HookKind::Pre, true));
    assert_eq!(
        facts::<When<Matcher, Post<Observes>>>(),
        (HookKind::Post, false)
    );
    assert_eq!(
        facts::<&Guarded<When<Matcher, Pre<Reads>>>>(),
        (HookKind::Pre, false)
    );
    // The built-in hooks pass the arguments on as they received them.
    assert_eq!(facts::<Audit>(), (HookKind::Around, false));
    assert_eq!(facts::<Retry>(), (HookKind::Around, false));
    assert_eq!(facts::<Timeout>(), (HookKind::Around, false));
}
