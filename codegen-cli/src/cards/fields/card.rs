//! A card's top-level fields, one function per field or group of fields,
//! gathered into [`Parsed`].

use super::*;

/// Checks a card's fields (its YAML frontmatter `value`) and gathers them:
/// every mistake is a diagnostic.
pub(crate) fn parse_fields(src: Source, value: Yaml) -> Result<Parsed, Vec<Diagnostic>> {
    let entries = match value {
        Yaml::Map(entries) => entries,
        Yaml::Null => Vec::new(),
        other => {
            let d = src
                .line(
                    src.offset + 1,
                    1,
                    1,
                    format!(
                        "the card's YAML must be a mapping of fields, found {}",
                        other.kind()
                    ),
                )
                .help("write one `field: value` per line");
            return Err(vec![d]);
        }
    };
    let stem = src
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut cx = Ctx {
        src: &src,
        diags: Vec::new(),
        unknown: Vec::new(),
    };
    let mut fields = Fields {
        spec: AgentSpec::new(stem),
        ..Fields::default()
    };
    cx.unknown_keys(&[], &entries, &FIELDS, "a card");
    for (key, v) in &entries {
        fields.field(&mut cx, key, v);
    }
    fields.check_whole(&mut cx, &entries);
    let mut unknown_keys = cx.unknown;
    if !cx.diags.is_empty() {
        unknown_keys.extend(cx.diags);
        return Err(unknown_keys);
    }
    Ok(Parsed {
        display: src.path.clone(),
        unknown_keys,
        src,
        spec: fields.spec,
        tool_refs: fields.tool_refs,
        hook_refs: fields.hook_refs,
        lifecycle_refs: fields.lifecycle_refs,
        deps_ref: fields.deps_ref,
        agent_fn_refs: fields.agent_fn_refs,
        event_hook_index: fields.event_hook_index,
        name_given: fields.name_given,
        step_fn_refs: fields.step_fn_refs,
        tool_texts: fields.tool_texts,
    })
}

/// What a card's fields gave so far (see [`Parsed`]).
#[derive(Default)]
struct Fields {
    spec: AgentSpec,
    name_given: bool,
    /// Whether the card has an `instruction:` field.
    instruction_field: bool,
    tool_refs: Vec<RefSpec>,
    hook_refs: Vec<RefSpec>,
    lifecycle_refs: Vec<RefSpec>,
    deps_ref: Option<RefSpec>,
    agent_fn_refs: Vec<(usize, RefSpec)>,
    event_hook_index: Vec<usize>,
    step_fn_refs: Vec<StepFnRef>,
    tool_texts: Vec<(usize, String)>,
}

impl Fields {
    /// The top-level field `key` with value `v`.
    fn field(&mut self, cx: &mut Ctx<'_>, key: &str, v: &Yaml) {
        let path = [Seg::Key(key)];
        let p = &path[..];
        let spec = &mut self.spec;
        match key {
            "type" => {
                if let Some(t) = cx.string(p, "type", v)
                    && t != "agent"
                {
                    {
                        cx.err(
                            p,
                            true,
                            format!("unsupported card type `{t}` (supported: agent)"),
                            Some("cardgen compiles cards of `type: agent`".into()),
                        );
                    }
                }
            }
            "name" => {
                if let Some(n) = cx.nonempty(p, "name", v) {
                    if let Err((message, help)) = check_agent_name(&n) {
                        cx.err(p, true, message, Some(help));
                    }
                    spec.name = n;
                    self.name_given = true;
                }
            }
            "instruction" => {
                if let Some(s) = cx.string(p, "instruction", v) {
                    spec.instruction = s;
                    self.instruction_field = true;
                }
            }
            "durable_name" => {
                if let Some(n) = cx.nonempty(p, "durable_name", v) {
                    if let Err(e) = crate::spec::check_durable_name(&n) {
                        cx.err(p, true, e.message, Some(e.help));
                    }
                    spec.durable_name = Some(n);
                }
            }
            "description" => spec.description = cx.string(p, "description", v),
            "default" => spec.default = cx.boolean(p, "default", v).unwrap_or(false),
            "runtime_tools" => {
                spec.runtime_tools = cx.boolean(p, "runtime_tools", v).unwrap_or(false);
            }
            "deps" => self.deps(cx, p, v),
            "servers" => {
                spec.servers = cx.servers(v, &mut spec.server_rules, &mut self.step_fn_refs);
            }
            "tools" => mcp_tools(cx, p, v, spec),
            "function_tools" => self.function_tools(cx, v),
            "agents" => spec.agents = cx.agents(v, &mut self.agent_fn_refs),
            "tool_hooks" => parse_tool_hooks(cx, v, spec, &mut self.hook_refs),
            "hooks" => parse_event_hooks(
                cx,
                v,
                spec,
                &mut self.lifecycle_refs,
                &mut self.event_hook_index,
            ),
            "tool_input_schema" => match v {
                Yaml::Map(_) => {
                    // The shared rule (`AgentSpec::validate`) checks that it
                    // describes an object; `cross` reports it here.
                    spec.tool_input_schema = serde_json::to_string(&v.to_json()).ok();
                }
                other => cx.wrong_type(p, "tool_input_schema", "a JSON Schema mapping", other),
            },
            "output_type" => output_type(cx, p, v, spec),
            "output_schema" => output_schema(cx, p, v, spec),
            // A setting (or an unknown key, reported above).
            _ => read_setting(cx, p, key, v, &mut spec.settings),
        }
    }

