//! Tools: a name, a description, a JSON Schema and an async call with typed
//! arguments.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::call::{Outcome, ToolArgs, ToolResult};
use crate::context::{ToolContext, ToolSource};
use crate::error::{ToolError, panic_message};
use crate::hook::{Handler, ToolCulprit, attributed};

/// A tool as the model sees it: name, description and the JSON Schema of its
/// arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What the tool does (from the doc comment).
    pub description: String,
    /// The JSON Schema of the argument object.
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// Strict mode: every property is required and no other is allowed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
}

/// A tool: something the model can call with typed arguments.
///
/// The arguments are deserialized (and so validated) before
/// [`call`](Tool::call) runs: malformed arguments give
/// [`ToolError::InvalidArguments`] naming the field, and the tool's body is
/// never entered. Most tools are written with `#[hookwire::tool]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire tool",
    label = "not a tool",
    note = "declare tools with `#[hookwire::tool]` on a (sync or async) fn whose parameters are `Deserialize + JsonSchema`, or implement `hookwire::Tool`"
)]
pub trait Tool: Send + Sync {
    /// The typed arguments.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// The tool's name.
    fn name(&self) -> &str;

    /// The name the tool is declared with, when it is known at compile
    /// time (`#[hookwire::tool]` sets it to what [`name`](Tool::name)
    /// returns): an agent that lists the tool checks at compile time that
    /// it dispatches the tool under this name.
    #[doc(hidden)]
    const DECLARED_NAME: Option<&'static str> = None;

    /// What the tool does.
    fn description(&self) -> &str;

    /// Whether the schema is strict (no optional arguments).
    fn strict(&self) -> bool {
        false
    }

    /// Where the tool comes from.
    fn source(&self) -> ToolSource {
        ToolSource::Function
    }

    /// The metadata the tool declares, `key = "value"` pairs that
    /// `meta:key` / `meta:key=value` matchers select
    /// (`#[hookwire::tool(meta(risk = "high", destructive))]` sets it; a
    /// bare key has the value `"true"`). An agent that lists the tool
    /// statically decides at compile time which of its hooks apply, from
    /// this constant.
    const META: &'static [(&'static str, &'static str)] = &[];

    /// The function behind the tool, as its declaration names it: for
    /// `#[hookwire::tool]`, its Rust path (`module::path::function`); for a
    /// card's plain function, its reference (`tools.rs:refund`); `None` for
    /// any other tool. A hook reads it from its context
    /// ([`ToolContext::function`](crate::ToolContext::function)).
    const FUNCTION: Option<&'static str> = None;

    /// The metadata of this tool value: [`META`](Tool::META) unless the
    /// tool overrides it. Asked on each call of a tool registered at run
    /// time (`WithTools`), whose metadata may be known only then; a
    /// statically listed tool is matched on [`META`](Tool::META).
    fn meta(&self) -> crate::ToolMeta {
        crate::ToolMeta::from_static(Self::META)
    }

    /// Runs the tool.
    fn call(&self, cx: &ToolContext, args: Self::Args) -> impl Future<Output = Outcome> + Send;

    /// What a person asked to approve a call is shown besides its
    /// arguments ([`ApprovalRequest::metadata`](crate::approve::ApprovalRequest::metadata),
    /// kept in the pending entry of a deferred call); none by default.
    /// `#[hookwire::tool(approval_metadata = path)]` sets it to a
    /// `fn(&ArgsOf<tool>) -> serde_json::Value`. It has no `self`: every
    /// approval gate reaches it through the tool's type.
    fn approval_metadata(args: &Self::Args) -> Option<Value> {
        let _ = args;
        None
    }

    /// Whether the tool is offered to the model in a step, asked at every
    /// step of a run; always by default. A tool that is not is left out of
    /// that step's definitions, and a call to it is refused ("not
    /// available in this step") without running any hook.
    /// `#[hookwire::tool(available = path)]` sets it to a
    /// `fn(&StepView) -> bool`.
    fn available(step: &crate::StepView<'_>) -> bool {
        let _ = step;
        true
    }

