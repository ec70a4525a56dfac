//! The tool-set struct: one field per tool (its whole chain), its
//! construction, and `impl ToolSet` with dispatch by name.

use super::*;

/// What the tool-set struct is made of.
pub(super) struct ToolSetParts<'a> {
    /// Its name.
    pub(super) ty: &'a syn::Ident,
    /// The agent's dependency type, which `new` takes.
    pub(super) deps_ty: &'a syn::Type,
    /// The statically known tools, each with its chain.
    pub(super) tools: &'a [Lowered],
    /// The agent-level hooks, kept for tools discovered at run time.
    pub(super) agent_hooks: &'a [Hook],
}

/// The named parts of `impl ToolSet` that depend on how tools are found by
/// name.
struct Lookup {
    /// The perfect hash's tables and `index` function (empty for a `match`).
    index_fn: TokenStream,
    /// The body of `declared_name(name)`.
    declared_body: TokenStream,
    /// The body of `source(name)`.
    source_body: TokenStream,
    /// The body of `tool_view(name)`.
    view_body: TokenStream,
    /// `meta(name)`, for a set with a tool that may declare metadata.
    meta_fn: TokenStream,
    /// `dispatch(scope, call)`.
    dispatch_fn: TokenStream,
}

/// Emits the tool-set struct of `parts`: the slots of its hooks, the
/// struct, its constructor, `Debug` and `impl ToolSet`.
pub(super) fn emit_tools(
    krate: &syn::Path,
    spec: &AgentSpec,
    vis: &syn::Visibility,
    parts: &ToolSetParts<'_>,
    checks: &Checks,
) -> syn::Result<TokenStream> {
    let ToolSetParts {
        ty: tools_ty,
        tools,
        agent_hooks,
        ..
    } = *parts;
    let bounds = checks.where_clause();
    let items = tools.iter().map(|t| &t.items);
    let hook_items = agent_hooks.iter().map(|h| &h.items);
    let fields: Vec<syn::Ident> = (0..tools.len())
        .map(|i| format_ident!("tool_{}", i))
        .collect();
    let lookup = if tools.is_empty() {
        Lookup::empty(krate)
    } else {
        Lookup::new(krate, tools, &fields)?
    };
    let (dynamic_field, dynamic_init) = dynamic_hooks(spec, agent_hooks);
    let declaration = declaration(krate, spec, vis, parts, &fields, &bounds, &dynamic_field);
    let constructor = ToolSetNew {
        fields: &fields,
        bounds: &bounds,
        dynamic_init: &dynamic_init,
        index_fn: &lookup.index_fn,
    }
    .tokens(krate, vis, parts);
    let names = tools.iter().map(|t| t.name.as_str());
    let Lookup {
        declared_body,
        source_body,
        view_body,
        meta_fn,
        dispatch_fn,
        ..
    } = lookup;

    Ok(quote! {
        #(#hook_items)*
        #(#items)*

        #declaration

        #constructor

        // One field per tool: as long as the agent's list of tools.
        #[allow(clippy::too_many_lines)]
        impl ::core::fmt::Debug for #tools_ty #bounds {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(::core::stringify!(#tools_ty))
                    .field("tools", &{
                        let names: &[&str] = &[#(#names),*];
                        names
                    })
                    .finish_non_exhaustive()
            }
        }

        // One arm per tool: as long as the agent's list of tools.
        #[allow(clippy::too_many_lines)]
        impl #krate::ToolSet for #tools_ty #bounds {
            fn definitions(&self) -> ::std::vec::Vec<#krate::ToolDefinition> {
                self.definitions.to_vec()
            }

            fn shared_definitions(&self) -> ::std::sync::Arc<[#krate::ToolDefinition]> {
                ::std::sync::Arc::clone(&self.definitions)
            }

            fn source(&self, name: &str) -> ::core::option::Option<#krate::ToolSource> #source_body

            fn declared_name(
                &self,
                name: &str,
            ) -> ::core::option::Option<#krate::call::CallStr> #declared_body

            fn tool_view(
                &self,
                name: &str,
            ) -> ::core::option::Option<#krate::view::ToolView> #view_body

            #meta_fn

            #dispatch_fn
        }
    })
}

