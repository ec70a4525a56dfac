//! [`ToolView`]: what the loop and its gates know of one tool's type
//! besides its definition (its approval metadata, the argument type an
//! edited approval must fit, its availability and its instruction), and
//! [`StepView`], what a step shows the tool's availability and
//! instruction.

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;

use serde_json::Value;

use crate::call::ToolArgs;
use crate::error::{ToolError, panic_message};
use crate::message::Message;
use crate::scope::SessionValues;
use crate::tool::Tool;

/// What a step of a run shows a tool's
/// [availability](crate::Tool::available) and
/// [instruction](crate::Tool::instruction): the agent, the step, the
/// history so far and the session's values. Everything in it but the
/// session values is part of an exported state, so a resumed run (given
/// the same session values) sees the same tools and instructions.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct StepView<'a> {
    /// The agent whose step it is.
    pub agent: &'a str,
    /// The step (0 for the run's first model request).
    pub step: usize,
    /// The conversation so far, oldest first.
    pub history: &'a [Message],
    /// The session's typed values
    /// (`hookwire::agent::Runner::with_session_value`).
    pub session: &'a SessionValues,
}

impl<'a> StepView<'a> {
    /// The view of step `step` of `agent`.
    #[inline]
    pub fn new(
        agent: &'a str,
        step: usize,
        history: &'a [Message],
        session: &'a SessionValues,
    ) -> Self {
        Self {
            agent,
            step,
            history,
            session,
        }
    }

    /// The session's value of type `T`, if it has one.
    pub fn session<T: Send + Sync + 'static>(&self) -> Option<&'a T> {
        self.session.get()
    }
}