    /// What the tool adds to the system prompt in a step in which it is
    /// offered (a paragraph after the agent's instruction); none by
    /// default. `#[hookwire::tool(instruction = "..")]` sets a text,
    /// `instruction = path` a `fn(&StepView) -> String` (an empty text adds
    /// nothing).
    fn instruction(step: &crate::StepView<'_>) -> Option<Cow<'static, str>> {
        let _ = step;
        None
    }

    /// Whether [`available`](Tool::available) or
    /// [`instruction`](Tool::instruction) may say anything (the default, for
    /// a hand-written tool that overrides either). `#[hookwire::tool]` sets
    /// it to `false` when it declares neither, so the loop does not ask such
    /// a tool at every step.
    #[doc(hidden)]
    const STEP_RULES: bool = true;

    /// The JSON Schema of the arguments.
    fn input_schema(&self) -> Value {
        schema_for::<Self::Args>(self.strict())
    }

    /// The definition the model sees.
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            input_schema: self.input_schema(),
            strict: self.strict(),
        }
    }
}

/// The JSON Schema of `T`, inlined (no `$ref`s, as models expect). In strict
/// mode every object lists all its properties as required and forbids
/// others, and no schema keeps a `default` (strict schemas cannot carry
/// one: the model always sends every property, so a default, say serde's
/// `#[serde(default)]` on an `#[args]` field, never applies).
pub fn schema_for<T: JsonSchema>(strict: bool) -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("title");
        if !map.contains_key("properties")
            && map.get("type") == Some(&Value::String("object".into()))
        {
            map.insert("properties".into(), Value::Object(Default::default()));
        }
    }
    if strict {
        make_strict(&mut value);
    }
    value
}

/// Makes the schema `value` strict, walking only where schemas are: the
/// values of `properties` (not the map itself, whose keys are names that
/// may read `default` or `properties`), and never into `enum`, `const` or
/// `examples`, which hold data.
#[doc(hidden)]
pub fn make_strict(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("default");
            if let Some(Value::Object(props)) = map.get("properties") {
                let required: Vec<Value> = props.keys().cloned().map(Value::String).collect();
                map.insert("required".into(), Value::Array(required));
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (key, sub) in map.iter_mut() {
                match key.as_str() {
                    "enum" | "const" | "examples" => {}
                    "properties" | "patternProperties" | "$defs" | "definitions" => {
                        if let Value::Object(named) = sub {
                            named.values_mut().for_each(make_strict);
                        }
                    }
                    _ => make_strict(sub),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(make_strict),
        _ => {}
    }
}

/// What a tool function may return: [`ToolResult`], `String`, `&'static
/// str`, [`Json<T>`], a number or a `bool` (its JSON text: `42`, `0.5`,
/// `true`), or a `Result` of one of these whose error is `Display` (it
/// becomes [`ToolError::ToolFailed`], or is passed through if it is a
/// [`ToolError`]). A float that is not finite has no JSON form: the call
/// fails with [`ToolError::ToolFailed`] saying so.
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}`",
    note = "a tool returns `ToolResult`, `String`, `&'static str`, `Json<T: Serialize>`, a number, a `bool`, or `Result<one of those, E: Display>`"
)]
pub trait IntoOutcome {
    /// Converts the return value of the tool `tool`.
    fn into_outcome(self, tool: &str) -> Outcome;
}

impl IntoOutcome for ToolResult {
    fn into_outcome(self, _tool: &str) -> Outcome {
        Ok(self)
    }
}

impl IntoOutcome for String {
    fn into_outcome(self, _tool: &str) -> Outcome {
        Ok(ToolResult::text(self))
    }
}

impl IntoOutcome for &'static str {
    fn into_outcome(self, _tool: &str) -> Outcome {
        Ok(ToolResult::text(self))
    }
}

/// Integers and `bool`: their JSON text, as `Json` would write it.
macro_rules! json_text {
    ($($t:ty),*) => {$(
        impl IntoOutcome for $t {
            fn into_outcome(self, _tool: &str) -> Outcome {
                Ok(ToolResult::text(self.to_string()))
            }
        }
    )*};
}

json_text!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