/// The agent-level hooks once more, for the chains of tools discovered
/// at run time (`Agent::call_dynamic` borrows them): the field and its
/// initializer, or nothing.
fn dynamic_hooks(spec: &AgentSpec, agent_hooks: &[Hook]) -> (TokenStream, TokenStream) {
    if agent_hooks.is_empty() || !spec.has_run_time_tools() {
        return (quote!(), quote!());
    }
    let tys = agent_hooks.iter().map(|h| &h.ty);
    let inits = agent_hooks.iter().map(|h| &h.init);
    (
        quote!(dynamic_hooks: (#(#tys,)*),),
        quote!(dynamic_hooks: (#(#inits,)*),),
    )
}

/// The tool-set struct: one field per tool (its chain), the dynamic hooks,
/// the definitions.
fn declaration(
    krate: &syn::Path,
    spec: &AgentSpec,
    vis: &syn::Visibility,
    parts: &ToolSetParts<'_>,
    fields: &[syn::Ident],
    bounds: &TokenStream,
    dynamic_field: &TokenStream,
) -> TokenStream {
    let tools_ty = parts.ty;
    let doc = format!(
        " The statically dispatched tools of the agent `{}`, each behind its chain of hooks.",
        spec.name
    );
    let chain_tys = parts.tools.iter().map(|t| &t.chain_ty);
    quote! {
        #[doc = #doc]
        // Each field's type is a whole chain: nested by design.
        #[allow(clippy::type_complexity)]
        #vis struct #tools_ty #bounds {
            #(#fields: #chain_tys,)*
            #dynamic_field
            definitions: ::std::sync::Arc<[#krate::ToolDefinition]>,
        }
    }
}

/// The tool set's inherent impl: `new`, and the perfect hash's `index_fn`.
struct ToolSetNew<'a> {
    fields: &'a [syn::Ident],
    bounds: &'a TokenStream,
    /// The dynamic hooks' initializer, or nothing.
    dynamic_init: &'a TokenStream,
    index_fn: &'a TokenStream,
}

impl ToolSetNew<'_> {
    fn tokens(
        &self,
        krate: &syn::Path,
        vis: &syn::Visibility,
        parts: &ToolSetParts<'_>,
    ) -> TokenStream {
        let ToolSetParts {
            ty: tools_ty,
            deps_ty,
            tools,
            ..
        } = *parts;
        let Self {
            fields,
            bounds,
            dynamic_init,
            index_fn,
        } = *self;
        let chain_inits = tools.iter().map(|t| &t.chain_init);
        let definition_exprs = tools.iter().zip(fields).map(|(t, f)| {
            let tool = tool_of(krate, t, quote!(this), f);
            quote!(#krate::Tool::definition(#tool))
        });
        quote! {
            // One line per tool: as long as the agent's list of tools.
            #[allow(clippy::too_many_lines)]
            impl #tools_ty #bounds {
                /// Builds every tool and its chain from the agent's dependencies;
                /// `config` is the agent's, whose options govern its calls of
                /// child agents.
                #[allow(unused_variables)]
                #vis fn new(deps: &#deps_ty, config: &#krate::agent::AgentConfig) -> Self {
                    let mut this = Self {
                        #(#fields: #chain_inits,)*
                        #dynamic_init
                        definitions: ::std::sync::Arc::new([]),
                    };
                    this.definitions = ::std::sync::Arc::from(::std::vec![#(#definition_exprs),*]);
                    this
                }

                #index_fn
            }
        }
    }
}

impl Lookup {
    /// The parts of a set without static tools: every name is unknown.
    fn empty(krate: &syn::Path) -> Self {
        let none = quote!({
            let _ = name;
            ::core::option::Option::None
        });
        Self {
            index_fn: quote!(),
            declared_body: none.clone(),
            source_body: none.clone(),
            view_body: none,
            meta_fn: quote!(),
            dispatch_fn: quote! {
                async fn dispatch(
                    &self,
                    _scope: &#krate::CallScope,
                    call: #krate::ToolCall,
                ) -> #krate::Outcome {
                    ::core::result::Result::Err(#krate::ToolError::UnknownTool {
                        name: call.name.into_string(),
                    })
                }
            },
        }
    }

    /// The parts of a set of `tools` (not empty) in `fields`, found by
    /// name through [`Dispatch`].
    fn new(krate: &syn::Path, tools: &[Lowered], fields: &[syn::Ident]) -> syn::Result<Self> {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        let ph = PerfectHash::try_build(&names).ok_or_else(|| {
            syn::Error::new(Span::call_site(), "duplicate tool names in one agent")
        })?;
        let dispatch = Dispatch::new(krate, &ph, tools.len());
        let declared_body = dispatch.by_name(tools, |i| {
            let name = &tools[i].name;
            quote!(::core::option::Option::Some(#krate::call::CallStr::from_static(#name)))
        });
        let source_body = dispatch.by_name(tools, |i| {
            let source = tool_source(krate, &tools[i], &fields[i]);
            quote!(::core::option::Option::Some(#source))
        });
        // What the loop's approval gate knows of each tool: its chain's
        // (the tool's type, through every layer).
        // An entry's own `available` / `instruction` join the tool's.
        let view_body = dispatch.by_name(tools, |i| {
            let f = &fields[i];
            match &tools[i].rules {
                None => quote!(#krate::Handler::tool_view(&self.#f)),
                Some(rules) => quote!(
                    #krate::Handler::tool_view(&self.#f).map(|view| view.with_rules(#rules))
                ),
            }
        });
        // What lifecycle hooks' `meta:` matchers read; only for a set with
        // a tool that may declare metadata.
        let meta_fn = if tools.iter().any(|t| t.meta.is_some()) {
            let body = dispatch.by_name(tools, |i| match &tools[i].meta {
                Some(m) => {
                    quote!(::core::option::Option::Some(#krate::matcher::ToolMeta::from_static(#m)))
                }
                None => quote!(::core::option::Option::None),
            });
            quote! {
                fn meta(&self, name: &str) -> #krate::matcher::ToolMeta {
                    let meta: ::core::option::Option<#krate::matcher::ToolMeta> = #body;
                    meta.unwrap_or_default()
                }
            }
        } else {
            quote!()
        };
        let dispatch_fn = dispatch_fn(krate, &dispatch, tools, fields);
        Ok(Self {
            index_fn: dispatch.index_fn,
            declared_body,
            source_body,
            view_body,
            meta_fn,
            dispatch_fn,
        })
    }
}

/// `dispatch(scope, call)`: one arm per tool, which builds the call's
/// context and runs the tool's chain, catching panics.
fn dispatch_fn(
    krate: &syn::Path,
    dispatch: &Dispatch,
    tools: &[Lowered],
    fields: &[syn::Ident],
) -> TokenStream {
    let arms = dispatch.order.iter().enumerate().map(|(slot, &i)| {
        let t = &tools[i];
        let f = &fields[i];
        let pattern = dispatch.pattern(slot, &t.name, quote!(&*call.name));
        let name = &t.name;
        let source = tool_source(krate, t, f);
        // The context is built with the tool's metadata in place.
        let context = match &t.meta {
            Some(m) => quote! {
                scope.context_with_meta(
                    #krate::call::CallStr::from_static(#name),
                    #source,
                    ::core::option::Option::None,
                    call.id,
                    #krate::matcher::ToolMeta::from_static(#m),
                )
            },
            None => quote! {
                scope.context(
                    #krate::call::CallStr::from_static(#name),
                    #source,
                    ::core::option::Option::None,
                    call.id,
                )
            },
        };
        // A function tool's context names its function (a child agent has
        // none).
        let function = (t.source != ToolSource::Agent).then(|| {
            let tool_ty = &t.tool_ty;
            quote! {
                cx.set_function(
                    <<#tool_ty as #krate::declare::ToolDecl>::Tool as #krate::Tool>::FUNCTION,
                );
            }
        });
        quote! {
            #pattern => {
                let mut cx = #context;
                #function
                #krate::hooks::catch_panics(&self.#f, &mut cx, call.arguments).await
            }
        }
    });
    let call_scrutinee = dispatch.scrutinee(quote!(call.name));
    quote! {
        async fn dispatch(
            &self,
            scope: &#krate::CallScope,
            call: #krate::ToolCall,
        ) -> #krate::Outcome {
            match #call_scrutinee {
                #(#arms)*
                _ => ::core::result::Result::Err(
                    #krate::ToolError::UnknownTool {
                        name: call.name.into_string(),
                    },
                ),
            }
        }
    }
}

/// The tool of `t` in field `f` of `receiver` (`self`, or the `this` of
/// `new`), as a reference: `<T as ToolDecl>::tool` of its chain's handler,
/// reached through every layer (`.inner()` already gives a reference).
fn tool_of(krate: &syn::Path, t: &Lowered, receiver: TokenStream, f: &syn::Ident) -> TokenStream {
    let inners = (0..t.depth).map(|_| quote!(.inner()));
    let ty = &t.tool_ty;
    let handler = if t.depth == 0 {
        quote!(&#receiver.#f)
    } else {
        quote!(#receiver.#f #(#inners)*)
    };
    quote!(<#ty as #krate::declare::ToolDecl>::tool(#handler))
}

/// The source of tool `t` in field `f`, as its `Tool::source()` says (a
/// child agent's is always `agent`).
fn tool_source(krate: &syn::Path, t: &Lowered, f: &syn::Ident) -> TokenStream {
    if t.source == ToolSource::Agent {
        return source_tokens(krate, t.source);
    }
    let tool = tool_of(krate, t, quote!(self), f);
    quote!(#krate::Tool::source(#tool))
}
