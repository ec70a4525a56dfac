//! The agent type's own items: its declaration, constructor, `FromDeps`
//! (and `Default`), `Debug`, `TypedAgent` and the `Agent` impl. Each
//! function gives the tokens of one named part of the output.

use super::*;

/// What the agent type's items are made of.
pub(super) struct AgentItems<'a> {
    pub(super) krate: &'a syn::Path,
    pub(super) spec: &'a AgentSpec,
    pub(super) opts: &'a EmitOptions,
    pub(super) agent_ty: &'a syn::Ident,
    pub(super) tools_ty: &'a syn::Ident,
    pub(super) deps_ty: &'a syn::Type,
    /// The `where` clause of the tool checks, on every item.
    pub(super) bounds: &'a TokenStream,
}

impl AgentItems<'_> {
    /// The agent type's attributes: a doc comment from the spec (cards), or
    /// the user's (`#[agent]`).
    fn attrs(&self) -> TokenStream {
        if self.opts.declare_agent_type {
            let doc = format!(" The agent `{}`.", self.spec.name);
            let extra = match &self.spec.description {
                Some(d) => {
                    let d = format!(" {d}");
                    quote!(#[doc = ""] #[doc = #d])
                }
                None => quote!(),
            };
            quote! {
                #[doc = #doc]
                #extra
            }
        } else {
            let attrs = &self.opts.agent_attrs;
            quote!(#(#attrs)*)
        }
    }

    /// The agent type. The agent is a value: it owns its tool set (each
    /// tool behind its chain, child agents built once) and its
    /// configuration. Nothing of it lives in a `static`.
    pub(super) fn declaration(&self) -> TokenStream {
        let Self {
            krate,
            agent_ty,
            tools_ty,
            bounds,
            ..
        } = *self;
        let attrs = self.attrs();
        let vis = &self.opts.vis;
        quote! {
            #attrs
            #vis struct #agent_ty #bounds {
                tools: #tools_ty,
                config: #krate::agent::AgentConfig,
            }
        }
    }

    /// Cards get a `Debug` impl; a macro user derives it if they want it.
    pub(super) fn debug_impl(&self) -> TokenStream {
        let Self {
            agent_ty, bounds, ..
        } = *self;
        if !self.opts.declare_agent_type {
            return quote!();
        }
        quote! {
            impl ::core::fmt::Debug for #agent_ty #bounds {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(::core::stringify!(#agent_ty))
                        .field("name", &self.config.name)
                        .field("tools", &self.tools)
                        .finish()
                }
            }
        }
    }

    /// `new`, which builds the configuration `config` (an expression) and
    /// the tool set: from the dependencies, or from none.
    pub(super) fn constructor(&self, config: &TokenStream) -> TokenStream {
        let Self {
            tools_ty, deps_ty, ..
        } = *self;
        let vis = &self.opts.vis;
        let new_doc = format!(
            " Builds the agent `{}`: every tool, hook and child agent, from the dependencies. Share the value (an `Arc`) between sessions: each `Runner` is one.",
            self.spec.name
        );
        if self.spec.deps.is_some() {
            quote! {
                #[doc = #new_doc]
                #vis fn new(deps: &#deps_ty) -> Self {
                    let config = #config;
                    let tools = #tools_ty::new(deps, &config);
                    Self { tools, config }
                }
            }
        } else {
            quote! {
                #[doc = #new_doc]
                #vis fn new() -> Self {
                    let config = #config;
                    let tools = #tools_ty::new(&(), &config);
                    Self { tools, config }
                }
            }
        }
    }

    /// `impl FromDeps` through `new`: from a `FromRef` of the dependency
    /// type, or from anything (then with `Default` too).
    pub(super) fn deps_impls(&self) -> TokenStream {
        let Self {
            krate,
            agent_ty,
            deps_ty,
            bounds,
            ..
        } = *self;
        if self.spec.deps.is_some() {
            quote! {
                impl<__D> #krate::FromDeps<__D> for #agent_ty
                #bounds
                    #deps_ty: #krate::deps::FromRef<__D>,
                {
                    fn from_deps(deps: &__D) -> Self {
                        Self::new(&<#deps_ty as #krate::deps::FromRef<__D>>::from_ref(deps))
                    }
                }
            }
        } else {
            quote! {
                impl<__D> #krate::FromDeps<__D> for #agent_ty #bounds {
                    fn from_deps(_: &__D) -> Self {
                        Self::new()
                    }
                }

                impl ::core::default::Default for #agent_ty #bounds {
                    fn default() -> Self {
                        Self::new()
                    }
                }
            }
        }
    }

    /// An agent with an output type answers `Runner::run_output` with it.
    pub(super) fn typed_impl(&self) -> syn::Result<TokenStream> {
        let Self {
            krate,
            agent_ty,
            bounds,
            ..
        } = *self;
        Ok(match &self.spec.output_type {
            Some(ty) => {
                let path = fn_path(ty, "output type")?;
                let at = ty.span.unwrap_or_else(Span::call_site);
                quote::quote_spanned! {at=>
                    impl #krate::agent::TypedAgent for #agent_ty #bounds {
                        type Output = #path;
                    }
                }
            }
            None => quote!(),
        })
    }

    /// `impl Agent` (its body's run-time parts given, each an item of the
    /// impl) and `impl GeneratedAgent` (with `generated`, its items
    /// besides the name).
    pub(super) fn agent_impl(&self, body: &[TokenStream], generated: &TokenStream) -> TokenStream {
        let Self {
            krate,
            spec,
            agent_ty,
            tools_ty,
            bounds,
            ..
        } = *self;
        let agent_name_lit = str_lit(&spec.name);
        let durable_name = str_lit(
            &spec
                .durable_name
                .clone()
                .unwrap_or_else(|| crate::spec::derived_durable_name(&spec.name)),
        );
        quote! {
            // One entry per tool and hook: as long as the declaration.
            #[allow(clippy::too_many_lines)]
            impl #krate::agent::Agent for #agent_ty #bounds {
                type Tools = #tools_ty;

                const DURABLE_NAME: #krate::agent::DurableName =
                    #krate::agent::DurableName::new(#durable_name);

                fn config(&self) -> &#krate::agent::AgentConfig {
                    &self.config
                }

                fn tools(&self) -> &#tools_ty {
                    &self.tools
                }

                #(#body)*
            }

            impl #krate::declare::GeneratedAgent for #agent_ty #bounds {
                const NAME: &'static str = #agent_name_lit;

                #generated
            }
        }
    }
}
