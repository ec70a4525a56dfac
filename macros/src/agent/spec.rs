//! `#[agent(...)]`'s keys into the shared `AgentSpec`, one function per
//! group of keys. The mistakes of one expansion are gathered in [`Errors`],
//! so that each is reported, in the order of the keys.

use super::*;

/// The errors found so far, combined into one.
#[derive(Default)]
pub(super) struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds `e` after the others.
    pub(super) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// `Err` with every error, if there was one.
    pub(super) fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// An agent struct is a plain unit struct: `#[agent]` gives it its fields.
pub(super) fn check_shape(item: &syn::ItemStruct) -> syn::Result<()> {
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "an agent struct cannot be generic: expected `#[agent(...)] struct Name;`",
        ));
    }
    if !matches!(item.fields, syn::Fields::Unit) {
        return Err(syn::Error::new_spanned(
            &item.fields,
            "an agent struct has no fields of its own: `#[agent]` gives it its tool set; pass what its tools need as `deps = YourDeps` and build it with `Name::new(&deps)`. Expected `#[agent(...)] struct Name;`",
        ));
    }
    Ok(())
}

/// The attribute's keys, its lists (`function_tools = [..]`, ..) each
/// given once.
pub(super) fn parse_attr(attr: TokenStream) -> syn::Result<AgentAttr> {
    let (attr, lists) = split_lists(attr)?;
    let metas = NestedMeta::parse_meta_list(attr)?;
    keys::check(&metas, "`#[agent(...)]`", &agent_keys())?;
    let mut a = AgentAttr::from_list(&metas).map_err(syn::Error::from)?;
    for (key, span, entries) in lists {
        let slot = match key.as_str() {
            "function_tools" => &mut a.function_tools,
            "agents" => &mut a.agents,
            "tool_hooks" => &mut a.tool_hooks,
            "coverage" => &mut a.coverage,
            _ => &mut a.hooks,
        };
        if !slot.0.is_empty() {
            return Err(syn::Error::new(
                span,
                format!("duplicate key `{key}` in `#[agent(...)]`: give each key once"),
            ));
        }
        *slot = entries;
    }
    Ok(a)
}

/// The agent's own keys: its name (checked), durable name, dependencies,
/// instruction, description, servers.
pub(super) fn declared_spec(a: &AgentAttr, item: &syn::ItemStruct) -> syn::Result<AgentSpec> {
    let (name, name_span) = match &a.name {
        Some(n) => (n.value(), n.span()),
        None => (crate::unraw(&item.ident), item.ident.span()),
    };
    if let Err(e) = check_agent_name(&name) {
        return Err(name_error(name_span, &e));
    }
    let mut spec = AgentSpec::new(name);
    spec.span = Some(item.ident.span());
    if let Some(durable) = &a.durable_name {
        if let Err(e) = hookwire_codegen::spec::check_durable_name(&durable.value()) {
            return Err(name_error(durable.span(), &e));
        }
        spec.durable_name = Some(durable.value());
    }
    spec.deps = a.deps.as_ref().map(path_text);
    if let Some(i) = &a.instruction {
        spec.instruction = i.value();
    }
    spec.description = a.description.as_ref().map(syn::LitStr::value);
    spec.default = a.default;
    spec.servers = a.servers.iter().map(syn::LitStr::value).collect();
    spec.runtime_tools = a.runtime_tools;
    Ok(spec)
}

/// `mcp_lock = "path"`: the MCP lock (`hookwire.lock`, written by `cardgen
/// mcp lock`) under `CARGO_MANIFEST_DIR`, read as the runtime reads it:
/// the MCP tools of the servers it pins are known, and the matchers are
/// checked against them. Returns the file's full path, for the expansion
/// to track.
pub(super) fn mcp_lock(a: &AgentAttr, spec: &mut AgentSpec, errors: &mut Errors) -> Option<String> {
    let lit = a.mcp_lock.as_ref()?;
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let path = std::path::Path::new(&dir).join(lit.value());
    let read = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the MCP lock `{}`: {e}", path.display()))
        .and_then(|text| {
            hookwire_codegen::spec::McpLock::parse(&text)
                .map_err(|e| format!("the MCP lock `{}` does not read: {e}", path.display()))
        });
    match read {
        Ok(lock) => {
            spec.mcp_lock = Some(std::sync::Arc::new(lock));
            Some(path.to_string_lossy().into_owned())
        }
        Err(message) => {
            errors.push(syn::Error::new(
                lit.span(),
                format!("{message} (the path is relative to the crate's folder, `CARGO_MANIFEST_DIR`; write the lock with `cardgen mcp lock`)"),
            ));
            None
        }
    }
}