/// Floats: their JSON text (`0.5`, `3.0`); NaN and the infinities have none,
/// and fail the call instead of reaching the model as `null`.
macro_rules! json_float {
    ($($t:ty),*) => {$(
        impl IntoOutcome for $t {
            fn into_outcome(self, tool: &str) -> Outcome {
                if self.is_finite() {
                    serde_json::to_string(&self)
                        .map(ToolResult::text)
                        .map_err(|e| ToolError::tool_failed(tool, e))
                } else {
                    Err(ToolError::tool_message(
                        tool,
                        format!("returned `{self}`, a number JSON cannot hold"),
                        false,
                    ))
                }
            }
        }
    )*};
}

json_float!(f32, f64);

/// A return value serialized to JSON text for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoOutcome for Json<T> {
    fn into_outcome(self, tool: &str) -> Outcome {
        serde_json::to_string(&self.0)
            .map(ToolResult::text)
            .map_err(|e| ToolError::tool_failed(tool, e))
    }
}

impl<T: IntoOutcome, E: Display + Send + Sync + 'static> IntoOutcome for Result<T, E> {
    fn into_outcome(self, tool: &str) -> Outcome {
        match self {
            Ok(value) => value.into_outcome(tool),
            Err(error) => {
                let mut slot = Some(error);
                let any: &mut dyn std::any::Any = &mut slot;
                if let Some(tool_error) = any
                    .downcast_mut::<Option<ToolError>>()
                    .and_then(Option::take)
                {
                    return Err(tool_error.with_tool(tool));
                }
                let message = slot.map(|e| e.to_string()).unwrap_or_default();
                Err(ToolError::tool_message(tool, message, false))
            }
        }
    }
}

/// A [`Tool`] as the innermost [`Handler`] of a chain: parses the arguments
/// into the tool's type and runs it. A panic in the tool is attributed to
/// the tool: the root of the call ([`catch_panics`](crate::catch_panics))
/// turns it into [`ToolError::ToolFailed`]. A panic in the arguments'
/// `Deserialize` becomes the same error, caught where they are parsed.
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolHandler<T>(pub T);

impl<T: Tool> Handler for ToolHandler<T> {
    fn tool_view(&self) -> Option<crate::ToolView> {
        Some(crate::ToolView::of::<T>())
    }

    #[inline]
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        let tool = &self.0;
        let culprit = ToolCulprit(tool.name());
        // In a run, what the tool receives (after every hook's rewrites)
        // goes to the trace.
        if let Some(log) = cx.scope().call_log() {
            log.received(cx.tool_use_id(), &args);
        }
        // Parsed here, not in the future: the argument text is freed before
        // the tool runs and is no part of the future's state. Typed hooks
        // parsed them already: the tool takes their value.
        let parsed = match args.take_typed::<T::Args>() {
            Ok(typed) => Ok(typed),
            Err(args) => parse_caught::<T::Args>(&args, culprit.0),
        };
        match parsed {
            Ok(typed) => ToolFuture::Running {
                future: tool.call(cx, typed),
                culprit,
            },
            Err(error) => ToolFuture::Failed { error: Some(error) },
        }
    }
}

/// Parses `args` for the tool named `tool`, with a panic in the arguments'
/// `Deserialize` caught here and reported as the tool's failure. Parsing
/// runs as the call starts (when [`Handler::call`] is called), which for a
/// tool with no hook around it is before the root of the call
/// ([`catch_panics`](crate::catch_panics)) polls anything: its catch would
/// not see this panic.
#[inline]
fn parse_caught<A: DeserializeOwned>(args: &ToolArgs, tool: &str) -> Result<A, ToolError> {
    std::panic::catch_unwind(AssertUnwindSafe(|| args.parse::<A>(tool))).unwrap_or_else(|payload| {
        Err(ToolError::tool_message(
            tool,
            panic_message(&*payload),
            false,
        ))
    })
}

pin_project_lite::pin_project! {
    /// The future of a [`ToolHandler`] call: the tool running, with its
    /// panics attributed to it, or the argument error.
    #[project = ToolFutureProj]
    #[doc(hidden)]
    pub enum ToolFuture<'a, F> {
        Running {
            #[pin]
            future: F,
            culprit: ToolCulprit<'a>,
        },
        Failed {
            error: Option<ToolError>,
        },
    }
}

