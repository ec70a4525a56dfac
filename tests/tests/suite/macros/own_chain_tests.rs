//! A tool's own hooks (guardrails), approval rule and error mapping, from
//! `#[tool(tool_hooks = [..], needs_approval, on_error = ..)]`: carried by the
//! tool, so every agent that lists it runs them, innermost.

use super::*;
use hookwire::approval::{ApprovalDecision, FnApprover};
use hookwire::declare::ToolDecl;
use hookwire::{HookError, ToolError, ToolResult};
use std::sync::Arc;

/// Input guardrail: a call whose `text` mentions a password never runs.
#[hookwire::hook]
async fn no_secrets(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    log(format!("{}:no_secrets", cx.tool_use_id()));
    match args.get("text").and_then(|t| t.as_str()) {
        Some(text) if text.contains("password") => {
            Decision::Deny("the text contains a password".into())
        }
        _ => Decision::Continue,
    }
}

/// Output guardrail: rewrites digits in the result to `#`, and blocks a
/// result that mentions a key.
#[hookwire::hook]
async fn redact(cx: &mut ToolContext, outcome: &mut Outcome) -> Result<(), HookError> {
    log(format!("{}:redact", cx.tool_use_id()));
    if let Ok(result) = outcome {
        let text = result.text_content();
        if text.contains("key") {
            *outcome = Err(ToolError::denied("the result contains a key"));
        } else {
            let masked: String = text
                .chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect();
            *result = ToolResult::text(masked);
        }
    }
    Ok(())
}

/// What the model reads when `write_file` fails.
fn explain_write_error(error: ToolError) -> String {
    format!("nothing was written ({error}); try a path outside /ro/")
}

/// Writes a file.
#[hookwire::tool(
    tool_hooks = [no_secrets, redact(on_failure = "open", timeout_ms = 500)],
    on_error = explain_write_error,
)]
fn write_file(cx: &ToolContext, path: String, text: String) -> Result<String, String> {
    log(format!("{}:write_file", cx.tool_use_id()));
    if path.starts_with("/ro/") {
        Err(format!("{path} is read-only"))
    } else {
        Ok(format!("wrote {text} to {path}"))
    }
}

/// Deletes a file.
#[hookwire::tool(needs_approval = outside_tmp)]
fn delete(cx: &ToolContext, path: String) -> String {
    log(format!("{}:delete {path}", cx.tool_use_id()));
    format!("deleted {path}")
}

/// Only paths outside /tmp need approval.
fn outside_tmp(args: &hookwire::declare::ArgsOf<delete>) -> bool {
    !args.path.starts_with("/tmp/")
}

/// Formats the disk.
#[hookwire::tool(needs_approval)]
fn format_disk(cx: &ToolContext) -> String {
    log(format!("{}:format_disk", cx.tool_use_id()));
    "formatted".to_owned()
}

/// Files, behind an agent-level hook and an entry-level hook.
#[hookwire::agent(
    name = "files",
    function_tools = [write_file(tool_hooks = [inner_mark]), delete, format_disk],
    tool_hooks = [outer],
)]
pub struct Files;

fn files() -> &'static FilesTools {
    static FILES: std::sync::LazyLock<Files> = std::sync::LazyLock::new(Files::new);
    hookwire::agent::Agent::tools(&*FILES)
}

/// A scope whose approver approves `/etc/*` and denies the rest, and
/// records each question.
fn approving_scope(asked: Arc<Mutex<Vec<String>>>) -> CallScope {
    let approver = FnApprover::new(move |req| {
        let path = req
            .arguments
            .to_value()
            .ok()
            .and_then(|v| v["path"].as_str().map(str::to_owned))
            .unwrap_or_default();
        asked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(format!("{} {path}: {}", req.tool, req.reason));
        if path.starts_with("/etc/") {
            ApprovalDecision::Approve
        } else {
            ApprovalDecision::Deny("not there".into())
        }
    });
    CallScope::new("files").with_approver(Arc::new(approver))
}

