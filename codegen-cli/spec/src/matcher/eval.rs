//! Whether a matcher selects a target, what is left of it when the
//! target's metadata is unknown, and its parts.

use super::{MatchTarget, Matcher};
use crate::meta::MetaFormula;

impl Matcher {
    /// Whether this matcher selects `target`.
    ///
    /// The emitter calls this while generating code for statically known
    /// tools; the runtime calls it for tools discovered at run time.
    pub fn matches(&self, target: MatchTarget<'_>) -> bool {
        match self {
            Self::Always => true,
            Self::Exact(name) => target.is_call() && name == target.tool,
            Self::Glob(glob) => target.is_call() && glob.matcher.is_match(target.tool),
            Self::Regex(re) => target.is_call() && re.is_match(target.tool),
            Self::Source(source) => target.is_call() && *source == target.source,
            Self::Step(step) => *step == target.step,
            Self::Meta { key, value } => {
                target.is_call()
                    && target
                        .meta
                        .get(key)
                        .is_some_and(|v| value.as_deref().is_none_or(|want| want == v))
            }
            Self::All(ms) => ms.iter().all(|m| m.matches(target)),
            Self::Any(ms) => ms.iter().any(|m| m.matches(target)),
            Self::Not(m) => !m.matches(target),
        }
    }

    /// What is left of this matcher for `target` when its metadata is not
    /// known (a tool listed in `#[agent]`): a formula over the metadata,
    /// constant when no `meta:` part decides.
    pub fn meta_formula(&self, target: MatchTarget<'_>) -> MetaFormula {
        match self {
            Self::Meta { key, value } if target.is_call() => match value {
                Some(value) => MetaFormula::Is(key.clone(), value.clone()),
                None => MetaFormula::Has(key.clone()),
            },
            Self::All(ms) | Self::Any(ms) => MetaFormula::join(
                ms.iter().map(|m| m.meta_formula(target)).collect(),
                matches!(self, Self::Any(_)),
            ),
            Self::Not(m) => MetaFormula::not(m.meta_formula(target)),
            leaf => MetaFormula::Const(leaf.matches(target)),
        }
    }

    /// Whether a part of this matcher selects by metadata (`meta:..`).
    pub fn selects_meta(&self) -> bool {
        self.parts().iter().any(|m| matches!(m, Self::Meta { .. }))
    }

    /// Whether this matcher is `*` (matches every tool without looking).
    pub fn is_always(&self) -> bool {
        matches!(self, Self::Always)
    }

    /// Whether a part of this matcher selects by step kind (`step:..`):
    /// then it also decides a lifecycle hook's `stop` and `step_end`.
    pub fn selects_steps(&self) -> bool {
        self.parts().iter().any(|m| matches!(m, Self::Step(_)))
    }

    /// How many composites (`!`, `all`, `any`) are nested in this matcher
    /// at the deepest point (a plain pattern is 0). Iterative: any matcher
    /// built by hand can be measured.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 0)];
        while let Some((m, d)) = stack.pop() {
            deepest = deepest.max(d);
            match m {
                Self::All(ms) | Self::Any(ms) => stack.extend(ms.iter().map(|m| (m, d + 1))),
                Self::Not(m) => stack.push((m, d + 1)),
                _ => {}
            }
        }
        deepest
    }

    /// This matcher and every part of it, outermost first: each
    /// alternative of `a|b`, `any` and `all`, and the inner pattern of `!p`.
    pub fn parts(&self) -> Vec<&Matcher> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(m) = stack.pop() {
            out.push(m);
            match m {
                Self::All(ms) | Self::Any(ms) => stack.extend(ms.iter().rev()),
                Self::Not(m) => stack.push(m),
                _ => {}
            }
        }
        out
    }
}
