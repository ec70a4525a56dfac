//! Reading parameter and return types: wrappers, references, generics.

use super::*;

pub(super) fn plain(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => plain(&g.elem),
        Type::Paren(p) => plain(&p.elem),
        other => other,
    }
}

/// The last path segment's name of a type, if it is a plain path.
pub(super) fn last_ident(ty: &Type) -> Option<&syn::PathSegment> {
    match plain(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// Rust's scalar types, by name: what hooks' and tools' rules name
/// together (tool return types, error types, never a tool's arguments).
pub(crate) const SCALARS: &[&str] = &[
    "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "f32", "f64",
];

pub(super) fn is_named(ty: &Type, name: &str) -> bool {
    last_ident(ty).is_some_and(|s| s.ident == name)
}

/// `Option<T>` (or `std::option::Option<T>`): the `T`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    wrapped(ty, "Option")
}

/// `Dep<T>` (or `hookwire::Dep<T>`): the `T`.
pub(crate) fn dep_inner(ty: &Type) -> Option<&Type> {
    wrapped(ty, "Dep")
}

/// `ArgsOf<T>` (or `hookwire::declare::ArgsOf<T>`): the `T`, the tool whose
/// arguments a typed hook takes.
pub(crate) fn args_of_inner(ty: &Type) -> Option<&Type> {
    wrapped(ty, "ArgsOf")
}

/// `Name<T>` (by the last path segment): the `T`.
pub(super) fn wrapped<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let seg = last_ident(ty)?;
    if seg.ident != name {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
            Some(GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The generic type arguments of the last segment.
pub(super) fn type_args(ty: &Type) -> Vec<&Type> {
    match last_ident(ty).map(|s| &s.arguments) {
        Some(PathArguments::AngleBracketed(a)) => a
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) fn is_unit(ty: &Type) -> bool {
    matches!(plain(ty), Type::Tuple(t) if t.elems.is_empty())
}

/// `&mut X` / `&X`: (is mut, X).
pub(super) fn reference(ty: &Type) -> Option<(bool, &Type)> {
    match plain(ty) {
        Type::Reference(r) => Some((r.mutability.is_some(), &r.elem)),
        _ => None,
    }
}

pub(crate) fn show(tokens: &impl ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    // `& mut ToolContext` -> `&mut ToolContext`, `Next < '_ >` -> `Next<'_>`.
    text.replace("& mut ", "&mut ")
        .replace("& ", "&")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace("' _", "'_")
}