#[test]
fn agent_hooks_then_entry_hooks_then_the_tools_own_hooks_then_the_tool() {
    let scope = CallScope::new("files");
    let result = block_on(files().call(
        &scope,
        call("o1", "write_file", json!({"path": "/a", "text": "v2"})),
    ));
    assert!(!result.is_error);
    // The output guardrail rewrote the digits.
    assert_eq!(result.text_content(), "wrote v# to /a");
    assert_eq!(
        take_log("o1:"),
        [
            "o1:outer:before",
            "o1:inner_mark",
            "o1:no_secrets",
            "o1:write_file",
            "o1:redact",
            "o1:outer:after"
        ]
    );
    // The definition is the tool's own, unchanged by its hooks.
    let def = &files().definitions()[0];
    assert_eq!(def.name, "write_file");
    assert_eq!(def.description, "Writes a file.");
    assert_eq!(*def, write_file {}.describe());
}

#[test]
fn an_input_guardrail_denies_and_the_tool_never_runs() {
    let scope = CallScope::new("files");
    let result = block_on(files().call(
        &scope,
        call(
            "o2",
            "write_file",
            json!({"path": "/a", "text": "my password"}),
        ),
    ));
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "tool call denied by `no_secrets`: the text contains a password"
    );
    assert_eq!(
        take_log("o2:"),
        [
            "o2:outer:before",
            "o2:inner_mark",
            "o2:no_secrets",
            "o2:outer:after"
        ]
    );
}

#[test]
fn an_output_guardrail_blocks_a_result() {
    let scope = CallScope::new("files");
    let result = block_on(files().call(
        &scope,
        call("o3", "write_file", json!({"path": "/a", "text": "key"})),
    ));
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "tool call denied: the result contains a key"
    );
    assert_eq!(
        take_log("o3:"),
        [
            "o3:outer:before",
            "o3:inner_mark",
            "o3:no_secrets",
            "o3:write_file",
            "o3:redact",
            "o3:outer:after"
        ]
    );
}

#[test]
fn on_error_maps_the_tools_error_and_bad_arguments_to_what_the_model_reads() {
    let scope = CallScope::new("files");
    let result = block_on(files().call(
        &scope,
        call("o4", "write_file", json!({"path": "/ro/x", "text": "t"})),
    ));
    assert!(!result.is_error, "the mapping recovered");
    assert_eq!(
        result.text_content(),
        "nothing was written (tool `write_file` failed: /ro/x is read-only); try a path outside /ro/"
    );
    // Bad arguments: mapped too, and the function never ran.
    let result = block_on(files().call(
        &scope,
        call("o5", "write_file", json!({"path": 7, "text": "t"})),
    ));
    assert!(
        result
            .text_content()
            .starts_with("nothing was written (invalid arguments for tool `write_file`"),
        "{}",
        result.text_content()
    );
    assert_eq!(
        take_log("o5:"),
        [
            "o5:outer:before",
            "o5:inner_mark",
            "o5:no_secrets",
            "o5:redact",
            "o5:outer:after"
        ]
    );
    take_log("o4:");
}

#[test]
fn needs_approval_with_a_predicate_asks_only_when_it_says_so() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let scope = approving_scope(asked.clone());
    let r = block_on(files().call(&scope, call("o6", "delete", json!({"path": "/tmp/x"}))));
    assert_eq!(r.text_content(), "deleted /tmp/x");
    let r = block_on(files().call(&scope, call("o7", "delete", json!({"path": "/etc/x"}))));
    assert_eq!(r.text_content(), "deleted /etc/x");
    let r = block_on(files().call(&scope, call("o8", "delete", json!({"path": "/home"}))));
    assert!(r.is_error);
    assert_eq!(
        r.text_content(),
        "tool call denied by `needs_approval`: not there"
    );
    assert_eq!(
        *asked.lock().unwrap_or_else(|p| p.into_inner()),
        [
            "delete /etc/x: `delete` needs approval",
            "delete /home: `delete` needs approval"
        ]
    );
    assert_eq!(
        take_log("o6:"),
        ["o6:outer:before", "o6:delete /tmp/x", "o6:outer:after"]
    );
    assert_eq!(
        take_log("o7:"),
        ["o7:outer:before", "o7:delete /etc/x", "o7:outer:after"]
    );
    assert_eq!(take_log("o8:"), ["o8:outer:before", "o8:outer:after"]);
}

