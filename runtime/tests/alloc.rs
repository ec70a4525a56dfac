//! A chain of hooks allocates nothing: the heap allocations of a call through
//! sixteen layers are exactly those of the tool alone (BENCHMARKS.md).
//!
//! `allocation-counter` installs a counting global allocator for this test
//! binary; its counters are per thread, so the test harness's other threads
//! never pollute a measurement. Futures are polled on the measuring thread
//! with a no-op waker, so no executor allocates behind our back.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll, Waker};

#[path = "chain_fixtures/mod.rs"]
mod chain_fixtures;

use allocation_counter::{AllocationInfo, measure};
use chain_fixtures::{AddOne, Allow, Keep, Noop};
use hookwire::hooks::Audit;
use hookwire::{
    CallScope, FailurePolicy, Guarded, Handler, Hook, Next, Outcome, Post, Pre, Router, Tool,
    ToolArgs, ToolCall, ToolContext, ToolHandler, ToolSet, ToolSource, call::Extensions, chain,
};

/// Counts its runs before and after `next`, in a counter shared with the test.
struct Count(Arc<AtomicU64>);

impl Hook for Count {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        self.0.fetch_add(1, Relaxed);
        let outcome = next.run(cx, args).await;
        self.0.fetch_add(1, Relaxed);
        outcome
    }
}

/// Reads the extension map without writing it, before and after `next`.
struct ReadsExtensions;

struct Marker;

impl Hook for ReadsExtensions {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        black_box(cx.extensions().get::<Marker>().is_some());
        let outcome = next.run(cx, args).await;
        black_box(cx.extensions().contains::<Marker>());
        outcome
    }
}

/// Polls `future` once with a no-op waker; everything here is ready at once.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the future was not ready on its first poll"),
    }
}

fn context() -> ToolContext {
    ToolContext::new("add_one", ToolSource::Function, "call-1")
}

