//! The settings table ([`for_each_setting!`](crate::for_each_setting)) and
//! what its kinds of value mean wherever they are written.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use crate::vocab::UnknownValue;

/// Calls `$callback! { rows }` with the settings table: the keys of an
/// agent declaration that hold one plain value (a number, a string, a
/// switch, a word of a vocabulary), which no rule of their own governs and
/// which the loop reads from `AgentConfig`.
///
/// Every front end expands the table with a callback of its own, so a row
/// is all a new setting needs there: the `AgentSpec` field and its rule, a
/// card's field with its checks and messages and its JSON Schema, the
/// emitter's `.with_*(..)` call and the declaration's keys
/// (`hookwire-codegen`), `#[agent]`'s key (`hookwire-macros`), and the
/// `AgentConfig` field and builder (`hookwire`). The keys of a declaration
/// (`AGENT_FIELDS`) list the settings in the table's order, between
/// `hooks` and `tool_input_schema`. A key with a rule of its own (a name, a
/// reference, a list, a schema) is written by hand in each front end.
///
/// A row is
///
/// ```text
/// key: Kind {
///     doc: "What it is.",          // the doc of every field it becomes
///     example: 4,                  // a value, as a card and `#[agent]` write it
///     config: field = default,     // the `AgentConfig` field (`= default`:
///                                  // its value when not written, else `Default`)
///     builder: with_x("Sets x."),  // the `AgentConfig` builder and its doc
/// }
/// ```
///
/// where `Kind` is one of [`kind`]'s types (`Choice<T>` with a vocabulary
/// type, [`Spelled`]). The callback gets each row as `[key, Kind, doc,
/// example, field, (default), builder, builder_doc]` and matches them all
/// with one pattern:
///
/// ```
/// macro_rules! keys {
///     ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
///         $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
///         [$(stringify!($key)),*]
///     };
/// }
/// let keys = hookwire_spec::for_each_setting!(keys);
/// assert_eq!(keys[2], "max_parallel");
/// ```
#[macro_export]
macro_rules! for_each_setting {
    ($($callback:tt)+) => {
        $crate::__setting_rows! {
            ($($callback)+)
            history_source: Choice<$crate::HistorySource> {
                doc: "Which history the agent sees when called as a tool.",
                example: "orchestrator",
                config: history_source,
                builder: with_history_source("Sets the history source."),
            }
            history_merge_target: Choice<$crate::HistoryMergeTarget> {
                doc: "Where its conversation is merged afterwards.",
                example: "orchestrator",
                config: history_merge_target,
                builder: with_history_merge_target("Sets the history merge target."),
            }
            max_parallel: Count {
                doc: "How many calls of this agent (as a tool) may run at once.",
                example: 4,
                config: max_parallel,
                builder: with_max_parallel("Sets `max_parallel`."),
            }
            child_timeout_sec: Seconds {
                doc: "How long one call of this agent (as a tool) may take.",
                example: 60,
                config: child_timeout,
                builder: with_child_timeout("Sets the child timeout."),
            }
            max_display_instances: Count {
                doc: "How many instances a display shows at most.",
                example: 20,
                config: max_display_instances,
                builder: with_max_display_instances("Sets `max_display_instances`."),
            }
            model: Text {
                doc: "The model, as `provider:model` or a model name.",
                example: "openai:gpt-4o-mini",
                config: model,
                builder: with_model("Sets the model."),
            }
            use_history: Bool {
                doc: "Whether the agent keeps its history between runs.",
                example: false,
                config: use_history = true,
                builder: with_use_history("Sets `use_history`."),
            }
        }
    };
}

/// [`for_each_setting!`]'s rows, each as `[key, Kind, doc, example, field,
/// (default), builder, builder_doc]`, to `$callback!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __setting_rows {
    (($($callback:tt)+) $( $key:ident: $kind:ident $(<$param:ty>)? {
        doc: $doc:literal,
        example: $example:literal,
        config: $field:ident $(= $default:expr)?,
        builder: $builder:ident($builder_doc:literal) $(,)?
    } )*) => {
        $($callback)+! {
            $([
                $key, $kind $(<$param>)?, $doc, $example, $field, ($($default)?), $builder,
                $builder_doc
            ])*
        }
    };
}