/// What the loop and its gates know of one tool's type: the metadata its
/// approver is shown ([`ApprovalRequest::metadata`](crate::approve::ApprovalRequest::metadata)),
/// the argument type that edited arguments
/// ([`ApprovalDecision::ApproveWith`](crate::decision::ApprovalDecision::ApproveWith))
/// must deserialize into before the call runs, whether the tool is offered
/// in a step ([`Tool::available`]) and what it adds to the system prompt
/// ([`Tool::instruction`]).
///
/// The loop finds it through [`ToolSet::tool_view`](crate::ToolSet::tool_view),
/// a chain's gate through the rest of its chain
/// ([`Handler::tool_view`](crate::Handler::tool_view), which
/// [`ToolHandler`](crate::ToolHandler) answers). Four function pointers:
/// copying it costs nothing, and nothing runs until someone asks.
///
/// ```
/// use hookwire::{FnTool, Json, ToolArgs, view::ToolView};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct A { x: i64 }
/// let view = ToolView::of::<FnTool<A, fn(A) -> std::future::Ready<Json<i64>>>>();
/// assert!(view.check(&ToolArgs::from_json(r#"{"x": 1}"#), "t").is_ok());
/// let refused = view.check(&ToolArgs::from_json(r#"{"x": "one"}"#), "t").unwrap_err();
/// assert!(refused.to_string().contains("`x`"), "{refused}");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ToolView {
    metadata: fn(&ToolArgs) -> Option<Value>,
    check: fn(&ToolArgs, &str) -> Result<(), ToolError>,
    available: fn(&StepView<'_>) -> bool,
    instruction: fn(&StepView<'_>) -> Option<Cow<'static, str>>,
    /// Whether `available` or `instruction` may say anything
    /// ([`Tool::STEP_RULES`]).
    rules: bool,
    /// The agent's own rules for the tool (a card's or `#[agent]`'s
    /// `available` / `instruction` on the tool's entry), besides the tool's.
    entry: StepRules,
}

/// Whether a tool, or a whole set of tools, is offered in a step, and what
/// it adds to the system prompt then: what an agent declares for a tool it
/// lists (`function_tools` entries with `available` / `instruction`) or for
/// an MCP server (`servers` entries), on top of what the tools say
/// themselves. Two optional function pointers: copying it costs nothing.
///
/// ```
/// use hookwire::view::{StepRules, StepView};
/// fn after_the_first(step: &StepView<'_>) -> bool { step.step > 0 }
/// let rules = StepRules::new()
///     .with_available(after_the_first)
///     .with_instruction(|_: &StepView<'_>| Some("Use the GitHub tools for issues only.".into()));
/// assert!(!rules.is_empty());
/// ```
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct StepRules {
    /// Whether the tools are offered in a step (`None`: always).
    pub available: Option<fn(&StepView<'_>) -> bool>,
    /// What they add to the system prompt of a step that offers them.
    pub instruction: Option<InstructionFn>,
}

/// What a [`StepRules`] adds to the system prompt of a step.
pub type InstructionFn = fn(&StepView<'_>) -> Option<Cow<'static, str>>;

impl PartialEq for StepRules {
    /// Two rules are equal when they are the same functions.
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.available.map(|f| f as usize) == other.available.map(|f| f as usize)
            && self.instruction.map(|f| f as usize) == other.instruction.map(|f| f as usize)
    }
}

impl StepRules {
    /// No rule: always offered, no instruction.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Offers the tools only in the steps `available` says yes to.
    #[inline]
    pub fn with_available(mut self, available: fn(&StepView<'_>) -> bool) -> Self {
        self.available = Some(available);
        self
    }

    /// Adds what `instruction` says (`None` or an empty text: nothing) to
    /// the system prompt of every step that offers the tools.
    #[inline]
    pub fn with_instruction(mut self, instruction: InstructionFn) -> Self {
        self.instruction = Some(instruction);
        self
    }

    /// Whether it has neither rule.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.available.is_none() && self.instruction.is_none()
    }

    /// Whether the tools are offered in the step `view` shows.
    #[inline]
    pub fn available(&self, view: &StepView<'_>) -> bool {
        self.available.is_none_or(|f| f(view))
    }

    /// What the tools add to the system prompt in the step `view` shows.
    #[inline]
    pub fn instruction(&self, view: &StepView<'_>) -> Option<Cow<'static, str>> {
        self.instruction
            .and_then(|f| f(view))
            .filter(|text| !text.is_empty())
    }
}

impl ToolView {
    /// The view of the tool `T`: its [`Tool::approval_metadata`], its
    /// [`Tool::Args`] as the type edited arguments must fit, its
    /// [`Tool::available`] and its [`Tool::instruction`].
    pub fn of<T: Tool>() -> Self {
        Self {
            metadata: metadata_of::<T>,
            check: check_of::<T>,
            available: T::available,
            instruction: T::instruction,
            rules: T::STEP_RULES,
            entry: StepRules::new(),
        }
    }

    /// The view of a tool whose arguments are any JSON object (an MCP
    /// tool's): no metadata, always available, no instruction; edited
    /// arguments must be an object.
    #[inline]
    pub fn object() -> Self {
        Self {
            metadata: |_| None,
            check: |_, _| Ok(()),
            available: |_| true,
            instruction: |_| None,
            rules: false,
            entry: StepRules::new(),
        }
    }

    /// This view with the agent's own rules for the tool besides the
    /// tool's: offered only when both say yes, and the agent's instruction
    /// after the tool's.
    #[inline]
    pub fn with_rules(mut self, rules: StepRules) -> Self {
        if rules.available.is_some() {
            self.entry.available = rules.available;
        }
        if rules.instruction.is_some() {
            self.entry.instruction = rules.instruction;
        }
        self
    }

    /// What the approver is shown about a call with `args` besides the
    /// arguments: `None` when the tool declares nothing, when the
    /// arguments do not fit its type, or when its function panicked.
    #[inline]
    pub fn metadata(&self, args: &ToolArgs) -> Option<Value> {
        (self.metadata)(args)
    }

    /// Whether `args` fit the tool's argument type: the error names the
    /// field that does not ([`ToolError::InvalidArguments`]).
    #[inline]
    pub fn check(&self, args: &ToolArgs, tool: &str) -> Result<(), ToolError> {
        (self.check)(args, tool)
    }

    /// Whether the tool, or the agent for it, has an availability rule or
    /// an instruction: when not, it is offered in every step and adds
    /// nothing to the system prompt, and the loop does not ask it.
    #[inline]
    pub fn has_step_rules(&self) -> bool {
        self.rules || !self.entry.is_empty()
    }

    /// Whether the tool is offered in the step `view` shows.
    #[inline]
    pub fn available(&self, view: &StepView<'_>) -> bool {
        (self.available)(view) && self.entry.available(view)
    }

    /// What the tool adds to the system prompt in the step `view` shows:
    /// its own instruction, then the agent's for it.
    #[inline]
    pub fn instruction(&self, view: &StepView<'_>) -> Option<Cow<'static, str>> {
        let own = (self.instruction)(view);
        match (own, self.entry.instruction(view)) {
            (Some(own), Some(entry)) => Some(Cow::Owned(format!("{own}\n\n{entry}"))),
            (own, entry) => own.or(entry),
        }
    }
}

/// [`Tool::approval_metadata`] of `T` on `args`, parsed into its type; a
/// panic in the user's function (or in the arguments' `Deserialize`) shows
/// no metadata and is logged.
fn metadata_of<T: Tool>(args: &ToolArgs) -> Option<Value> {
    let shown = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let typed = args.parse::<T::Args>("").ok()?;
        T::approval_metadata(&typed)
    }));
    shown.unwrap_or_else(|payload| {
        tracing::warn!(
            target: "hookwire::audit",
            panic = %panic_message(&*payload),
            "approval metadata panicked; the approver is shown none"
        );
        None
    })
}

/// Whether `args` deserialize into `T`'s arguments; a panic in their
/// `Deserialize` refuses them.
fn check_of<T: Tool>(args: &ToolArgs, tool: &str) -> Result<(), ToolError> {
    std::panic::catch_unwind(AssertUnwindSafe(|| args.parse::<T::Args>(tool).map(drop)))
        .unwrap_or_else(|payload| {
            Err(ToolError::invalid_arguments(
                tool,
                None,
                format!("their `Deserialize` panicked: {}", panic_message(&*payload)),
            ))
        })
}

/// What the tools of a set say about one step
/// ([`ToolSet::step_offer`](crate::ToolSet::step_offer)): which are not
/// offered, and what they add to the system prompt. Empty (and
/// allocation-free) when no tool has an availability rule or an
/// instruction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StepOffer {
    /// The tools not offered in the step, in declared order.
    pub unavailable: Vec<String>,
    /// The instructions added to the system prompt, in declared order.
    pub instructions: Vec<Cow<'static, str>>,
}