/// Runs `handler` once with fresh raw arguments (made outside the
/// measurement) and returns what the call allocated and the result text.
fn measure_call<H: Handler>(handler: &H) -> (AllocationInfo, String) {
    let mut cx = context();
    let args = ToolArgs::from_json(r#"{"x": 41}"#);
    let mut outcome = None;
    let info = measure(|| outcome = Some(ready(handler.call(&mut cx, args))));
    let text = match outcome {
        Some(Ok(result)) => result.text_content(),
        Some(Err(error)) => panic!("the call failed: {error}"),
        None => panic!("the call did not run"),
    };
    (info, text)
}

/// Dispatches a fresh model call of `add_one` (made outside the
/// measurement) by name through `tools` and returns what the dispatch
/// allocated and the result text.
fn measure_dispatch<T: ToolSet>(tools: &T, scope: &CallScope) -> (AllocationInfo, String) {
    let call = ToolCall::new("call-1", "add_one", ToolArgs::from_json(r#"{"x": 41}"#));
    let mut outcome = None;
    let info = measure(|| outcome = Some(ready(tools.dispatch(scope, call))));
    match outcome {
        Some(Ok(result)) => (info, result.text_content()),
        other => panic!("the call failed: {other:?}"),
    }
}

/// The sixteen layers: every kind of built-in adapter that leaves the
/// arguments alone, around the same tool handler. Three of them are `Count`
/// hooks (one inside a `Guarded`) sharing `runs`.
fn sixteen_layers(runs: &Arc<AtomicU64>) -> impl Handler + use<> {
    let count = || Count(runs.clone());
    chain!(
        Audit,
        Guarded::new(Noop, FailurePolicy::FailClosed, None),
        Pre(Allow),
        Post(Keep),
        count(),
        ReadsExtensions,
        Noop,
        Guarded::new(count(), FailurePolicy::FailClosed, None),
        Pre(Allow),
        Post(Keep),
        Noop,
        count(),
        ReadsExtensions,
        Noop,
        Pre(Allow),
        Post(Keep)
        => ToolHandler(AddOne)
    )
}

#[test]
fn sixteen_layers_allocate_nothing_beyond_the_tool() {
    let runs = Arc::new(AtomicU64::new(0));
    let alone = ToolHandler(AddOne);
    let chained = sixteen_layers(&runs);
    // Warm up once, so one-time work (tracing call-site registration) is not
    // counted against either side.
    measure_call(&alone);
    measure_call(&chained);

    let (tool_only, tool_text) = measure_call(&alone);
    let (through_chain, chain_text) = measure_call(&chained);

    assert_eq!(tool_text, "42");
    assert_eq!(chain_text, "42", "the chain reached the tool");
    // Not vacuous: the tool's own result text is a heap allocation, and the
    // counter saw it.
    assert!(
        tool_only.count_total >= 1,
        "the counting allocator is not active: {tool_only:?}"
    );
    assert_eq!(
        through_chain.count_total, tool_only.count_total,
        "allocations through 16 layers ({through_chain:?}) vs the tool alone ({tool_only:?})"
    );
    assert_eq!(through_chain.bytes_total, tool_only.bytes_total);
    // Both chained calls (warm-up and measured) went through every layer:
    // three counting hooks, each bumped before and after `next`.
    assert_eq!(runs.load(Relaxed), 2 * 3 * 2);
}

/// A route's context shares the call's name and id (the model's, as the
/// loop keeps them): dispatching by name allocates what the tool's handler
/// called directly does, and no copy of either.
#[test]
fn a_routed_call_allocates_what_its_tool_does_and_no_copy_of_its_name() {
    let scope = CallScope::new("agent");
    let routed = Router::new().tool(AddOne);
    let handler = hookwire::ToolHandler(AddOne);
    measure_dispatch(&routed, &scope);
    measure_call(&handler);
    let (routed_info, routed_text) = measure_dispatch(&routed, &scope);
    let (direct_info, direct_text) = measure_call(&handler);
    assert_eq!((routed_text.as_str(), direct_text.as_str()), ("42", "42"));
    assert!(direct_info.count_total >= 1, "{direct_info:?}");
    assert_eq!(
        routed_info.count_total, direct_info.count_total,
        "a routed call ({routed_info:?}) vs its handler called directly ({direct_info:?})"
    );
}

#[test]
fn dispatch_by_name_through_sixteen_layers_allocates_what_a_bare_route_does() {
    let runs = Arc::new(AtomicU64::new(0));
    let scope = CallScope::new("agent");
    let bare = Router::new().tool(AddOne);
    let hooked = Router::new().route(
        AddOne.definition(),
        ToolSource::Function,
        sixteen_layers(&runs),
    );
    measure_dispatch(&bare, &scope);
    measure_dispatch(&hooked, &scope);

    let (bare_info, bare_text) = measure_dispatch(&bare, &scope);
    let (hooked_info, hooked_text) = measure_dispatch(&hooked, &scope);
    assert_eq!((bare_text.as_str(), hooked_text.as_str()), ("42", "42"));
    assert!(bare_info.count_total >= 1, "{bare_info:?}");
    assert_eq!(
        hooked_info.count_total, bare_info.count_total,
        "dispatch through 16 layers ({hooked_info:?}) vs a bare route ({bare_info:?})"
    );
    assert_eq!(
        runs.load(Relaxed),
        2 * 3 * 2,
        "both hooked calls ran every layer"
    );
}

#[test]
fn an_unused_extension_map_allocates_nothing() {
    let unused = measure(|| {
        let mut ext = black_box(Extensions::new());
        black_box(ext.get::<Marker>().is_some());
        black_box(ext.get_mut::<u64>().is_some());
        black_box(ext.remove::<u32>());
        black_box(ext.len());
        drop(ext);
    });
    assert_eq!(unused.count_total, 0, "{unused:?}");

    // The map does allocate once it holds a value, so the zero above is
    // the map's doing, not a counter that sees nothing.
    let used = measure(|| {
        let mut ext = Extensions::new();
        ext.insert(7u64);
        black_box(ext.get::<u64>());
    });
    assert!(used.count_total >= 1, "{used:?}");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

/// A model that answers once with a call of the tool `.0` whose arguments
/// are a JSON text, as an API model's are (the scripted model's are parsed
/// objects), then with "done".
struct TextModel(&'static str, std::sync::Mutex<Option<String>>);

impl hookwire::model::Model for TextModel {
    fn name(&self) -> &str {
        "text"
    }

    fn complete<'a>(
        &'a self,
        _: hookwire::model::ModelRequest<'a>,
    ) -> std::pin::Pin<
        Box<
            dyn Future<Output = Result<hookwire::model::ModelResponse, hookwire::model::ModelError>>
                + Send
                + 'a,
        >,
    > {
        use hookwire::model::ModelResponse;
        let next = self.1.lock().ok().and_then(|mut text| text.take());
        Box::pin(async move {
            Ok(match next {
                Some(text) => ModelResponse::tool_calls(
                    "",
                    vec![ToolCall::new("c1", self.0, ToolArgs::from_json(text))],
                ),
                None => ModelResponse::text("done"),
            })
        })
    }
}

/// The peak bytes of a run with one `SIZE` argument, over `SIZE`, with the
/// model `model` (made outside the count).
fn large_argument_peak<M: hookwire::model::Model + 'static>(model: M, size: usize) -> f64 {
    use hookwire::agent::{AgentConfig, BasicAgent, Runner, TraceEvent};
    use hookwire::{FnTool, Json};

    let rt = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(rt) => rt,
        Err(e) => panic!("runtime: {e}"),
    };
    let size_of = FnTool::new("size_of", "Counts bytes.", |a: Text| async move {
        Json(a.text.len())
    });
    let agent = BasicAgent::new(AgentConfig::new("sizer"), Router::new().tool(size_of));
    let mut runner = Runner::new(agent, model);
    let mut output = None;
    let info = measure(|| match rt.block_on(runner.run("go")) {
        Ok(out) => output = Some(out),
        Err(e) => panic!("the run failed: {e}"),
    });
    let Some(output) = output else {
        panic!("the run did not finish")
    };
    assert_eq!(output.text, "done");
    let sizes: Vec<String> = output
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(call.result.text_content()),
            _ => None,
        })
        .collect();
    assert_eq!(sizes, [size.to_string()]);
    info.bytes_max as f64 / size as f64
}

