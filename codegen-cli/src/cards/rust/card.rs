//! Resolving one card: each of its `file.rs:function` references (tools,
//! hooks, lifecycle hooks, children's functions, step rules, `deps:`) to
//! the code it names, then the checks that need them all.

use super::*;
use crate::spec::AgentSpec;

/// Resolves every reference of a card and builds the [`Card`].
pub(crate) fn resolve(
    root: &Path,
    shown_dir: &Path,
    p: Parsed,
    cache: &mut Cache,
) -> Result<Card, Vec<Diagnostic>> {
    // The name passed the name rule (`names::check_agent_name`), which
    // asks for a type name.
    let Some(names) = super::super::names::Generated::for_agent(&p.spec.name) else {
        return Err(vec![p.name_diag(format!(
            "agent name `{}` gives no Rust type name",
            p.spec.name
        ))]);
    };
    let mut card = CardRefs {
        root,
        shown_dir,
        p: &p,
        cache,
        diags: Vec::new(),
        idents: HashSet::from([names.type_name.clone(), names.tools_type]),
        modules: HashSet::new(),
        rust_files: Vec::new(),
        adapters: Vec::new(),
        made: HashMap::new(),
        spec: p.spec.clone(),
        tool_names: HashMap::new(),
        suggester: Suggester::default(),
        tools: Vec::new(),
        tool_slot: HashMap::new(),
        typed_hooks: Vec::new(),
    };
    let refs: Vec<(bool, usize, &RefSpec)> = p
        .tool_refs
        .iter()
        .enumerate()
        .map(|(i, r)| (true, i, r))
        .chain(p.hook_refs.iter().enumerate().map(|(i, r)| (false, i, r)))
        .collect();
    for (is_tool, idx, r) in refs {
        card.function_ref(is_tool, idx, r);
    }
    card.lifecycle_refs();
    card.agent_fn_refs();
    card.tool_texts();
    card.step_fn_refs();
    let (deps_file, deps) = card.deps();
    card.check_tools(deps.as_ref());
    card.check_names();
    let typed = std::mem::take(&mut card.typed_hooks);
    card.check_typed_hooks(&typed);
    let CardRefs {
        diags,
        spec,
        rust_files,
        adapters,
        ..
    } = card;
    if diags.is_empty() {
        Ok(Card {
            path: p.src.path.clone(),
            spec,
            type_name: names.type_name,
            module: names.module,
            rust_files,
            adapters,
            deps_file,
        })
    } else {
        Err(diags)
    }
}

/// A card being resolved: what its references gave so far.
struct CardRefs<'a> {
    root: &'a Path,
    shown_dir: &'a Path,
    p: &'a Parsed,
    cache: &'a mut Cache,
    diags: Vec<Diagnostic>,
    /// The names taken in the card's module.
    idents: HashSet<String>,
    /// The module names taken by the card's Rust files.
    modules: HashSet<String>,
    rust_files: Vec<RustFile>,
    adapters: Vec<Adapter>,
    /// The adapter made for each (function, tool?).
    made: HashMap<(String, bool), String>,
    spec: AgentSpec,
    /// Each function tool's name and its position in `tool_refs`.
    tool_names: HashMap<String, usize>,
    suggester: Suggester,
    /// The function tools, for the check of their `Dep<T>` parameters once
    /// every file of the card is loaded: (file, function, reference).
    tools: Vec<(Rc<RsFile>, String, String)>,
    /// Where each function tool of `tool_refs` is in `spec.function_tools`.
    tool_slot: HashMap<usize, usize>,
    /// The typed hooks (by position in `hook_refs`) and their argument type.
    typed_hooks: Vec<(usize, crate::lower::TypedArgs)>,
}

#[path = "typed_hooks.rs"]
mod typed_hooks;