impl StepOffer {
    /// What the tools of `definitions` (through `view_of`, a tool set's
    /// [`tool_view`](crate::ToolSet::tool_view)) say about the step
    /// `step`. A panic in a tool's rule hides the tool (fail closed) and
    /// drops its instruction.
    pub fn of(
        definitions: &[crate::ToolDefinition],
        view_of: impl Fn(&str) -> Option<ToolView>,
        step: &StepView<'_>,
    ) -> Self {
        let mut offer = Self::default();
        for definition in definitions {
            let Some(view) = view_of(&definition.name) else {
                continue;
            };
            if !view.has_step_rules() {
                continue;
            }
            let asked = std::panic::catch_unwind(AssertUnwindSafe(|| {
                (view.available(step), view.instruction(step))
            }));
            match asked {
                Ok((true, instruction)) => offer.instructions.extend(instruction),
                Ok((false, _)) => offer.unavailable.push(definition.name.clone()),
                Err(payload) => {
                    tracing::warn!(
                        target: "hookwire::audit",
                        tool = %definition.name,
                        panic = %panic_message(&*payload),
                        "a tool's availability or instruction panicked; the tool is not offered"
                    );
                    offer.unavailable.push(definition.name.clone());
                }
            }
        }
        offer
    }

    /// Adds what `other` says (another set of the same agent's tools).
    #[inline]
    pub fn merge(&mut self, other: StepOffer) {
        self.unavailable.extend(other.unavailable);
        self.instructions.extend(other.instructions);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::Outcome;
    use crate::context::ToolContext;
    use crate::scope::SessionValues;
    use crate::tool::{FnTool, Json, NoArgs};

    /// A hand-written tool that overrides `available` only, as tools did
    /// before `STEP_RULES`: it must still be asked.
    struct Night;

    impl Tool for Night {
        type Args = NoArgs;

        fn name(&self) -> &str {
            "night"
        }

        fn description(&self) -> &str {
            "Only at night."
        }

        async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
            Ok(crate::call::ToolResult::text("dark"))
        }

        fn available(step: &StepView<'_>) -> bool {
            step.step > 0
        }
    }

    type Plain = FnTool<NoArgs, fn(NoArgs) -> std::future::Ready<Json<i64>>>;

    fn definition(name: &str) -> crate::ToolDefinition {
        crate::ToolDefinition {
            name: name.to_owned(),
            ..Night.definition()
        }
    }

    fn offer(step: usize, views: &[(&str, ToolView)]) -> StepOffer {
        let definitions: Vec<_> = views.iter().map(|(name, _)| definition(name)).collect();
        let session = SessionValues::default();
        let view = StepView::new("a", step, &[], &session);
        StepOffer::of(
            &definitions,
            |name| views.iter().find(|(n, _)| *n == name).map(|(_, v)| *v),
            &view,
        )
    }

    #[test]
    fn a_hand_written_tool_with_a_rule_is_asked_and_a_plain_one_is_not() {
        let night = ToolView::of::<Night>();
        let plain = ToolView::of::<Plain>();
        assert!(night.has_step_rules());
        assert!(!plain.has_step_rules());
        assert!(!ToolView::object().has_step_rules());
        let first = offer(0, &[("night", night), ("plain", plain)]);
        assert_eq!(first.unavailable, ["night"]);
        assert!(
            offer(1, &[("night", night), ("plain", plain)])
                .unavailable
                .is_empty()
        );
    }

    #[test]
    fn an_agents_rule_on_a_plain_tool_is_asked() {
        fn never(_: &StepView<'_>) -> bool {
            false
        }
        fn note(_: &StepView<'_>) -> Option<Cow<'static, str>> {
            Some("Mind the plain tool.".into())
        }
        let hidden = ToolView::of::<Plain>().with_rules(StepRules::new().with_available(never));
        assert!(hidden.has_step_rules());
        assert_eq!(offer(0, &[("plain", hidden)]).unavailable, ["plain"]);
        let noted = ToolView::of::<Plain>().with_rules(StepRules::new().with_instruction(note));
        assert_eq!(
            offer(0, &[("plain", noted)]).instructions,
            ["Mind the plain tool."]
        );
    }
}