/// A 20 MB argument through a whole run (model, history, pre-tool-use
/// hooks, the tool's chain, post-tool-use, the trace) is held twice at
/// most at once: the model's call, shared by the history, the trace and the
/// chain (`ToolArgs` is copy-on-write, and the loop shares a model's text
/// once), and the tool's own parsed `String`. Copying it per use took the
/// peak to 8x (issue 16, point 10). The ratio is also printed by
/// `cargo bench -p hookwire --bench steps`.
#[test]
fn a_large_argument_is_held_at_most_twice_through_a_run() {
    use hookwire::model::{ScriptedModel, Turn};

    const SIZE: usize = 20 << 20;
    let scripted = ScriptedModel::from_turns(vec![
        Turn::call("size_of", serde_json::json!({ "text": "x".repeat(SIZE) })),
        Turn::text("done"),
    ]);
    let text = format!(r#"{{"text": "{}"}}"#, "x".repeat(SIZE));
    for (what, peak) in [
        ("a parsed object", large_argument_peak(scripted, SIZE)),
        (
            "a JSON text",
            large_argument_peak(
                TextModel("size_of", std::sync::Mutex::new(Some(text))),
                SIZE,
            ),
        ),
    ] {
        assert!(
            peak < 2.5,
            "a run with one 20 MB argument as {what} peaked at {peak:.1}x its size"
        );
    }
}

/// A pre hook that reads the argument `x`.
struct ReadsX;

impl hookwire::PreHook for ReadsX {
    async fn before(
        &self,
        _cx: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<hookwire::Decision, hookwire::HookError> {
        black_box(args.get("x").and_then(|x| x.as_i64()));
        Ok(hookwire::Decision::Continue)
    }
}

/// The allocations of one run in which a model calls `add_one` with the
/// JSON text `{"x": 41}` (as an API model sends it), through `chain`.
fn run_allocations<H: Handler + 'static>(chain: H) -> AllocationInfo {
    use hookwire::agent::{AgentConfig, BasicAgent, Runner};

    let rt = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(rt) => rt,
        Err(e) => panic!("runtime: {e}"),
    };
    let tools = Router::new().route(AddOne.definition(), ToolSource::Function, chain);
    let agent = Arc::new(BasicAgent::new(AgentConfig::new("calc"), tools));
    let session = || {
        let model = TextModel(
            "add_one",
            std::sync::Mutex::new(Some(r#"{"x": 41}"#.to_owned())),
        );
        Runner::new(agent.clone(), model)
    };
    let run = |mut runner: Runner<_>| match rt.block_on(runner.run("go")) {
        Ok(out) => {
            assert_eq!(out.text, "done");
            out
        }
        Err(e) => panic!("the run failed: {e}"),
    };
    run(session());
    let runner = session();
    let mut output = None;
    let info = measure(|| output = Some(run(runner)));
    let Some(output) = output else {
        panic!("the run did not finish")
    };
    let results: Vec<String> = output
        .trace
        .iter()
        .filter_map(|e| match e {
            hookwire::agent::TraceEvent::ToolCall(call) => Some(call.result.text_content()),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["42"], "the tool ran behind the hook");
    info
}

/// In a run, a call pays for parsing its arguments into a JSON object only
/// if a hook reads them, and then once for the whole chain: two hooks that
/// read `x` allocate no more than one, and a hook that reads nothing makes
/// the loop parse nothing (the loop shares the model's text; the tool parses
/// it straight into its typed arguments).
#[test]
fn in_a_run_arguments_are_parsed_once_and_only_for_a_hook_that_reads_them() {
    let once = run_allocations(chain!(Pre(ReadsX) => ToolHandler(AddOne)));
    let twice = run_allocations(chain!(Pre(ReadsX), Pre(ReadsX) => ToolHandler(AddOne)));
    let ignores = run_allocations(chain!(Pre(Allow) => ToolHandler(AddOne)));
    assert!(ignores.count_total >= 1, "{ignores:?}");
    assert_eq!(
        twice.count_total, once.count_total,
        "two hooks that read `x` ({twice:?}) vs one ({once:?})"
    );
    assert!(
        ignores.count_total < once.count_total,
        "a hook that reads nothing ({ignores:?}) pays for no parse, one that reads `x` ({once:?}) does"
    );
}

/// A step of a run whose tools have no availability rule and no
/// instruction asks each tool and allocates nothing: the offer is empty,
/// and the loop then offers the shared definitions and the agent's own
/// instruction, borrowed.
#[test]
fn a_step_offer_of_tools_without_rules_allocates_nothing() {
    use hookwire::{call::SessionValues, view::StepOffer, view::StepView};
    let tools = Router::new().route(
        AddOne.definition(),
        ToolSource::Function,
        chain!(Pre(Allow) => ToolHandler(AddOne)),
    );
    let definitions = tools.shared_definitions();
    let session = SessionValues::default();
    let view = StepView::new("calc", 3, &[], &session);
    let mut offer = None;
    let info = measure(|| offer = Some(tools.step_offer(&definitions, &view)));
    assert_eq!(info.count_total, 0, "{info:?}");
    assert_eq!(offer, Some(StepOffer::default()));
}
