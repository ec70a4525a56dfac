//! The one lowering from Rust functions to hookwire tools and hooks, shared
//! by the `#[tool]`/`#[hook]` macros and by `cardgen` (for the functions a
//! card references as `file.rs:function`).
//!
//! * [`classify_hook`] and [`check_tool`]: what the runtime accepts, as
//!   signature rules on `syn` trees. Each error is spanned on the offending
//!   token and its first line says what is wrong and the expected signature.
//! * [`tool()`]: a function to a `Tool` impl (a generated argument struct
//!   with serde and schemars derives, reached through hookwire's
//!   re-exports); with its own hooks, an approval rule or an error mapping,
//!   to a `ToolDecl` impl whose handler is the tool's own chain.
//! * [`hook()`]: a function to a zero-sized hook type that implements
//!   `Hook` (pre and post hooks through `Pre`/`Post`), with an optional
//!   matcher, failure policy and timeout.
//!
//! Everything here works on `proc_macro2` tokens, so it runs inside a proc
//! macro and in a build script alike.
//!
//! ```
//! use hookwire_codegen::lower::{self, HookOptions, ToolOptions};
//!
//! let f: syn::ItemFn = syn::parse_quote! {
//!     /// Adds two numbers.
//!     fn add(a: i64, b: i64) -> hookwire::Json<i64> { hookwire::Json(a + b) }
//! };
//! let tokens = lower::tool(&f, &ToolOptions::new(syn::parse_quote!(::hookwire))).unwrap();
//! assert!(tokens.to_string().contains("impl :: hookwire :: Tool for add"));
//!
//! let h: syn::ItemFn = syn::parse_quote! {
//!     async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
//!         next.run(cx, args).await
//!     }
//! };
//! let tokens = lower::hook(&h, &HookOptions::new(syn::parse_quote!(::hookwire))).unwrap();
//! assert!(tokens.to_string().contains("impl :: hookwire :: Hook for audit"));
//! ```

mod hook;
mod meta;
mod own_chain;
mod signature;
mod tool;

pub use hook::hook;
pub use meta::{meta_slice, parse_meta, tool_meta};
pub use own_chain::{own_chain_summary, own_policy};
pub(crate) use signature::show as show_type;
pub use signature::{HookKind, TOOL_EXPECTED, check_tool, classify_hook, expected_signature};
pub(crate) use signature::{HookSig, SCALARS, TypedArgs, check_hook};
pub(crate) use signature::{ToolParam, option_inner as option_type, tool_params};
pub(crate) use signature::{args_of_inner, dep_inner, reject_cfg_params};
pub use tool::tool;

use proc_macro2::Span;

use crate::spec::FailurePolicy;

/// What to generate for a tool function.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolOptions {
    /// The path of the `hookwire` crate in the generated code
    /// (`::hookwire`, or wherever the user renamed it).
    pub crate_path: syn::Path,
    /// The tool's name; defaults to the function's name.
    pub name: Option<syn::LitStr>,
    /// The description; defaults to the doc comment.
    pub description: Option<syn::LitStr>,
    /// Strict mode: the schema requires every field and allows no other, and
    /// an `Option` parameter is a compile error.
    pub strict: bool,
    /// Where the generated code calls the function. `None` (the macros):
    /// the function is consumed and its body moves into the generated type,
    /// which keeps the function's name. `Some(path)` (cardgen): the function
    /// stays where it is and is called through `path`.
    pub fn_path: Option<syn::Path>,
    /// The name of the generated type; defaults to the function's name.
    pub type_ident: Option<syn::Ident>,
    /// How the tool's context names the function behind it
    /// (`Tool::FUNCTION`); `None`: `module::path::function`, the module
    /// where the macro is (cardgen gives the card's `file.rs:function`).
    pub function: Option<String>,
    /// The tool's own hooks (`tool_hooks = [..]`), outermost first: every agent
    /// that lists the tool runs them innermost, just around the tool.
    pub hooks: Vec<crate::spec::HookRef>,
    /// When a call needs approval (`needs_approval`).
    pub needs_approval: Option<NeedsApproval>,
    /// A function that maps the tool's error to what the model reads
    /// (`on_error = path`): `fn(ToolError) -> R` where `R: IntoOutcome`.
    pub on_error: Option<syn::Path>,
    /// What the approver is shown besides the arguments
    /// (`approval_metadata = path`): `fn(&ArgsOf<tool>) -> serde_json::Value`.
    pub approval_metadata: Option<syn::Path>,
    /// Whether the tool is offered in a step (`available = path`): a
    /// `fn(&StepView) -> bool`.
    pub available: Option<syn::Path>,
    /// What the tool adds to the system prompt (`instruction = ..`).
    pub instruction: Option<Instruction>,
    /// The metadata it declares (`meta(risk = "high", destructive)`): its
    /// `Tool::META`, which `meta:` matchers select.
    pub meta: Vec<(String, String)>,
}

