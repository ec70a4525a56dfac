//! The files made once for all cards of a build: the module of the shared
//! Rust references and the module file that declares every card's module.

use super::*;

/// The files made once for all cards: [`RUST_REFS_FILE`] (if any card
/// references Rust code), then [`MODULE_FILE`].
pub(super) fn shared_files(
    cards: &Cards,
    opts: &BuildOptions,
) -> Result<Vec<GeneratedFile>, Vec<Diagnostic>> {
    let mut files = Vec::with_capacity(2);
    if !cards.shared.files.is_empty() {
        files.push(rust_refs_file(cards, opts)?);
    }
    files.push(module_file(cards, opts)?);
    Ok(files)
}

/// [`RUST_REFS_FILE`]: each referenced file as a module, then each adapter.
fn rust_refs_file(cards: &Cards, opts: &BuildOptions) -> Result<GeneratedFile, Vec<Diagnostic>> {
    let out = absolute(&opts.out_dir);
    let mods = cards.shared.files.iter().map(|(path, module)| {
        let path_key = path;
        let path = if opts.absolute_paths {
            path.display().to_string()
        } else {
            relative(&out, path)
        };
        let m = format_ident!("{}", module);
        // The cards' modules (siblings of this one) use it for their
        // lifecycle hooks; the functions adapters do not call are unused.
        // The user's crate may include the same file as a module of its own
        // (its tools, called from Rust too), which clippy's `duplicate_mod`
        // would reject. A `deps:` file is public: the cards' modules
        // re-export it, for the users who build the agents.
        let vis = if cards.shared.deps_files.contains(path_key) {
            quote!(pub)
        } else {
            quote!(pub(super))
        };
        quote! {
            #[path = #path]
            #[allow(dead_code, clippy::duplicate_mod)]
            #vis mod #m;
        }
    });
    let mods = format_items(quote!(#(#mods)*)).map_err(|e| {
        vec![Diagnostic::new(
            &cards.root,
            None,
            1,
            1,
            1,
            format!("cannot generate code: {e}"),
        )]
    })?;
    let mut text = format!("{HEADER}. Do not edit.\n\n");
    text.reserve(
        mods.len()
            + cards
                .shared
                .adapters
                .iter()
                .map(|a| a.code.len())
                .sum::<usize>(),
    );
    text.push_str(&mods);
    for a in &cards.shared.adapters {
        text.push_str(&a.code);
    }
    Ok(GeneratedFile {
        name: RUST_REFS_FILE.to_owned(),
        content: text,
    })
}

/// `mod.rs`: the shared references' module, then one module per card.
/// Built with `quote!` like every other file: the card's file name reaches
/// it only as the text of a doc attribute.
fn module_file(cards: &Cards, opts: &BuildOptions) -> Result<GeneratedFile, Vec<Diagnostic>> {
    let out = absolute(&opts.out_dir);
    let path_attr = |file: &str| {
        opts.absolute_paths.then(|| {
            let p = out.join(file).display().to_string();
            quote!(#[path = #p])
        })
    };
    let refs = (!cards.shared.files.is_empty()).then(|| {
        let path = path_attr(RUST_REFS_FILE);
        let m = format_ident!("{}", RUST_REFS_MODULE);
        quote! {
            /// The Rust files the cards reference and the adapters of their functions.
            #[doc(hidden)]
            #path
            pub mod #m;
        }
    });
    let agents = cards.cards.iter().map(|card| {
        let file_name = card
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let doc = format!(
            " The agent `{}`, from `{}`.",
            card.spec.name,
            text::comment_text(&file_name, true)
        );
        let path = path_attr(&format!("{}.rs", card.module));
        let m = format_ident!("{}", card.module);
        let ty = format_ident!("{}", card.type_name);
        let tools = format_ident!("{}Tools", card.type_name);
        quote! {
            #[doc = #doc]
            #path
            pub mod #m;
            #[allow(unused_imports)]
            pub use #m::{#ty, #tools};
        }
    });
    // The card marked `default: true`, built by `default()`: from the
    // dependencies when it has them, as its own `new` is.
    let default = cards.default_agent().map(|card| {
        let m = format_ident!("{}", card.module);
        let ty = format_ident!("{}", card.type_name);
        let doc = format!(
            " Builds the default agent of this set, `{}` (its card says `default: true`).",
            card.spec.name
        );
        let name = &card.spec.name;
        let build = match card.spec.deps.as_deref().map(syn::parse_str::<syn::Path>) {
            Some(Ok(deps)) => quote! {
                pub fn default(deps: &#m::#deps) -> #ty {
                    #ty::new(deps)
                }
            },
            _ => quote! {
                pub fn default() -> #ty {
                    #ty::new()
                }
            },
        };
        quote! {
            /// The name of the default agent of this set.
            pub const DEFAULT_AGENT: &str = #name;
            #[doc = #doc]
            #build
        }
    });
    // The argument types of the lock's MCP tools, once for every card
    // (each card's agent names them as `super::mcp_types`).
    let mcp = cards
        .cards
        .iter()
        .find_map(|card| card.spec.mcp_lock.as_deref())
        .and_then(|lock| {
            emit::mcp_types_module(&syn::parse_quote!(::hookwire), lock, MCP_TYPES_MODULE)
        });
    let items = format_items(quote!(#refs #(#agents)* #default #mcp)).map_err(|e| {
        vec![Diagnostic::new(
            &cards.root,
            None,
            1,
            1,
            1,
            format!("cannot generate code: {e}"),
        )]
    })?;
    Ok(GeneratedFile {
        name: MODULE_FILE.to_owned(),
        content: format!("{HEADER}. Do not edit.\n\n{items}"),
    })
}
