//! [`Settings`]: the settings of a declaration, one field per row of the
//! settings table ([`for_each_setting!`](crate::spec::for_each_setting)),
//! and their rules.

use super::check::{SpecError, SpecField};
use crate::spec::{SettingKind, kind};

/// The value a declaration holds for a setting of each kind (the same
/// type as its [`SettingKind::Value`], which the compiler checks where the
/// front ends assign it): written out so that the fields' docs show it.
macro_rules! spec_value {
    (Count) => { Option<u64> };
    (Seconds) => { Option<u64> };
    (Text) => { Option<String> };
    (Bool) => { Option<bool> };
    (Choice<$t:ty>) => { $t };
}

macro_rules! settings {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        /// The settings of a declaration: the keys that hold one plain
        /// value (a card's `max_parallel: 4`, `#[agent(max_parallel = 4)]`),
        /// one field per row of the settings table
        /// ([`for_each_setting!`](crate::spec::for_each_setting)), each
        /// `None` (or the vocabulary's default) when not written.
        #[derive(Debug, Clone, Default, PartialEq)]
        #[non_exhaustive]
        pub struct Settings {
            $(
                #[doc = $doc]
                #[doc = ""]
                #[doc = concat!(
                    "Written `", stringify!($key), ": ", stringify!($example),
                    "`; sets `AgentConfig::", stringify!($field), "`."
                )]
                pub $key: spec_value!($kind $(<$param>)?),
            )*
        }

        impl Settings {
            /// The settings' rules (numbers that must be positive), in the
            /// table's order.
            pub(super) fn check(&self, out: &mut Vec<SpecError>) {
                $(
                    let value = &self.$key;
                    let checked = <kind::$kind $(<$param>)? as SettingKind>::check(stringify!($key), value);
                    if let Err(message) = checked {
                        out.push(SpecError::new(SpecField::Setting(stringify!($key)), message));
                    }
                )*
            }
        }
    };
}

hookwire_spec::for_each_setting!(settings);