    /// `deps: file.rs:Type`.
    fn deps(&mut self, cx: &mut Ctx<'_>, p: &[Seg<'_>], v: &Yaml) {
        if let Some(text) = cx.nonempty(p, "deps", v) {
            match split_ref(&text, RefKind::Type) {
                Ok((file, function)) => {
                    self.deps_ref = Some(RefSpec {
                        text,
                        file,
                        function,
                        field: "deps",
                        index: None,
                        in_map: false,
                        key: "hook",
                    });
                }
                Err(m) => cx.err(p, true, m, Some("write `deps.rs:AppDeps`: a file next to the card and a public type in it, which the agent is built from".into())),
            }
        }
    }

    /// `function_tools:`, each entry a reference or a mapping with its step
    /// rules.
    fn function_tools(&mut self, cx: &mut Ctx<'_>, v: &Yaml) {
        for (i, entry) in cx.entries("function_tools", v) {
            let at = [Seg::Key("function_tools"), Seg::Index(i)];
            let (s, in_map, path) = match entry {
                Entry::Text(s) => (s, false, at.to_vec()),
                Entry::Map(entries) => {
                    cx.unknown_keys(&at, entries, &TOOL_ENTRY_FIELDS, "a `function_tools` entry");
                    let of = RuleOf::Tool(self.tool_refs.len());
                    let mut refs = Vec::new();
                    let text = cx.step_rules("function_tools", i, entries, of, &mut refs);
                    let Some(s) =
                        cx.entry_key("function_tools", i, entries, "tool", "tools.rs:add_one")
                    else {
                        continue;
                    };
                    self.step_fn_refs.extend(refs);
                    self.tool_texts
                        .extend(text.map(|t| (self.tool_refs.len(), t)));
                    (s, true, [&at[..], &[Seg::Key("tool")]].concat())
                }
            };
            match split_ref(&s, RefKind::Function) {
                Ok((file, function)) => match check_tool_name(&function, "tool name") {
                    Ok(()) => self.tool_refs.push(RefSpec {
                        text: s,
                        file,
                        function,
                        field: "function_tools",
                        index: Some(i),
                        in_map,
                        key: if in_map { "tool" } else { "hook" },
                    }),
                    Err((m, help)) => cx.err(&path, true, m, Some(help)),
                },
                Err(m) => cx.err(&path, true, m, Some("write `tools.rs:add_one`: a file next to the card and a top-level function in it".into())),
            }
        }
    }

    /// The rules across fields: `output_type` or `output_schema`, a name
    /// taken from the file, the instruction as a field or the body.
    fn check_whole(&mut self, cx: &mut Ctx<'_>, entries: &[(String, Yaml)]) {
        let src = cx.src;
        let spec = &mut self.spec;
        if spec.output_type.is_some() && entries.iter().any(|(k, _)| k == "output_schema") {
            cx.err(
                &[Seg::Key("output_schema")],
                false,
                "the card has both `output_type:` and `output_schema:`".into(),
                Some("keep one: the type's schema is the one asked for, so remove `output_schema:` (or `output_type:` to check answers by the schema alone)".into()),
            );
        }
        if !self.name_given
            && let Err((message, help)) = check_agent_name(&spec.name)
        {
            let d = src
                .line(
                    1,
                    1,
                    1,
                    format!("{message} (the agent is named after its file)"),
                )
                .help(format!("{help}; or give the card a `name:`"));
            cx.diags.push(d);
        }
        match (&src.body, self.instruction_field) {
            (Some(_), true) => {
                let d = src
                    .at(
                        &[Seg::Key("instruction")],
                        false,
                        "the card has both an `instruction:` field and a body",
                    )
                    .help("keep one: the body after the frontmatter is the instruction")
                    .note(format!("the body starts at line {}", src.body_line));
                cx.diags.push(d);
            }
            (Some(body), false) => spec.instruction = body.clone(),
            _ => {}
        }
    }
}

