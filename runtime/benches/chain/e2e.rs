//! Group `e2e`: a call the way a model sends it, through the hand-written
//! `match`, a hand-built `Router` and the tool sets `#[hookwire::agent]`
//! generates.

use std::sync::Arc;

use hookwire::agent::Agent;
use hookwire::call::CallStr;
use hookwire::{
    CallScope, FailurePolicy, Guarded, Post, Pre, Router, Tool, ToolArgs, ToolCall, ToolHandler,
    ToolSet, ToolSource, chain,
};

use super::chain_fixtures::{AddOne, AddOneArgs, Allow, Keep, Noop, add_one};
use super::layers::Count;
use super::tools::{Echo, EchoArgs, Mul, MulArgs, echo, mul};
use super::{Mode, ready, result_text};

/// The hand-written path: what a developer writes without a framework, on
/// the call as a provider parses it (or, for the second row, with the id
/// and name made as `Arc<str>`).
async fn hand_written<S: AsRef<str>>(id: S, name: S, arguments: String) -> String {
    // The id would travel back with the result; hookwire's side drops its copy
    // inside the call too.
    drop(id);
    match name.as_ref() {
        "mul" => match serde_json::from_str::<MulArgs>(&arguments) {
            Ok(args) => to_json(&mul(args).await),
            Err(e) => format!("invalid arguments: {e}"),
        },
        "add_one" => match serde_json::from_str::<AddOneArgs>(&arguments) {
            Ok(args) => to_json(&add_one(args).await),
            Err(e) => format!("invalid arguments: {e}"),
        },
        "echo" => match serde_json::from_str::<EchoArgs>(&arguments) {
            Ok(args) => to_json(&echo(args).await),
            Err(e) => format!("invalid arguments: {e}"),
        },
        other => format!("unknown tool `{other}`"),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| e.to_string())
}

/// The e2e tool sets exactly as `#[hookwire::agent]` generates them (the
/// same emitter as `cardgen`): the three tools as `#[hookwire::tool]`s, and
/// hooks as `#[hookwire::hook]`s.
pub(super) mod generated {
    use hookwire::{Decision, Json, Next, Outcome, ToolArgs, ToolContext};

    /// Adds one.
    #[hookwire::tool]
    pub async fn add_one(x: i64) -> Json<i64> {
        Json(x.wrapping_add(1))
    }

    /// Multiplies.
    #[hookwire::tool]
    pub async fn mul(a: i64, b: i64) -> Json<i64> {
        Json(a.wrapping_mul(b))
    }

    /// Echoes.
    #[hookwire::tool]
    pub async fn echo(text: String) -> Json<String> {
        Json(text)
    }

    /// Six more tools, so that the emitter writes its perfect-hash dispatch
    /// (it writes a `match` on the name up to eight tools).
    macro_rules! pads {
        ($($name:ident),*) => {$(
            #[doc = "Pads the tool set."]
            #[hookwire::tool]
            pub fn $name() -> String {
                String::new()
            }
        )*};
    }
    pads!(pad0, pad1, pad2, pad3, pad4, pad5);

    /// Calls `next`.
    #[hookwire::hook]
    pub async fn noop(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
        next.run(cx, args).await
    }

    /// Lets every call through without reading its arguments.
    #[hookwire::hook]
    pub async fn allow(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
        Decision::Continue
    }

    /// Reads the argument `x` (parsing the model's text if no one did).
    #[hookwire::hook]
    pub async fn read_x(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
        std::hint::black_box(args.get("x").and_then(|x| x.as_i64()));
        Decision::Continue
    }

    /// Reads the argument `x` as a field of `add_one`'s arguments (a typed
    /// hook: parsed once, into the type the tool takes).
    #[hookwire::hook]
    pub async fn read_x_typed(
        _cx: &mut ToolContext,
        args: &hookwire::declare::ArgsOf<add_one>,
    ) -> Decision {
        std::hint::black_box(args.x);
        Decision::Continue
    }

    /// Looks at the outcome and keeps it.
    #[hookwire::hook]
    pub async fn keep(_cx: &mut ToolContext, outcome: &mut Outcome) {
        std::hint::black_box(outcome.is_ok());
    }

    /// The three tools, no hooks: one `match` on the name.
    #[hookwire::agent(name = "e2e", function_tools = [add_one, mul, echo])]
    pub struct Plain;

    /// The same three among nine: the perfect-hash dispatch.
    #[hookwire::agent(
        name = "e2e_hashed",
        function_tools = [add_one, mul, echo, pad0, pad1, pad2, pad3, pad4, pad5],
    )]
    pub struct Hashed;

    /// The three tools, `add_one` behind four hooks: a guarded (fail-open)
    /// around hook, a pre hook, a post hook and a counting around hook.
    #[hookwire::agent(
        name = "e2e_hooked",
        function_tools = [add_one(tool_hooks = [noop(on_failure = "open"), allow, keep, super::Count]), mul, echo],
    )]
    pub struct Hooked;

    /// The three tools, `add_one` behind a pre hook that reads `x`.
    #[hookwire::agent(
        name = "e2e_reads",
        function_tools = [add_one(tool_hooks = [read_x]), mul, echo],
    )]
    pub struct Reads;

    /// The three tools, `add_one` behind a guard that reads `x` and three
    /// hooks that pass the call through (an around hook, a pre hook, a
    /// post hook).
    #[hookwire::agent(
        name = "e2e_guarded",
        function_tools = [add_one(tool_hooks = [read_x, noop, allow, keep]), mul, echo],
    )]
    pub struct Guarded;

    /// `Reads` with the typed hook: the same guard, reading `x` as a field.
    #[hookwire::agent(
        name = "e2e_reads_typed",
        function_tools = [add_one(tool_hooks = [read_x_typed]), mul, echo],
    )]
    pub struct ReadsTyped;

    /// `Guarded` with the typed guard.
    #[hookwire::agent(
        name = "e2e_guarded_typed",
        function_tools = [add_one(tool_hooks = [read_x_typed, noop, allow, keep]), mul, echo],
    )]
    pub struct GuardedTyped;
}

