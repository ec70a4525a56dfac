//! What travels with a call: the extension map from outer hooks to the
//! tool and back, and the call's identity in its context.

use super::*;

#[tokio::test]
async fn the_extension_map_travels_from_outer_hooks_to_the_tool_and_back() {
    #[derive(Debug, PartialEq)]
    struct Trail(Vec<&'static str>);

    struct Outer(Arc<Mutex<Option<Vec<&'static str>>>>);
    impl Hook for Outer {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            cx.extensions_mut().insert(Trail(vec!["outer"]));
            let outcome = next.run(cx, args).await;
            let trail = cx.extensions_mut().remove::<Trail>().map(|t| t.0);
            *self.0.lock().unwrap() = trail;
            outcome
        }
    }
    struct Inner;
    impl Hook for Inner {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            if let Some(trail) = cx.extensions_mut().get_mut::<Trail>() {
                trail.0.push("inner:before");
            }
            let outcome = next.run(cx, args).await;
            if let Some(trail) = cx.extensions_mut().get_mut::<Trail>() {
                trail.0.push("inner:after");
            }
            outcome
        }
    }
    struct Reader;
    impl Tool for Reader {
        type Args = hookwire::call::NoArgs;
        fn name(&self) -> &str {
            "reader"
        }
        fn description(&self) -> &str {
            "Reads the trail."
        }
        async fn call(&self, cx: &ToolContext, _: hookwire::call::NoArgs) -> Outcome {
            Json(cx.extensions().get::<Trail>().map(|t| t.0.clone())).into_outcome_for("reader")
        }
    }
    trait Shim {
        fn into_outcome_for(self, tool: &str) -> Outcome;
    }
    impl<T: hookwire::IntoOutcome> Shim for T {
        fn into_outcome_for(self, tool: &str) -> Outcome {
            self.into_outcome(tool)
        }
    }

    let seen = Arc::new(Mutex::new(None));
    let chain = chain!(Outer(seen.clone()), Inner => ToolHandler(Reader));
    let result = chain.call(&mut cx(), ToolArgs::empty()).await.unwrap();
    assert_eq!(result.text_content(), r#"["outer","inner:before"]"#);
    assert_eq!(
        *seen.lock().unwrap(),
        Some(vec!["outer", "inner:before", "inner:after"])
    );
}

#[tokio::test]
async fn the_context_carries_the_call_identity() {
    struct Identity(Arc<Mutex<String>>);
    impl Hook for Identity {
        async fn around<N: Handler>(
            &self,
            cx: &mut ToolContext,
            args: ToolArgs,
            next: Next<'_, N>,
        ) -> Outcome {
            *self.0.lock().unwrap() = format!(
                "{}|{:?}|{}|{}|{}|{}",
                cx.agent(),
                cx.server(),
                cx.tool(),
                cx.source(),
                cx.tool_use_id(),
                cx.correlation_id()
            );
            next.run(cx, args).await
        }
    }
    let seen = Arc::new(Mutex::new(String::new()));
    let log = log();
    let tool = AddOne::new(&log);
    let tools = Router::new().route(
        tool.definition(),
        ToolSource::Function,
        chain!(Identity(seen.clone()) => ToolHandler(tool)),
    );
    let scope = CallScope::new("PMO").with_correlation_id("run-7");
    tools
        .call(&scope, ToolCall::new("toolu_1", "add_one", args(1)))
        .await;
    assert_eq!(
        *seen.lock().unwrap(),
        "PMO|None|add_one|function|toolu_1|run-7"
    );
}