impl CardRefs<'_> {
    /// Loads the file `r` names (`None`: nothing to resolve, an error was
    /// reported when there was one).
    fn load(&mut self, r: &RefSpec) -> Option<(PathBuf, Option<Rc<RsFile>>)> {
        let p = self.p;
        let at = |message: String| p.src.at(&r.path(), true, message);
        load_file(
            self.root,
            self.shown_dir,
            r,
            self.cache,
            &at,
            &mut self.diags,
        )
    }

    /// Includes the file `canonical` (written `file`) in the card's
    /// modules: the name of its module.
    fn include(&mut self, canonical: &Path, file: &str) -> String {
        include_file(&mut self.rust_files, &mut self.modules, canonical, file)
    }

    /// A function tool (`is_tool`) or hook: entry `idx` of its list.
    fn function_ref(&mut self, is_tool: bool, idx: usize, r: &RefSpec) {
        let p = self.p;
        let at = |message: String| p.src.at(&r.path(), true, message);
        let Some((canonical, file)) = self.load(r) else {
            return;
        };
        let Some(file) = file else { return };
        let Some(item) = find_fn(&file, &r.function) else {
            let top: Vec<&str> = file.fns.iter().map(String::as_str).collect();
            let help = self
                .suggester
                .did_you_mean(&r.function, &top)
                .map(|s| format!("did you mean `{}:{s}`?", r.file))
                .or_else(|| {
                    Some(if top.is_empty() {
                        format!("`{}` defines no top-level function", r.file)
                    } else {
                        format!("top-level functions in `{}`: {}", r.file, listing(&top))
                    })
                });
            self.diags.push(
                at(format!(
                    "no top-level function `{}` in `{}`",
                    r.function, r.file
                ))
                .maybe_help(help),
            );
            return;
        };
        let referenced = format!("referenced as `{}` in {}", r.text, p.display.display());
        if let Some(d) = not_public(&file, &item.vis, &item.sig.ident, "function", "fn") {
            self.diags.push(d.note(referenced));
            return;
        }
        if let Some(d) = conditional(&file, &item.attrs, &item.sig.ident, "function") {
            self.diags.push(d.note(referenced));
            return;
        }
        let rs_module = self.include(&canonical, &r.file);
        let key = (format!("{}:{}", canonical.display(), r.function), is_tool);
        let ident = match self.made.get(&key) {
            Some(ident) => ident.clone(),
            None => {
                let at = Adapting {
                    file: &file,
                    item,
                    canonical: &canonical,
                    r,
                    is_tool,
                    rs_module: &rs_module,
                };
                let Some(ident) = self.adapter(&at) else {
                    return;
                };
                self.made.insert(key, ident.clone());
                ident
            }
        };
        if is_tool {
            self.add_tool(idx, r, ident, &file, item, referenced);
        } else if let Some(h) = self.spec.tool_hooks.get_mut(idx) {
            h.ty = ident;
            // Its signature passed (the adapter was made).
            if let Some(sig) = hook_sig(&file, item) {
                h.rewrites = Some(sig.rewrites());
                h.phase = Some(sig.kind);
                if let Some(typed) = sig.typed {
                    self.typed_hooks.push((idx, typed));
                }
            }
        }
    }

    /// Makes the adapter of a function (lowered once per load, through the
    /// cache): its type name, `None` when its lowering failed.
    fn adapter(&mut self, a: &Adapting<'_>) -> Option<String> {
        let Adapting {
            file,
            item,
            canonical,
            r,
            is_tool,
            rs_module,
        } = *a;
        let ident = unique(adapter_base(&r.function, is_tool), &mut self.idents);
        let lkey: LoweredKey = (
            canonical.to_path_buf(),
            r.function.clone(),
            is_tool,
            ident.clone(),
            rs_module.to_owned(),
        );
        if !self.cache.lowered.contains_key(&lkey) {
            let entry = match lower_adapter(file, item, is_tool, &ident, rs_module) {
                Ok(done) => Some(done),
                Err(errors) => {
                    let what = if is_tool { "tool" } else { "hook" };
                    for e in errors {
                        self.diags.push(
                            file.diag_at(e.span(), item.sig.ident.span(), e.to_string())
                                .note(format!(
                                    "referenced as a {what} (`{}`) in {}",
                                    r.text,
                                    self.p.display.display()
                                )),
                        );
                    }
                    None
                }
            };
            self.cache.lowered.insert(lkey.clone(), entry);
        }
        let params = if is_tool {
            injection::params(&item.sig).unwrap_or_default()
        } else {
            Vec::new()
        };
        let Some(Some(code)) = self.cache.lowered.get(&lkey) else {
            return None;
        };
        self.adapters.push(Adapter {
            reference: r.text.clone(),
            path: canonical.to_path_buf(),
            function: r.function.clone(),
            ident: ident.clone(),
            code: code.clone(),
            is_tool,
            own_chain: if is_tool {
                crate::lower::own_chain_summary(item)
            } else {
                Vec::new()
            },
            own_policy: if is_tool {
                crate::lower::own_policy(item, &|path| {
                    // A `#[hook]` function of the tool's own file.
                    let name = path.get_ident()?.to_string();
                    let sig = hook_sig(file, find_fn(file, &name)?)?;
                    Some((sig.kind, sig.rewrites()))
                })
            } else {
                (Vec::new(), crate::spec::Approval::None)
            },
            arguments: params
                .iter()
                .map(|(name, ty, _)| {
                    (
                        name.clone(),
                        quote::ToTokens::to_token_stream(ty).to_string(),
                    )
                })
                .collect(),
            argument_defaults: params
                .iter()
                .filter_map(|(name, _, default)| Some((name.clone(), default.clone()?)))
                .collect(),
        });
        Some(ident)
    }

    /// Adds function tool `idx` (its adapter `ident`) to the spec, unless
    /// its name is taken or its `meta(..)` is wrong.
    fn add_tool(
        &mut self,
        idx: usize,
        r: &RefSpec,
        ident: String,
        file: &Rc<RsFile>,
        item: &syn::ItemFn,
        referenced: String,
    ) {
        let p = self.p;
        let name = r.function.clone();
        if let Some(first) = self.tool_names.insert(name.clone(), idx) {
            self.diags.push(
                p.src
                    .at(
                        &r.path(),
                        true,
                        crate::spec::UniqueToolNames::duplicate_message(&name, &self.spec.name),
                    )
                    .note(format!(
                        "`{}` is also function_tools[{first}]",
                        p.tool_refs[first].text
                    )),
            );
            return;
        }
        let mut tool = ToolRef::new(ident, name);
        tool.hooks = Vec::new();
        // Its `#[hookwire::tool(meta(..))]`: `check` decides `meta:`
        // matchers with it, as the compiler does with `Tool::META`.
        match crate::lower::tool_meta(item) {
            Ok(meta) => tool.meta = Some(meta),
            Err(e) => {
                self.diags.push(
                    file.diag_at(e.span(), item.sig.ident.span(), e.to_string())
                        .note(referenced),
                );
                return;
            }
        }
        self.tool_slot.insert(idx, self.spec.function_tools.len());
        self.spec.function_tools.push(tool);
        self.tools
            .push((file.clone(), r.function.clone(), r.text.clone()));
    }

    /// The lifecycle hooks: types of their kind.
    fn lifecycle_refs(&mut self) {
        let p = self.p;
        for (idx, r) in p.lifecycle_refs.iter().enumerate() {
            let at = |message: String| p.src.at(&r.path(), true, message);
            let Some((canonical, Some(file))) = self.load(r) else {
                continue;
            };
            let referenced = format!("referenced as `{}` in {}", r.text, p.display.display());
            match check_lifecycle_type(&file, r, &referenced) {
                Ok(()) => {
                    let rs_module = self.include(&canonical, &r.file);
                    if let Some(h) = self.spec.lifecycle_hooks.get_mut(idx) {
                        h.ty = format!("{rs_module}::{}", r.function);
                    }
                }
                Err(Check::InCard(message, help)) => self.diags.push(at(message).maybe_help(help)),
                Err(Check::InFile(d)) => self.diags.push(*d),
            }
        }
    }

    /// The children's `output` and `on_error` functions.
    fn agent_fn_refs(&mut self) {
        let p = self.p;
        for (idx, r) in &p.agent_fn_refs {
            let Some((canonical, Some(file))) = self.load(r) else {
                continue;
            };
            let check = |sig: &syn::Signature| {
                fn_rules::check_child_fn(sig, r.key == "output", |ty| {
                    implements(&file, ty, "IntoOutcome")
                })
            };
            if let Some(path) = entry_fn(&file, r, p, &mut self.diags, check) {
                let rs_module = self.include(&canonical, &r.file);
                if let Some(child) = self.spec.agents.get_mut(*idx) {
                    let f = Some(crate::spec::FnRef::new(format!("{rs_module}::{path}")));
                    if r.key == "output" {
                        child.output = f;
                    } else {
                        child.on_error = f;
                    }
                }
            }
        }
    }

    /// The tools' `instruction:` texts.
    fn tool_texts(&mut self) {
        for (idx, text) in &self.p.tool_texts {
            if let Some(tool) = self
                .tool_slot
                .get(idx)
                .and_then(|i| self.spec.function_tools.get_mut(*i))
            {
                tool.instruction = Some(crate::spec::InstructionRef::Text(text.clone()));
            }
        }
    }

    /// The tools' and servers' `available` / `instruction` functions.
    fn step_fn_refs(&mut self) {
        let p = self.p;
        for StepFnRef { of, r } in &p.step_fn_refs {
            let Some((canonical, Some(file))) = self.load(r) else {
                continue;
            };
            let available = r.key == "available";
            let check = |sig: &syn::Signature| fn_rules::check_step_fn(sig, available);
            let Some(name) = entry_fn(&file, r, p, &mut self.diags, check) else {
                continue;
            };
            let rs_module = self.include(&canonical, &r.file);
            let f = crate::spec::FnRef::new(format!("{rs_module}::{name}"));
            let (slot_available, slot_instruction) = match *of {
                RuleOf::Tool(idx) => match self
                    .tool_slot
                    .get(&idx)
                    .and_then(|i| self.spec.function_tools.get_mut(*i))
                {
                    Some(tool) => (&mut tool.available, &mut tool.instruction),
                    None => continue,
                },
                RuleOf::Server(idx) => match self.spec.server_rules.get_mut(idx) {
                    Some(server) => (&mut server.available, &mut server.instruction),
                    None => continue,
                },
            };
            if available {
                *slot_available = Some(f);
            } else {
                *slot_instruction = Some(crate::spec::InstructionRef::Fn(f));
            }
        }
    }

    /// `deps:`: its file and the type, `None` without one or when it did
    /// not resolve.
    fn deps(&mut self) -> (Option<PathBuf>, Option<super::super::deps::CardDeps>) {
        let p = self.p;
        let Some(r) = &p.deps_ref else {
            return (None, None);
        };
        let resolved = resolve_deps(self.root, self.shown_dir, p, r, self.cache, &mut self.diags);
        match resolved {
            Some((canonical, deps)) => {
                self.include(&canonical, &r.file);
                self.spec.deps = Some(format!("{DEPS_MODULE}::{}", deps.name));
                (Some(canonical), Some(deps))
            }
            None => (None, None),
        }
    }

    /// The function tools' `Dep<T>` parameters against what `deps`
    /// provides. A card without `deps:` provides nothing; one whose `deps:`
    /// did not resolve was reported already.
    fn check_tools(&mut self, deps: Option<&super::super::deps::CardDeps>) {
        if deps.is_none() && self.p.deps_ref.is_some() {
            return;
        }
        let provided = deps.map_or_else(HashSet::new, |d| {
            super::super::deps::provided(
                d,
                self.rust_files
                    .iter()
                    .filter_map(|f| self.cache.files.get(&f.path).cloned().flatten())
                    .collect::<Vec<_>>()
                    .iter()
                    .map(|f| &**f),
            )
        });
        for (file, function, text) in &self.tools {
            if let Some(item) = find_fn(file, function) {
                let referenced = format!(
                    "referenced as a tool (`{text}`) in {}",
                    self.p.display.display()
                );
                self.diags.extend(super::super::deps::check_tool(
                    file,
                    item,
                    deps,
                    &provided,
                    &referenced,
                ));
            }
        }
    }

    /// The checks across the card's tools: injections and their arguments,
    /// tool names the children take, `meta:` matchers.
    fn check_names(&mut self) {
        let p = self.p;
        let params: HashMap<String, Vec<injection::Param>> = self
            .tools
            .iter()
            .filter_map(|(file, function, _)| {
                let item = find_fn(file, function)?;
                let sig = resolve::Scope::of(&file.ast).signature(&item.sig).ok()?;
                Some((function.clone(), injection::params(&sig)?))
            })
            .collect();
        // A tool whose reference failed was reported at the reference: an
        // injection calling it by that name is not a second mistake.
        let mut named = self.tool_names.clone();
        for (i, r) in p.tool_refs.iter().enumerate() {
            named.entry(r.function.clone()).or_insert(i);
        }
        check_injections(p, &self.spec, &named, &mut self.diags);
        injection::check_arguments(p, &self.spec, &params, &mut self.diags);
        for child in &self.spec.agents {
            if self.tool_names.contains_key(&child.tool_name()) {
                self.diags.push(p.src.at(
                    &[crate::yaml::Seg::Key("agents")],
                    false,
                    format!("tool name `{}` is used twice", child.tool_name()),
                ));
            }
        }
        if self.diags.is_empty() {
            super::super::cross::check_meta_matchers(p, &self.spec, &mut self.diags);
        }
    }
}

/// A function a card references, being made into an adapter.
struct Adapting<'a> {
    file: &'a RsFile,
    item: &'a syn::ItemFn,
    /// Its file's canonical path.
    canonical: &'a Path,
    r: &'a RefSpec,
    is_tool: bool,
    /// The module of its file in the card's module.
    rs_module: &'a str,
}
