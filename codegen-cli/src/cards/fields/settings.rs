//! A card's settings (the rows of the settings table,
//! [`for_each_setting!`](crate::spec::for_each_setting)): each read by its
//! kind, with the kind's checks and messages.

use super::*;
use crate::spec::{SettingKind, Settings, Spelled, kind};

/// How a card writes a value of a setting kind.
trait CardSetting: SettingKind {
    /// The value of the field `key` (at `p`), each mistake a diagnostic
    /// (the value is then the default: the card is refused anyway).
    fn read(cx: &mut Ctx<'_>, p: &[Seg<'_>], key: &str, v: &Yaml) -> Self::Value;
}

/// The positive whole numbers.
macro_rules! positive_kinds {
    ($($kind:ident),*) => {$(
        impl CardSetting for kind::$kind {
            fn read(cx: &mut Ctx<'_>, p: &[Seg<'_>], key: &str, v: &Yaml) -> Self::Value {
                cx.positive(p, key, v)
            }
        }
    )*};
}

positive_kinds!(Count, Seconds);

impl CardSetting for kind::Text {
    fn read(cx: &mut Ctx<'_>, p: &[Seg<'_>], key: &str, v: &Yaml) -> Self::Value {
        let text = cx.nonempty(p, key, v)?;
        if let Err(message) = crate::spec::check_text_setting(key, &text) {
            cx.err(p, true, message, None);
            return None;
        }
        Some(text)
    }
}

impl CardSetting for kind::Bool {
    fn read(cx: &mut Ctx<'_>, p: &[Seg<'_>], key: &str, v: &Yaml) -> Self::Value {
        cx.boolean(p, key, v)
    }
}

impl<T: Spelled + Default> CardSetting for kind::Choice<T> {
    fn read(cx: &mut Ctx<'_>, p: &[Seg<'_>], key: &str, v: &Yaml) -> Self::Value {
        cx.choice(p, key, v, T::SPELLINGS).unwrap_or_default()
    }
}

macro_rules! read_setting {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        /// The card's field `key` (at `p`) into `settings`, if it is a
        /// setting.
        pub(super) fn read_setting(
            cx: &mut Ctx<'_>,
            p: &[Seg<'_>],
            key: &str,
            v: &Yaml,
            settings: &mut Settings,
        ) {
            match key {
                $(
                    stringify!($key) => {
                        settings.$key = <kind::$kind $(<$param>)? as CardSetting>::read(
                            cx,
                            p,
                            stringify!($key),
                            v,
                        );
                    }
                )*
                _ => {}
            }
        }
    };
}

hookwire_spec::for_each_setting!(read_setting);