impl<'a, F> ToolFuture<'a, F> {
    /// A call of the tool named `name`: its future, with its panics
    /// attributed to it, or the error that kept it from starting (what the
    /// MCP tool set's calls return).
    #[doc(hidden)]
    #[inline]
    pub fn new(name: &'a str, started: Result<F, ToolError>) -> Self {
        match started {
            Ok(future) => Self::Running {
                future,
                culprit: ToolCulprit(name),
            },
            Err(error) => Self::Failed { error: Some(error) },
        }
    }
}

impl<F: Future<Output = Outcome>> Future for ToolFuture<'_, F> {
    type Output = Outcome;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        match self.project() {
            ToolFutureProj::Running { future, culprit } => {
                match attributed(&*culprit, || future.poll(cx)) {
                    Poll::Ready(Err(error)) => Poll::Ready(Err(error.with_tool(culprit.0))),
                    poll => poll,
                }
            }
            ToolFutureProj::Failed { error } => match error.take() {
                Some(error) => Poll::Ready(Err(error)),
                None => Poll::Pending,
            },
        }
    }
}

/// A tool from an async closure, for tools built at run time and for tests.
///
/// ```
/// # use hookwire::{FnTool, Json, Tool};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct AddOne { x: i64 }
/// let add_one = FnTool::new("add_one", "Adds one.", |a: AddOne| async move { Json(a.x + 1) });
/// assert_eq!(add_one.definition().input_schema["required"][0], "x");
/// ```
pub struct FnTool<A, F> {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    strict: bool,
    source: ToolSource,
    f: F,
    _args: PhantomData<fn(A)>,
}

impl<A, F, Fut, R> FnTool<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync,
    Fut: Future<Output = R> + Send,
    R: IntoOutcome,
{
    /// A tool named `name` that runs `f`.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        f: F,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            strict: false,
            source: ToolSource::Function,
            f,
            _args: PhantomData,
        }
    }

    /// Sets strict mode.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets the source reported to hooks.
    pub fn source(mut self, source: ToolSource) -> Self {
        self.source = source;
        self
    }
}

impl<A, F, Fut, R> Tool for FnTool<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync,
    Fut: Future<Output = R> + Send,
    R: IntoOutcome,
{
    type Args = A;

    // Always offered, no instruction.
    const STEP_RULES: bool = false;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn source(&self) -> ToolSource {
        self.source
    }

    async fn call(&self, _cx: &ToolContext, args: A) -> Outcome {
        (self.f)(args).await.into_outcome(&self.name)
    }
}

/// Arguments of a tool that takes none: accepts `{}` (and ignores extra
/// fields).
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
pub struct NoArgs {}

#[cfg(test)]
mod primitive_outputs {
    use super::*;

    fn text(outcome: Outcome) -> String {
        match outcome {
            Ok(r) => r.text_content(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn numbers_and_bools_reach_the_model_as_json() {
        assert_eq!(text(42i64.into_outcome("t")), "42");
        assert_eq!(text((-7i8).into_outcome("t")), "-7");
        assert_eq!(text(u128::MAX.into_outcome("t")), u128::MAX.to_string());
        assert_eq!(text(true.into_outcome("t")), "true");
        assert_eq!(text(0.5f64.into_outcome("t")), "0.5");
        assert_eq!(text(3.0f64.into_outcome("t")), "3.0");
        assert_eq!(text(0.1f32.into_outcome("t")), "0.1");
        assert_eq!(
            text(Ok::<u32, String>(7).into_outcome("t")),
            "7",
            "inside a Result too"
        );
    }

    #[test]
    fn a_float_that_is_not_finite_fails_the_call_without_panicking() {
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let outcome = value.into_outcome("ratio");
            let Err(e) = outcome else {
                panic!("{value} gave {outcome:?}");
            };
            assert!(e.to_string().contains("a number JSON cannot hold"), "{e}");
        }
        assert!(f32::NAN.into_outcome("ratio").is_err());
    }
}