#[test]
fn arguments_the_predicate_cannot_read_need_approval() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let scope = approving_scope(asked.clone());
    // `/tmp/..` needs no approval, but `path` is not a string: fail closed.
    let r = block_on(files().call(&scope, call("o9", "delete", json!({"path": ["/tmp/x"]}))));
    assert!(r.is_error);
    assert_eq!(
        *asked.lock().unwrap_or_else(|p| p.into_inner()),
        ["delete : `delete` needs approval"]
    );
    // Not JSON at all.
    let r = block_on(files().call(
        &scope,
        ToolCall::new(
            "o10",
            "delete",
            ToolArgs::from_json("{\"path\": \"/tmp/x\""),
        ),
    ));
    assert!(r.is_error);
    assert_eq!(asked.lock().unwrap_or_else(|p| p.into_inner()).len(), 2);
    assert_eq!(take_log("o9:"), ["o9:outer:before", "o9:outer:after"]);
    assert_eq!(take_log("o10:"), ["o10:outer:before", "o10:outer:after"]);
}

#[test]
fn a_bare_needs_approval_asks_for_every_call_and_without_an_approver_denies() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let scope = approving_scope(asked.clone());
    let r = block_on(files().call(&scope, call("o11", "format_disk", json!({}))));
    assert!(r.is_error);
    assert_eq!(asked.lock().unwrap_or_else(|p| p.into_inner()).len(), 1);
    let r = block_on(files().call(
        &CallScope::new("files"),
        call("o12", "format_disk", json!({})),
    ));
    assert!(r.is_error);
    assert!(
        r.text_content().contains("no approver is configured"),
        "{}",
        r.text_content()
    );
    assert_eq!(take_log("o11:"), ["o11:outer:before", "o11:outer:after"]);
    assert_eq!(take_log("o12:"), ["o12:outer:before", "o12:outer:after"]);
}

#[test]
fn a_router_runs_a_tool_with_its_own_chain_through_that_chain() {
    let tools = Router::new().tool(write_file {});
    let result = block_on(tools.call(
        &CallScope::new("t"),
        call("o14", "write_file", json!({"path": "/c", "text": "y2"})),
    ));
    assert_eq!(result.text_content(), "wrote y# to /c");
    let denied = block_on(tools.call(
        &CallScope::new("t"),
        call(
            "o15",
            "write_file",
            json!({"path": "/c", "text": "my password"}),
        ),
    ));
    assert!(denied.is_error);
    assert_eq!(
        take_log("o14:"),
        ["o14:no_secrets", "o14:write_file", "o14:redact"]
    );
    assert_eq!(take_log("o15:"), ["o15:no_secrets"]);
}

#[test]
fn a_tool_with_its_own_chain_goes_into_a_hand_built_chain_through_into_handler() {
    let tools = Router::new().route(
        write_file {}.describe(),
        hookwire::ToolSource::Function,
        chain!(outer {} => write_file {}.into_handler()),
    );
    let result = block_on(tools.call(
        &CallScope::new("t"),
        call("o13", "write_file", json!({"path": "/b", "text": "x1"})),
    ));
    assert_eq!(result.text_content(), "wrote x# to /b");
    assert_eq!(
        take_log("o13:"),
        [
            "o13:outer:before",
            "o13:no_secrets",
            "o13:write_file",
            "o13:redact",
            "o13:outer:after"
        ]
    );
}

