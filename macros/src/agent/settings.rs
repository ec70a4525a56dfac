//! `#[agent(...)]`'s settings (the rows of the settings table,
//! `hookwire_spec::for_each_setting!`): a key per row, each lowered by its
//! kind, with the kind's checks and messages, on the offending literal.

use darling::FromMeta;
use hookwire_codegen::spec::{SettingKind, Settings, Spelled, kind};

use super::spec::Errors;
use crate::keys::{positive, unknown_value};

/// How `#[agent(...)]` writes a value of a setting kind.
trait AttrSetting: SettingKind {
    /// What the attribute holds (`None`, or the default, when the key is
    /// not given).
    type Attr: FromMeta + Default + std::fmt::Debug;

    /// The value of the key `key`, or the error on its literal (with
    /// `example`, the table's value, in the hint).
    fn lower(attr: &Self::Attr, key: &str, example: &str) -> syn::Result<Self::Value>;
}

/// The positive whole numbers.
macro_rules! positive_kinds {
    ($($kind:ident),*) => {$(
        impl AttrSetting for kind::$kind {
            type Attr = Option<syn::Lit>;

            fn lower(attr: &Self::Attr, key: &str, example: &str) -> syn::Result<Self::Value> {
                attr.as_ref().map(|l| positive(l, key, example)).transpose()
            }
        }
    )*};
}

positive_kinds!(Count, Seconds);

impl AttrSetting for kind::Text {
    type Attr = Option<syn::LitStr>;

    /// Taken as written, but for a text with a grammar of its own (a
    /// model string), checked as a card checks it.
    fn lower(attr: &Self::Attr, key: &str, _example: &str) -> syn::Result<Self::Value> {
        attr.as_ref()
            .map(|lit| {
                let value = lit.value();
                hookwire_codegen::spec::check_text_setting(key, &value)
                    .map_err(|message| syn::Error::new(lit.span(), message))?;
                Ok(value)
            })
            .transpose()
    }
}

impl AttrSetting for kind::Bool {
    type Attr = Option<bool>;

    fn lower(attr: &Self::Attr, _key: &str, _example: &str) -> syn::Result<Self::Value> {
        Ok(*attr)
    }
}

impl<T: Spelled + Default> AttrSetting for kind::Choice<T> {
    type Attr = Option<syn::LitStr>;

    fn lower(attr: &Self::Attr, key: &str, _example: &str) -> syn::Result<Self::Value> {
        match attr {
            Some(lit) => T::from_str(&lit.value()).map_err(|e| unknown_value(lit, key, &e)),
            None => Ok(T::default()),
        }
    }
}

macro_rules! settings_attr {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        /// The settings of `#[agent(...)]`, a key per row of the table
        /// (flattened into `AgentAttr`).
        #[derive(Debug, Default, FromMeta)]
        pub(super) struct SettingsAttr {
            $(
                #[darling(default)]
                $key: <kind::$kind $(<$param>)? as AttrSetting>::Attr,
            )*
        }

        impl SettingsAttr {
            /// The settings given into `settings`, in the table's order,
            /// each mistake into `errors`.
            pub(super) fn lower(&self, settings: &mut Settings, errors: &mut Errors) {
                $(
                    let lowered = <kind::$kind $(<$param>)? as AttrSetting>::lower(
                        &self.$key,
                        stringify!($key),
                        stringify!($example),
                    );
                    match lowered {
                        Ok(value) => settings.$key = value,
                        Err(e) => errors.push(e),
                    }
                )*
            }
        }
    };
}

hookwire_codegen::spec::for_each_setting!(settings_attr);