/// One row of the settings table, as data: what a test, a listing or a
/// schema reads without expanding the table itself.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Setting {
    /// The key, as a card and `#[agent]` write it.
    pub key: &'static str,
    /// What it is.
    pub doc: &'static str,
    /// A value, as a card and `#[agent]` write it (`4`, `"orchestrator"`).
    pub example: &'static str,
    /// The `AgentConfig` field it sets.
    pub config: &'static str,
    /// The `AgentConfig` builder the generated code calls.
    pub builder: &'static str,
    /// The JSON Schema of its value in a card.
    pub schema: fn() -> serde_json::Value,
}

macro_rules! settings {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        [$(Setting {
            key: stringify!($key),
            doc: $doc,
            example: stringify!($example),
            config: stringify!($field),
            builder: stringify!($builder),
            schema: <kind::$kind $(<$param>)? as SettingKind>::schema,
        }),*]
    };
}

/// Every setting, in the table's order.
///
/// ```
/// use hookwire_spec::SETTINGS;
///
/// let max_parallel = SETTINGS.iter().find(|s| s.key == "max_parallel").unwrap();
/// assert_eq!(max_parallel.builder, "with_max_parallel");
/// assert_eq!((max_parallel.schema)()["minimum"], 1);
/// ```
pub const SETTINGS: &[Setting] = &crate::for_each_setting!(settings);

/// What a kind of setting means wherever it is written: the value a
/// declaration holds, its JSON Schema in a card, and its rule.
pub trait SettingKind {
    /// The value as a declaration holds it: `None` (or the vocabulary's
    /// default) when it is not written.
    type Value: Clone + fmt::Debug + Default + PartialEq;

    /// The JSON Schema of a value in a card.
    fn schema() -> serde_json::Value;

    /// The value's rule, as the message about `key` when it is broken.
    fn check(key: &str, value: &Self::Value) -> Result<(), String> {
        let _ = (key, value);
        Ok(())
    }
}

/// The kinds of value a setting has. A card, `#[agent]`, the emitter and
/// the runtime each know every kind; a new kind is one impl in each (the
/// compiler names the missing ones).
pub mod kind {
    use super::PhantomData;

    /// A positive whole number (`max_parallel: 4`): a `usize` at run time.
    #[derive(Debug, Clone, Copy)]
    pub struct Count;

    /// A positive whole number of seconds (`child_timeout_sec: 60`): a
    /// `Duration` at run time.
    #[derive(Debug, Clone, Copy)]
    pub struct Seconds;

    /// A string (`model: openai:gpt-4o-mini`); a card's may not be empty
    /// (`#[agent]` takes it as written).
    #[derive(Debug, Clone, Copy)]
    pub struct Text;

    /// `true` or `false`.
    #[derive(Debug, Clone, Copy)]
    pub struct Bool;

    /// One of the spellings of the vocabulary `T`
    /// (`history_source: orchestrator`), the same type at run time.
    #[derive(Debug, Clone, Copy)]
    pub struct Choice<T>(PhantomData<T>);
}

/// The positive whole numbers: [`Count`](kind::Count) and
/// [`Seconds`](kind::Seconds).
macro_rules! positive_kinds {
    ($($kind:ident),*) => {$(
        impl SettingKind for kind::$kind {
            type Value = Option<u64>;

            fn schema() -> serde_json::Value {
                serde_json::json!({"type": "integer", "minimum": 1})
            }

            fn check(key: &str, value: &Self::Value) -> Result<(), String> {
                match *value {
                    Some(n) => check_positive(key, i128::from(n)).map(|_| ()),
                    None => Ok(()),
                }
            }
        }
    )*};
}

positive_kinds!(Count, Seconds);