/// hookwire's path: a `ToolCall` from the model's strings (moved in),
/// dispatched by a tool set, and the result's text.
#[inline(always)]
fn via_router<T: ToolSet, S: Into<CallStr>>(
    tools: &T,
    scope: &CallScope,
    (id, name, arguments): (S, S, String),
) -> String {
    let call = ToolCall::new(id, name, ToolArgs::from_json(arguments));
    result_text(ready(tools.dispatch(scope, call)))
}

/// A model's call as a provider parses it (genai, the OpenAI and Anthropic
/// clients): its id, its tool's name and its argument text, three `String`s.
fn model_call() -> (String, String, String) {
    (
        String::from("call_0001"),
        String::from("add_one"),
        String::from(r#"{"x":41}"#),
    )
}

/// The same call with its id and name made as `Arc<str>` (the second row:
/// what a caller that shares them already hands over).
fn model_call_arc() -> (Arc<str>, Arc<str>, String) {
    (
        Arc::from("call_0001"),
        Arc::from("add_one"),
        String::from(r#"{"x":41}"#),
    )
}

pub(super) fn e2e_cases(mode: &mut Mode<'_>) {
    let scope = CallScope::new("bench");
    let check = |text: String| assert_eq!(text, "42");

    // The input alone (made and dropped), for subtracting from loop counts.
    mode.case("e2e/input_only", model_call);
    mode.case("e2e/input_only_arc", model_call_arc);

    {
        let (id, name, arguments) = model_call();
        check(ready(hand_written(id, name, arguments)));
    }
    mode.batched("e2e/hand_written", model_call, |(id, name, arguments)| {
        ready(hand_written(id, name, arguments))
    });
    mode.batched(
        "e2e/hand_written_arc",
        model_call_arc,
        |(id, name, arguments)| ready(hand_written(id, name, arguments)),
    );

    // Routes are tried last-added first: mul, add_one, echo, the same order
    // as the hand-written match.
    let plain = Router::new().tool(Echo).tool(AddOne).tool(Mul);
    check(via_router(&plain, &scope, model_call()));
    mode.batched("e2e/hookwire_0_hooks", model_call, |input| {
        via_router(&plain, &scope, input)
    });

    let hooked = Router::new()
        .tool(Echo)
        .route(
            AddOne.definition(),
            ToolSource::Function,
            chain!(
                Guarded::new(Noop, FailurePolicy::FailClosed, None),
                Pre(Allow),
                Post(Keep),
                Count::default()
                => ToolHandler(AddOne)
            ),
        )
        .tool(Mul);
    check(via_router(&hooked, &scope, model_call()));
    mode.batched("e2e/hookwire_4_hooks", model_call, |input| {
        via_router(&hooked, &scope, input)
    });

    let plain = generated::Plain::new();
    let generated = plain.tools();
    check(via_router(generated, &scope, model_call()));
    mode.batched("e2e/generated_0_hooks", model_call, |input| {
        via_router(generated, &scope, input)
    });
    check(via_router(generated, &scope, model_call_arc()));
    mode.batched("e2e/generated_0_hooks_arc", model_call_arc, |input| {
        via_router(generated, &scope, input)
    });

    let hashed = generated::Hashed::new();
    check(via_router(hashed.tools(), &scope, model_call()));
    mode.batched("e2e/generated_0_hooks_hashed", model_call, |input| {
        via_router(hashed.tools(), &scope, input)
    });

    let hooked_agent = generated::Hooked::new();
    let generated_hooked = hooked_agent.tools();
    check(via_router(generated_hooked, &scope, model_call()));
    mode.batched("e2e/generated_4_hooks", model_call, |input| {
        via_router(generated_hooked, &scope, input)
    });

    let guarded = generated::Guarded::new();
    check(via_router(guarded.tools(), &scope, model_call()));
    mode.batched("e2e/generated_guard_3_pass", model_call, |input| {
        via_router(guarded.tools(), &scope, input)
    });

    let reads = generated::Reads::new();
    check(via_router(reads.tools(), &scope, model_call()));
    mode.batched("e2e/generated_reads_args", model_call, |input| {
        via_router(reads.tools(), &scope, input)
    });

    // The same two with the typed guard (`&ArgsOf<add_one>`) instead of the
    // JSON one (`args.get("x")`).
    let reads_typed = generated::ReadsTyped::new();
    check(via_router(reads_typed.tools(), &scope, model_call()));
    mode.batched("e2e/generated_reads_args_typed", model_call, |input| {
        via_router(reads_typed.tools(), &scope, input)
    });
    let guarded_typed = generated::GuardedTyped::new();
    check(via_router(guarded_typed.tools(), &scope, model_call()));
    mode.batched("e2e/generated_guard_3_pass_typed", model_call, |input| {
        via_router(guarded_typed.tools(), &scope, input)
    });
}