/// `tools:`, a mapping of MCP server to the globs of its tools.
fn mcp_tools(cx: &mut Ctx<'_>, p: &[Seg<'_>], v: &Yaml, spec: &mut AgentSpec) {
    match v {
        Yaml::Map(servers) => {
            for (server, globs) in servers {
                let sp = [Seg::Key("tools"), Seg::Key(server.as_str())];
                let list = cx.string_list(&sp, &format!("tools.{server}"), globs);
                for (i, g) in &list {
                    if let Err(e) = Matcher::glob(g) {
                        let gp = [Seg::Key("tools"), Seg::Key(server.as_str()), Seg::Index(*i)];
                        cx.err(&gp, true, format!("invalid tool filter: {e}"), None);
                    }
                }
                spec.mcp_tools.push(McpToolsSpec {
                    server: server.clone(),
                    globs: list.into_iter().map(|(_, g)| g).collect(),
                });
            }
        }
        Yaml::Null => {}
        other => cx.wrong_type(
            p,
            "tools",
            "a mapping of server to a list of tool globs",
            other,
        ),
    }
}

/// `output_type:`, a Rust type path.
fn output_type(cx: &mut Ctx<'_>, p: &[Seg<'_>], v: &Yaml, spec: &mut AgentSpec) {
    if let Some(text) = cx.nonempty(p, "output_type", v) {
        match syn::parse_str::<syn::Path>(&text) {
            Ok(path) => match out_of_scope(&path) {
                None => spec.output_type = Some(crate::spec::FnRef::new(text)),
                Some(name) => cx.err(
                    p,
                    true,
                    format!("`output_type`: `{name}` is not in scope in the generated module, which imports nothing"),
                    Some(format!("write the type's whole path from the crate root, for example `crate::plan::{name}`")),
                ),
            },
            Err(e) => cx.err(
                p,
                true,
                format!("`output_type` must be a Rust type path: `{text}` does not parse as one ({e})"),
                Some("write the path of a `Deserialize + JsonSchema` type as the generated module names it, for example `crate::plan::Plan`".into()),
            ),
        }
    }
}

/// The first one-segment type name in `path` (its generic arguments
/// included) that the generated module cannot resolve: the module imports
/// nothing, so only the prelude's types and the primitives are in scope
/// without a path.
fn out_of_scope(path: &syn::Path) -> Option<String> {
    use syn::visit::Visit;
    /// Names every module sees.
    const IN_SCOPE: &[&str] = &[
        "String", "Vec", "Option", "Box", "Result", "bool", "char", "str", "i8", "i16", "i32",
        "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64",
    ];
    struct Find(Option<String>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            if self.0.is_none()
                && path.leading_colon.is_none()
                && let [only] = path.segments.iter().collect::<Vec<_>>()[..]
            {
                let name = only.ident.to_string();
                if !IN_SCOPE.contains(&name.as_str()) {
                    self.0 = Some(name);
                    return;
                }
            }
            syn::visit::visit_path(self, path);
        }
    }
    let mut find = Find(None);
    find.visit_path(path);
    find.0
}

/// `output_schema:`, a JSON Schema (checked with the `output-schema`
/// feature).
fn output_schema(cx: &mut Ctx<'_>, p: &[Seg<'_>], v: &Yaml, spec: &mut AgentSpec) {
    match v {
        Yaml::Map(_) | Yaml::Bool(_) => {
            #[cfg(feature = "output-schema")]
            let schema = v.to_json();
            #[cfg(not(feature = "output-schema"))]
            {
                let _ = &spec;
                cx.err(
                    p,
                    true,
                    "`output_schema:` is checked by the `output-schema` feature of hookwire-codegen, which is off".into(),
                    Some(r#"in Cargo.toml, `hookwire-codegen = { version = "0.1", features = ["emit", "output-schema"] }` (and `features = ["output-schema"]` on `hookwire`)"#.into()),
                );
            }
            #[cfg(feature = "output-schema")]
            match crate::spec::check_output_schema(&schema) {
                Ok(()) => spec.output_schema = serde_json::to_string(&schema).ok(),
                Err(e) => {
                    let owned: Vec<String> = e
                        .path
                        .iter()
                        .map(|s| match s {
                            crate::spec::SchemaStep::Key(k) => k.clone(),
                            crate::spec::SchemaStep::Index(i) => i.to_string(),
                        })
                        .collect();
                    let mut at = vec![Seg::Key("output_schema")];
                    for (step, text) in e.path.iter().zip(&owned) {
                        at.push(match step {
                            crate::spec::SchemaStep::Key(_) => Seg::Key(text),
                            crate::spec::SchemaStep::Index(i) => Seg::Index(*i),
                        });
                    }
                    cx.err(
                        &at,
                        true,
                        format!("invalid `output_schema`: {}", e.message),
                        None,
                    );
                }
            }
        }
        other => cx.wrong_type(p, "output_schema", "a JSON Schema mapping", other),
    }
}
