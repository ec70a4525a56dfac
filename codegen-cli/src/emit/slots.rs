//! Slots (see `hookwire::__private::slot`): the marker type of a hook or
//! child agent and its impls, which name the user's type, build it and
//! check it on the user's path.

use super::*;

/// The marker type of a slot: `prefix`, then the last segment of the
/// user's type (`Audit` in `crate::hooks::Audit`), for readable chain types.
pub(super) fn marker_ident(prefix: &str, ty: &syn::Type) -> syn::Ident {
    let last = match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string().trim_start_matches("r#").to_owned()),
        _ => None,
    };
    match last {
        Some(last) => format_ident!("{}_{}", prefix, last),
        None => format_ident!("{}", prefix),
    }
}

/// What a slot holds, for [`slot_items`].
pub(super) enum SlotKind {
    /// A hook of that kind (`AroundSlot`, `PreSlot`, `PostSlot`).
    Hook(HookKind),
    /// Lifecycle hooks (`LifecycleSlot`).
    Lifecycle,
    /// A child agent (`AgentSlot`, whose `type Agent` bound is the check).
    Agent,
}

/// One slot (see `hookwire::__private::slot`): its marker, the user's type
/// and where it was written.
pub(super) struct SlotItems<'a> {
    pub(super) marker: &'a syn::Ident,
    pub(super) vis: Option<&'a syn::Visibility>,
    pub(super) ty: &'a syn::Type,
    pub(super) deps_ty: &'a TokenStream,
    pub(super) span: Span,
    pub(super) slot: SlotKind,
    /// An expression that builds the value, instead of `Build`.
    pub(super) init: Option<TokenStream>,
}

/// The items of one slot: the marker type and its impls, which name the
/// user's type, build it (through `Build`, which asks a type to be
/// buildable only if it is of the slot's kind) and check it, every check
/// spanned on the user's path, so that rustc reports it there.
pub(super) fn slot_items(krate: &syn::Path, s: &SlotItems<'_>) -> TokenStream {
    let slot = quote!(#krate::__private::slot);
    let SlotItems {
        marker,
        vis,
        ty,
        deps_ty,
        span,
        ..
    } = *s;
    // The slot trait and its associated type, the `kind` marker and branch
    // of `Build`, and the kind trait whose bound is the check (for a child,
    // `AgentSlot`'s own bound is).
    let (slot_trait, assoc, kind, branch, kind_trait) = match s.slot {
        SlotKind::Hook(HookKind::Around) => (
            quote!(Slot),
            quote!(Hook),
            quote!(Around),
            quote!(BuildKind),
            Some(quote!(AroundSlot)),
        ),
        SlotKind::Hook(HookKind::Pre) => (
            quote!(Slot),
            quote!(Hook),
            quote!(Pre),
            quote!(BuildKind),
            Some(quote!(PreSlot)),
        ),
        SlotKind::Hook(HookKind::Post) => (
            quote!(Slot),
            quote!(Hook),
            quote!(Post),
            quote!(BuildKind),
            Some(quote!(PostSlot)),
        ),
        SlotKind::Lifecycle => (
            quote!(Slot),
            quote!(Hook),
            quote!(Lifecycle),
            quote!(BuildLifecycle),
            Some(quote!(LifecycleSlot)),
        ),
        SlotKind::Agent => (
            quote!(AgentSlot),
            quote!(Agent),
            quote!(Agent),
            quote!(BuildChild),
            None,
        ),
    };
    let kind_impl = kind_trait.map(|t| bound(span, quote!(impl #slot::#t for #marker {})));
    let build = match &s.init {
        Some(init) => init.clone(),
        None => bound(
            span,
            // `Self::Hook`, not the user's path again: a path that is no
            // type (a function not marked `#[hookwire::hook]`) is then one
            // error, where it is named.
            quote!((&#slot::Build::<Self::#assoc, #deps_ty, #slot::kind::#kind>::new()).build(deps)),
        ),
    };
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #marker;

        impl #slot::#slot_trait for #marker {
            type Deps = #deps_ty;
            type #assoc = #ty;

            #[inline]
            // The borrow picks the branch of `Build` (see its docs).
            #[allow(unused_variables, clippy::needless_borrow)]
            fn build(deps: &#deps_ty) -> Self::#assoc {
                #[allow(unused_imports)]
                use #slot::{#branch as _, BuildNotAHook as _};
                #build
            }
        }

        #kind_impl
    }
}