/// A tool's instruction, as written in `#[tool(instruction = ..)]`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Instruction {
    /// `instruction = "text"`: the same text in every step.
    Text(syn::LitStr),
    /// `instruction = path`: a `fn(&StepView) -> String`, asked each step.
    Fn(syn::Path),
}

/// When a tool's calls need approval, as written in `#[tool(needs_approval)]`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum NeedsApproval {
    /// `needs_approval`: every call.
    Always(Span),
    /// `needs_approval = path`: the calls for which `path(&args)` is true;
    /// arguments that do not parse always need approval.
    When(syn::Path),
}

impl ToolOptions {
    /// Defaults for a tool whose code reaches hookwire at `crate_path`.
    pub fn new(crate_path: syn::Path) -> Self {
        Self {
            crate_path,
            name: None,
            description: None,
            strict: false,
            fn_path: None,
            type_ident: None,
            function: None,
            hooks: Vec::new(),
            needs_approval: None,
            on_error: None,
            approval_metadata: None,
            available: None,
            instruction: None,
            meta: Vec::new(),
        }
    }

    /// Whether the tool carries anything of its own (hooks, an approval
    /// rule, an error mapping): then its type implements `ToolDecl` with
    /// its own chain instead of `Tool`.
    pub fn has_own_chain(&self) -> bool {
        !self.hooks.is_empty() || self.needs_approval.is_some() || self.on_error.is_some()
    }
}

/// What to generate for a hook function.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HookOptions {
    /// The path of the `hookwire` crate in the generated code.
    pub crate_path: syn::Path,
    /// The tools the hook applies to (matcher syntax); checked here, and
    /// evaluated at run time by the hook itself. `None`: every tool.
    pub matcher: Option<syn::LitStr>,
    /// The failure policy.
    pub on_failure: FailurePolicy,
    /// A timeout for the hook (and, for an around hook, everything inside
    /// it), in milliseconds; must be positive.
    pub timeout_ms: Option<(u64, Span)>,
    /// The name used in traces and error results; defaults to the
    /// function's name.
    pub name: Option<String>,
    /// Where the generated code calls the function; see
    /// [`ToolOptions::fn_path`].
    pub fn_path: Option<syn::Path>,
    /// The name of the generated type; defaults to the function's name.
    pub type_ident: Option<syn::Ident>,
}

impl HookOptions {
    /// Defaults for a hook whose code reaches hookwire at `crate_path`.
    pub fn new(crate_path: syn::Path) -> Self {
        Self {
            crate_path,
            matcher: None,
            on_failure: FailurePolicy::FailClosed,
            timeout_ms: None,
            name: None,
            fn_path: None,
            type_ident: None,
        }
    }
}

/// The identifier as text, without a raw `r#` prefix.
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// A path as the string serde and schemars want in `crate = "..."`.
pub(crate) fn path_string(path: &syn::Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}
