//! The `AgentConfig` builder calls of the settings (the rows of the
//! settings table, [`for_each_setting!`](crate::spec::for_each_setting)),
//! each argument written by its kind.

use super::*;
use crate::spec::{SettingKind, Settings, Spelled, kind};

/// Where a setting's argument is written: the path of `hookwire`, the
/// key (for messages) and the span a value the runtime cannot hold is
/// reported at.
struct Site<'a> {
    krate: &'a syn::Path,
    key: &'static str,
    span: Span,
}

/// How generated code passes a value of a setting kind to its builder.
trait EmitSetting: SettingKind {
    /// The builder's argument for `value`, or `None` when it is not set
    /// (the runtime's default stands).
    fn argument(value: &Self::Value, at: &Site<'_>) -> syn::Result<Option<TokenStream>>;
}

impl EmitSetting for kind::Count {
    fn argument(value: &Self::Value, at: &Site<'_>) -> syn::Result<Option<TokenStream>> {
        let n = value.map(|n| usize_lit(n, at.key, at.span)).transpose()?;
        Ok(n.map(|n| quote!(#n)))
    }
}

impl EmitSetting for kind::Seconds {
    fn argument(value: &Self::Value, _: &Site<'_>) -> syn::Result<Option<TokenStream>> {
        let secs = value.map(Literal::u64_suffixed);
        Ok(secs.map(|secs| quote!(::core::time::Duration::from_secs(#secs))))
    }
}

impl EmitSetting for kind::Text {
    fn argument(value: &Self::Value, _: &Site<'_>) -> syn::Result<Option<TokenStream>> {
        let text = value.as_deref().map(str_lit);
        Ok(text.map(|text| quote!(#text)))
    }
}

impl EmitSetting for kind::Bool {
    fn argument(value: &Self::Value, _: &Site<'_>) -> syn::Result<Option<TokenStream>> {
        Ok(value.map(|yes| quote!(#yes)))
    }
}

impl<T: Spelled + Default> EmitSetting for kind::Choice<T> {
    fn argument(value: &Self::Value, at: &Site<'_>) -> syn::Result<Option<TokenStream>> {
        if *value == T::default() {
            return Ok(None);
        }
        // The runtime re-exports the vocabulary under `agent`.
        let krate = at.krate;
        let ty = format_ident!("{}", T::TYPE_NAME);
        let variant = format_ident!("{}", value.variant());
        Ok(Some(quote!(#krate::agent::#ty::#variant)))
    }
}

macro_rules! setting_calls {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        /// The `.with_*(..)` call of every setting `settings` gives, in the
        /// table's order (`span`: where a value the runtime cannot hold is
        /// reported).
        pub(super) fn setting_calls(
            krate: &syn::Path,
            settings: &Settings,
            span: Span,
        ) -> syn::Result<Vec<TokenStream>> {
            let mut calls = Vec::new();
            $(
                let at = Site { krate, key: stringify!($key), span };
                let value = &settings.$key;
                let argument = <kind::$kind $(<$param>)? as EmitSetting>::argument(value, &at)?;
                if let Some(argument) = argument {
                    calls.push(quote!(.$builder(#argument)));
                }
            )*
            Ok(calls)
        }
    };
}

hookwire_spec::for_each_setting!(setting_calls);