impl SettingKind for kind::Text {
    type Value = Option<String>;

    fn schema() -> serde_json::Value {
        serde_json::json!({"type": "string", "minLength": 1})
    }
}

impl SettingKind for kind::Bool {
    type Value = Option<bool>;

    fn schema() -> serde_json::Value {
        serde_json::json!({"type": "boolean"})
    }
}

impl<T: Spelled + Default> SettingKind for kind::Choice<T> {
    type Value = T;

    fn schema() -> serde_json::Value {
        let names: Vec<&str> = T::SPELLINGS.iter().map(|(s, _)| *s).collect();
        serde_json::json!({ "enum": names })
    }
}

/// A vocabulary a [`Choice`](kind::Choice) setting takes a word of: every
/// value with its spelling, and its Rust name (the runtime re-exports it
/// under `hookwire::agent`, where generated code names it).
pub trait Spelled: Copy + fmt::Debug + PartialEq + FromStr<Err = UnknownValue> + 'static {
    /// Every value, with its spelling.
    const SPELLINGS: &'static [(&'static str, Self)];

    /// The type's name (`HistorySource`).
    const TYPE_NAME: &'static str;

    /// The value's variant name (`Orchestrator`).
    fn variant(self) -> &'static str;
}

/// `value` as a positive whole number, or the message why not.
///
/// ```
/// use hookwire_spec::check_positive;
///
/// assert_eq!(check_positive("max_parallel", 4), Ok(4));
/// assert_eq!(
///     check_positive("max_parallel", 0).unwrap_err(),
///     "`max_parallel` must be greater than 0, found 0"
/// );
/// ```
pub fn check_positive(key: &str, value: i128) -> Result<u64, String> {
    match u64::try_from(value) {
        Ok(0) | Err(_) if value <= 0 => {
            Err(format!("`{key}` must be greater than 0, found {value}"))
        }
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{key}` is too large: {value}")),
    }
}

/// Checks the value of a text setting that has a grammar of its own
/// (`model`: a model string, read by [`parse_model_string`](crate::parse_model_string),
/// as the runtime reads it); every other text is taken as written. Both
/// front ends call it, so a card and `#[agent]` refuse the same values.
///
/// ```
/// use hookwire_spec::check_text_setting;
/// assert!(check_text_setting("model", "anthropic:claude-sonnet-4-5").is_ok());
/// assert!(check_text_setting("model", "antropic:claude").is_err());
/// assert!(check_text_setting("description", "antropic:claude").is_ok());
/// ```
pub fn check_text_setting(key: &str, value: &str) -> Result<(), String> {
    match key {
        "model" => crate::parse_model_string(value)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_snake_case_and_builders_are_with_something() {
        let mut seen = std::collections::HashSet::new();
        for s in SETTINGS {
            assert!(seen.insert(s.key), "{} twice", s.key);
            assert!(
                s.key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}",
                s.key
            );
            assert!(s.builder.starts_with("with_"), "{}", s.builder);
            assert!(s.doc.ends_with('.'), "{}: {}", s.key, s.doc);
        }
    }

    #[test]
    fn the_kinds_schemas_and_rules() {
        let schema = |key: &str| (SETTINGS.iter().find(|s| s.key == key).unwrap().schema)();
        assert_eq!(
            schema("history_source"),
            serde_json::json!({"enum": ["none", "child", "orchestrator", "messages"]})
        );
        assert_eq!(
            schema("child_timeout_sec"),
            serde_json::json!({"type": "integer", "minimum": 1})
        );
        assert_eq!(
            <kind::Count as SettingKind>::check("max_parallel", &Some(0)).unwrap_err(),
            "`max_parallel` must be greater than 0, found 0"
        );
        assert_eq!(<kind::Seconds as SettingKind>::check("x", &None), Ok(()));
        assert_eq!(crate::HistorySource::Child.variant(), "Child");
        assert_eq!(crate::HistoryMergeTarget::TYPE_NAME, "HistoryMergeTarget");
    }
}