/// `write_file` behind the same hooks as in `Files`, and two request-start
/// injections of it: one the hooks let through, one the tool's own input
/// guardrail denies.
#[hookwire::agent(
    name = "injector",
    function_tools = [write_file(tool_hooks = [inner_mark])],
    tool_hooks = [outer],
    hooks = [
        on_request_start(tool_name = "write_file", arguments = r#"{"path": "/notes", "text": "v42"}"#, frequency = "always"),
        on_request_start(tool_name = "write_file", arguments = r#"{"path": "/x", "text": "my password"}"#, frequency = "always"),
    ],
)]
pub struct Injector;

/// Logs each call the lifecycle hooks see, by id.
struct Lifecycle;

impl hookwire::agent::lifecycle::LifecycleHooks for Lifecycle {
    async fn pre_tool_use(&self, cx: &mut hookwire::agent::lifecycle::PreToolUse<'_>) -> Decision {
        log(format!("{}:pre_tool_use", cx.tool_use_id));
        Decision::Continue
    }

    async fn post_tool_use(&self, cx: &mut hookwire::agent::lifecycle::PostToolUse<'_>) {
        log(format!("{}:post_tool_use", cx.call.id));
    }

    async fn post_tool_failure(&self, cx: &mut hookwire::agent::lifecycle::PostToolUse<'_>) {
        log(format!("{}:post_tool_failure", cx.call.id));
    }
}

/// A request-start injection of a function tool takes the path of a
/// model's call: the lifecycle hooks, then the agent-level hook, the
/// entry's hook, the tool's own hooks (its output guardrail masks the
/// digits), the tool; the model's first request ends with that result. A
/// call the tool's own input guardrail denies is skipped (after
/// `post_tool_failure`): the tool never runs and the model does not see it.
#[test]
fn a_request_start_injection_runs_through_the_function_tools_whole_chain() {
    use hookwire::agent::inject::InjectionAction;
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::model::{Message, ScriptedModel, Turn, TurnExpectation};
    let model = ScriptedModel::from_turns([Turn::text("ok").expecting(TurnExpectation {
        last_contains: Some("wrote v## to /notes".into()),
        ..Default::default()
    })]);
    let mut runner = Runner::new(Injector::new(), model).with_hooks(Lifecycle);
    let out = block_on(runner.run("hi")).unwrap();
    assert_eq!(out.text, "ok");
    let injections: Vec<(String, InjectionAction)> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Injection { tool, action } => Some((tool.clone(), action.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        injections,
        [
            ("write_file".to_owned(), InjectionAction::Appended),
            (
                "write_file".to_owned(),
                InjectionAction::Skipped(
                    "tool call denied by `no_secrets`: the text contains a password".into()
                )
            ),
        ]
    );
    let history: Vec<String> = runner
        .history()
        .iter()
        .map(|m| format!("{}: {}", m.role(), m.text()))
        .collect();
    assert_eq!(
        history,
        [
            "user: hi",
            "assistant: ",
            "tool: wrote v## to /notes",
            "assistant: ok"
        ]
    );
    let Some(Message::Assistant { tool_calls, .. }) = runner.history().get(1) else {
        panic!("{:?}", runner.history());
    };
    let id = tool_calls[0].id.clone();
    assert!(
        id.starts_with("inject_write_file_") && id.ends_with("_1"),
        "{id}"
    );
    let ran: Vec<String> = take_log("inject_write_file_")
        .into_iter()
        .map(|e| e.replace(&*id, "A"))
        .collect();
    assert_eq!(
        ran[..7],
        [
            "A:pre_tool_use",
            "A:outer:before",
            "A:inner_mark",
            "A:no_secrets",
            "A:write_file",
            "A:redact",
            "A:outer:after",
        ]
    );
    assert_eq!(ran[7], "A:post_tool_use");
    let second: Vec<String> = ran[8..]
        .iter()
        .map(|e| {
            e.split_once(':')
                .map_or(e.clone(), |(_, what)| what.to_owned())
        })
        .collect();
    assert_eq!(
        second,
        [
            "pre_tool_use",
            "outer:before",
            "inner_mark",
            "no_secrets",
            "outer:after",
            "post_tool_failure"
        ],
        "denied before the tool: no write_file, no redact"
    );
}