/// `coverage = [approval_or_guard(match = "meta:destructive"),
/// guards_fail_closed]`: the coverage rules, each spanned on its name (a
/// rule the agent breaks is a compile error there).
pub(super) fn coverage(a: &AgentAttr, spec: &mut AgentSpec, errors: &mut Errors) {
    #[derive(Debug, FromMeta)]
    struct CoverageEntryAttr {
        #[darling(default, rename = "match")]
        matcher: Option<syn::LitStr>,
    }
    for entry in &a.coverage.0 {
        let kind = match last_name(&entry.path).parse::<CoverageKind>() {
            Ok(kind) => kind,
            Err(e) => {
                errors.push(syn::Error::new(entry.path.span(), e.to_string()));
                continue;
            }
        };
        let attr: CoverageEntryAttr = match entry_args(entry, "this coverage rule", &["match"]) {
            Ok(attr) => attr,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let mut rule = CoverageSpec::new(kind);
        rule.span = Some(entry.path.span());
        if let Some(m) = &attr.matcher {
            match Matcher::parse(&m.value()) {
                Ok(matcher) => rule.matcher = matcher,
                Err(e) => {
                    errors.push(syn::Error::new(
                        m.span(),
                        format!("invalid `match` pattern for coverage rule `{kind}`: {e}"),
                    ));
                    continue;
                }
            }
        }
        spec.coverage.push(rule);
    }
}

/// `tools(server = [globs])`: MCP tool filters.
pub(super) fn mcp_tools(a: &AgentAttr, spec: &mut AgentSpec, errors: &mut Errors) {
    for (server, span, globs) in &a.tools.0 {
        if let Err(message) = check_mcp_filter_server(server, &spec.servers) {
            errors.push(syn::Error::new(*span, message));
        }
        for glob in globs {
            if let Err(e) = Matcher::glob(&glob.value()) {
                errors.push(syn::Error::new(
                    glob.span(),
                    format!("invalid tool filter: {e}"),
                ));
            }
        }
        spec.mcp_tools.push(McpToolsSpec {
            server: server.clone(),
            globs: globs.iter().map(syn::LitStr::value).collect(),
        });
    }
}

/// `function_tools = [..]`, each entry with its name, step rules and hooks.
pub(super) fn function_tools(
    krate: &str,
    a: &AgentAttr,
    spec: &mut AgentSpec,
    errors: &mut Errors,
) {
    for entry in &a.function_tools.0 {
        match entry_args::<ToolEntryAttr>(entry, "this `function_tools` entry", TOOL_ENTRY_KEYS) {
            Ok(t) => {
                let tool_name = t
                    .name
                    .as_ref()
                    .map_or_else(|| last_name(&entry.path), syn::LitStr::value);
                if let Err(e) = check_tool_name(&tool_name, "tool name") {
                    let span = t.name.as_ref().map_or(entry.path.span(), |n| n.span());
                    errors.push(name_error(span, &e));
                }
                let mut tool = ToolRef::new(checked(krate, &entry.path), tool_name);
                tool.span = Some(entry.path.span());
                tool.tokens = Some(entry.path.to_token_stream());
                tool.available = t.available.as_ref().map(|a| fn_ref(&a.0));
                tool.instruction = t.instruction.as_ref().and_then(|i| match &i.0 {
                    Instruction::Text(text) => Some(InstructionRef::Text(text.value())),
                    Instruction::Fn(path) => Some(InstructionRef::Fn(fn_ref(path))),
                    _ => None,
                });
                for h in &t.tool_hooks.0 {
                    match hook_ref(krate, h, "this `tool_hooks` entry", &HOOK_OPTIONS) {
                        Ok(h) => tool = tool.with_hook(h),
                        Err(e) => errors.push(e),
                    }
                }
                spec.function_tools.push(tool);
            }
            Err(e) => errors.push(e),
        }
    }
}

/// `agents = [..]`: child agents, each with its name, functions and
/// metadata.
pub(super) fn child_agents(krate: &str, a: &AgentAttr, spec: &mut AgentSpec, errors: &mut Errors) {
    for entry in &a.agents.0 {
        match entry_args::<AgentEntryAttr>(entry, "this `agents` entry", AGENT_ENTRY_KEYS) {
            Ok(c) => {
                let mut child = AgentRef::new(
                    c.name
                        .as_ref()
                        .map_or_else(|| last_name(&entry.path), syn::LitStr::value),
                );
                if let Err(e) = check_agent_name(&child.name) {
                    let span = c.name.as_ref().map_or(entry.path.span(), |n| n.span());
                    errors.push(name_error(span, &e));
                }
                child.ty = Some(checked(krate, &entry.path));
                child.span = Some(entry.path.span());
                child.tokens = Some(entry.path.to_token_stream());
                child.output = c.output.as_ref().map(fn_ref);
                child.on_error = c.on_error.as_ref().map(fn_ref);
                child.meta = hookwire_codegen::spec::ToolMeta::from_pairs(
                    c.meta.map(|m| m.0).unwrap_or_default(),
                );
                spec.agents.push(child);
            }
            Err(e) => errors.push(e),
        }
    }
}

/// `tool_hooks = [..]`, and `hooks = [..]`: lifecycle hook types and
/// event hooks.
pub(super) fn hooks(krate: &str, a: &AgentAttr, spec: &mut AgentSpec, errors: &mut Errors) {
    for entry in &a.tool_hooks.0 {
        match hook_ref(krate, entry, "this `tool_hooks` entry", &HOOK_OPTIONS) {
            Ok(h) => spec.tool_hooks.push(h),
            Err(e) => errors.push(e),
        }
    }
    for entry in &a.hooks.0 {
        if is_type_path(&entry.path) {
            // A type (`NoShell`, `crate::hooks::Guard`): a lifecycle hook.
            match lifecycle_ref(entry) {
                Ok(l) => spec.lifecycle_hooks.push(l),
                Err(e) => errors.push(e),
            }
            continue;
        }
        match event_hook(entry) {
            Ok(h) => spec.hooks.push(h),
            Err(e) => errors.push(e),
        }
    }
}

/// `tool_input_schema`, and the answer's `output` type or `output_schema`.
pub(super) fn schemas(a: &AgentAttr, spec: &mut AgentSpec, errors: &mut Errors) {
    if let Some(s) = &a.tool_input_schema {
        let checked = serde_json::from_str::<serde_json::Value>(&s.value())
            .map_err(|_| "`tool_input_schema` must be a JSON Schema object".to_owned())
            .and_then(|schema| check_tool_input_schema(&schema));
        match checked {
            Ok(()) => spec.tool_input_schema = Some(s.value()),
            Err(message) => errors.push(syn::Error::new(
                s.span(),
                format!(
                    "{message}: expected `tool_input_schema = r#\"{{\"type\": \"object\", ...}}\"#`"
                ),
            )),
        }
    }
    spec.output_type = a.output.as_ref().map(fn_ref);
    if let Some(s) = &a.output_schema {
        if a.output.is_some() {
            errors.push(syn::Error::new(
                s.span(),
                "give `output = Type` or `output_schema`, not both: the type's schema is the one asked for",
            ));
        }
        let checked = serde_json::from_str::<serde_json::Value>(&s.value())
            .map_err(|e| format!("`output_schema` is not JSON: {e}"));
        // Without hookwire's `output-schema` feature the generated code is
        // its one error, naming the feature.
        #[cfg(feature = "output-schema")]
        let checked = checked.and_then(|schema| {
            hookwire_codegen::spec::check_output_schema(&schema).map_err(|e| {
                let at = schema_path(&e.path);
                format!("invalid `output_schema`{at}: {}", e.message)
            })
        });
        match checked {
            Ok(_) => spec.output_schema = Some(s.value()),
            Err(message) => errors.push(syn::Error::new(s.span(), message)),
        }
    }
}
