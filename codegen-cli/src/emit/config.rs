//! The agent's `AgentConfig` and its request-start injections.

use super::*;

pub(super) fn emit_config(krate: &syn::Path, spec: &AgentSpec) -> syn::Result<TokenStream> {
    let span = span_of(&spec.span);
    let name = str_lit(&spec.name);
    let mut calls = Vec::new();
    if !spec.instruction.is_empty() {
        let s = str_lit(&spec.instruction);
        calls.push(quote!(.with_instruction(#s)));
    }
    if let Some(d) = &spec.description {
        let s = str_lit(d);
        calls.push(quote!(.with_description(#s)));
    }
    if spec.default {
        calls.push(quote!(.with_default(true)));
    }
    for server in &spec.servers {
        let s = str_lit(server);
        calls.push(quote!(.with_server(#s)));
    }
    for server in &spec.server_rules {
        if let Some(rules) = super::step_rules(krate, &server.available, &server.instruction)? {
            let s = str_lit(&server.server);
            calls.push(quote!(.with_server_rules(#s, #rules)));
        }
    }
    for filter in &spec.mcp_tools {
        let s = str_lit(&filter.server);
        let globs = filter.globs.iter().map(|g| str_lit(g));
        if filter.globs.is_empty() {
            calls.push(quote!(.with_mcp_filter(#s, ::core::iter::empty::<&'static str>())));
        } else {
            calls.push(quote!(.with_mcp_filter(#s, [#(#globs),*])));
        }
    }
    for child in &spec.agents {
        let s = str_lit(&child.name);
        calls.push(quote!(.with_agent(#s)));
    }
    calls.extend(setting_calls(krate, &spec.settings, span)?);
    for hook in &spec.hooks {
        if let Some(call) = request_hook(krate, hook)? {
            calls.push(quote!(.with_request_hook(#call)));
        }
    }
    if spec.output_type.is_some() {
        // The type is checked once, where the agent implements
        // `TypedAgent` with it.
        calls.push(quote!(.with_output(<Self as #krate::agent::TypedAgent>::output_spec())));
    }
    let mut base = quote!(#krate::agent::AgentConfig::new(#name) #(#calls)*);
    if let Some(schema) = &spec.output_schema {
        // Checked where it was written (`check_output_schema`); the name is
        // its `title`, else the agent's.
        let title = serde_json::from_str::<serde_json::Value>(schema)
            .ok()
            .and_then(|s| s.get("title").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_else(|| spec.name.clone());
        let (s, title) = (str_lit(schema), str_lit(&title));
        // Through a macro of hookwire's, which names its `output-schema`
        // feature when it is off.
        base = quote!(#krate::__output_schema!(#base, #title, #s));
    }
    Ok(match &spec.tool_input_schema {
        None => base,
        Some(schema) => {
            let s = str_lit(schema);
            quote! {{
                let config = #base;
                match #krate::serde_json::from_str(#s) {
                    ::core::result::Result::Ok(schema) => config.with_tool_input_schema(schema),
                    ::core::result::Result::Err(_) => config,
                }
            }}
        }
    })
}

/// Where the entry `field` of `spec` is (the agent's span for a field
/// without one of its own).
pub(super) fn field_span(spec: &AgentSpec, field: crate::spec::SpecField) -> Span {
    use crate::spec::{HookPlace, SpecField};
    let entry = match field {
        SpecField::FunctionTool(i) => spec.function_tools.get(i).and_then(|t| t.span),
        SpecField::Agent(i) => spec.agents.get(i).and_then(|a| a.span),
        // A hook's errors are about its matcher (the front ends check its
        // other options where they read them): at the pattern if written.
        SpecField::Hook(HookPlace::ToolHook(i)) => {
            spec.tool_hooks.get(i).and_then(|h| h.match_span.or(h.span))
        }
        SpecField::Hook(HookPlace::ToolEntry { tool, hook }) => spec
            .function_tools
            .get(tool)
            .and_then(|t| t.hooks.get(hook))
            .and_then(|h| h.match_span.or(h.span)),
        SpecField::Hook(HookPlace::Lifecycle(i)) => spec
            .lifecycle_hooks
            .get(i)
            .and_then(|h| h.match_span.or(h.span)),
        SpecField::EventHook(i) => spec.hooks.get(i).and_then(|h| h.span),
        _ => None,
    };
    span_of(&entry.or(spec.span))
}

/// A `kind: tool_call` entry as a `hookwire::agent::RequestHook`; `None`
/// for actions the runtime has no config-driven form of.
pub(super) fn request_hook(
    krate: &syn::Path,
    hook: &crate::spec::EventHookSpec,
) -> syn::Result<Option<TokenStream>> {
    use crate::spec::{EventHookAction, Frequency, HookEvent, RefreshCondition};
    let span = span_of(&hook.span);
    let EventHookAction::ToolCall(call) = &hook.action else {
        return Ok(None);
    };
    let event = match hook.event {
        HookEvent::OnRequestStart => None,
        HookEvent::OnCompletion => Some(quote!(.at(#krate::agent::HookEvent::OnCompletion))),
        other => {
            return Err(syn::Error::new(
                span,
                format!(
                    "`kind: tool_call` hooks fire at `on_request_start` or `on_completion`, not `{other}`"
                ),
            ));
        }
    };
    let tool = str_lit(&call.tool_name);
    let mut calls = vec![];
    calls.extend(event);
    if let Some(toolset) = &call.toolset_name {
        let t = str_lit(toolset);
        calls.push(quote!(.in_toolset(#t)));
    }
    if call.arguments.trim() != "{}" && !call.arguments.trim().is_empty() {
        let a = str_lit(&call.arguments);
        calls.push(quote!(.with_arguments(
            #krate::serde_json::from_str(#a).unwrap_or_default()
        )));
    }
    let freq = match call.frequency {
        Frequency::Always => quote!(Always),
        Frequency::AppendIfChanged => quote!(AppendIfChanged),
    };
    calls.push(quote!(.with_frequency(#krate::agent::Frequency::#freq)));
    if let Some(RefreshCondition::Ttl { ttl_minutes }) = call.refresh_condition {
        let m = Literal::u64_suffixed(ttl_minutes);
        calls.push(quote!(.with_ttl_minutes(#m)));
    }
    let mut sets = Vec::new();
    if let Some(name) = &hook.name {
        let n = str_lit(name);
        sets.push(
            quote!(hook.name = ::core::option::Option::Some(::std::string::String::from(#n));),
        );
    }
    if let Some(secs) = hook.timeout_sec {
        let secs = Literal::f64_suffixed(secs as f64);
        sets.push(quote!(hook.timeout_sec = ::core::option::Option::Some(#secs);));
    }
    let base = quote!(#krate::agent::RequestHook::on_request_start(#tool) #(#calls)*);
    Ok(Some(if sets.is_empty() {
        base
    } else {
        quote!({
            let mut hook = #base;
            #(#sets)*
            hook
        })
    }))
}
