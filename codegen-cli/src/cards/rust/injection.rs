//! The arguments of a card's `kind: tool_call` injections, checked against
//! the signature of the function tool they call: each argument names a
//! parameter, each required parameter is given, and each value has the JSON
//! type of its parameter where the type is one JSON knows (numbers, bools,
//! strings, lists, maps, `Option`s of these). Anything else is left to the
//! tool's own parsing at run time.

use std::collections::HashMap;

use serde_json::Value;

use super::super::fields::Parsed;
use super::Diagnostic;
use crate::lower::{ToolParam, option_type, tool_params};
use crate::spec::{AgentSpec, EventHookAction};
use crate::yaml::Seg;

/// A model-supplied parameter of a tool function: its JSON field's name,
/// its type, and its `#[default(..)]` as written (then it is optional).
pub(super) type Param = (String, syn::Type, Option<String>);

/// The model-supplied parameters of a tool function (its JSON fields, by
/// name, with their types). `None` if the signature is not a tool's
/// (reported elsewhere).
pub(super) fn params(sig: &syn::Signature) -> Option<Vec<Param>> {
    let list = tool_params(sig, false).ok()?;
    Some(
        list.into_iter()
            .filter_map(|p| match p {
                ToolParam::Arg {
                    ident, ty, default, ..
                } => {
                    let name = ident.to_string();
                    let name = name.strip_prefix("r#").map(str::to_owned).unwrap_or(name);
                    // As the file writes it; the tokens' text otherwise.
                    let default = default.map(|e| {
                        syn::spanned::Spanned::span(&*e)
                            .source_text()
                            .unwrap_or_else(|| quote::ToTokens::to_token_stream(&e).to_string())
                    });
                    Some((name, *ty, default))
                }
                _ => None,
            })
            .collect(),
    )
}

/// Checks every injection of `p` that calls one of `tools` (function tools
/// by name, with their parameters).
pub(super) fn check_arguments(
    p: &Parsed,
    spec: &AgentSpec,
    tools: &HashMap<String, Vec<Param>>,
    diags: &mut Vec<Diagnostic>,
) {
    for (hook, &i) in spec.hooks.iter().zip(&p.event_hook_index) {
        let EventHookAction::ToolCall(call) = &hook.action else {
            continue;
        };
        if call.toolset_name.is_some() {
            continue;
        }
        let Some(params) = tools.get(&call.tool_name) else {
            continue;
        };
        let Ok(Value::Object(args)) = serde_json::from_str::<Value>(&call.arguments) else {
            continue;
        };
        let tool = &call.tool_name;
        let names: Vec<&str> = params.iter().map(|(n, _, _)| n.as_str()).collect();
        let listing = if names.is_empty() {
            format!("tool `{tool}` takes no arguments")
        } else {
            format!("parameters of `{tool}`: {}", names.join(", "))
        };
        // A misspelt name is one mistake: the unknown key, not also the
        // parameter it was meant to be.
        let mut meant: Vec<&str> = Vec::new();
        for (key, value) in &args {
            let at = [
                Seg::Key("hooks"),
                Seg::Index(i),
                Seg::Key("arguments"),
                Seg::Key(key.as_str()),
            ];
            match params.iter().find(|(n, _, _)| n == key) {
                None => {
                    let suggestion = crate::cards::did_you_mean(
                        key,
                        names.iter().copied().filter(|n| !args.contains_key(*n)),
                    );
                    meant.extend(suggestion);
                    diags.push(
                        p.src
                            .at(
                                &at,
                                false,
                                format!("tool `{tool}` has no parameter `{key}`"),
                            )
                            .maybe_help(suggestion.map(|s| crate::spec::suggestion_help(key, s)))
                            .note(listing.clone()),
                    );
                }
                Some((_, ty, _)) => {
                    if let Some(expected) = mismatch(ty, value) {
                        diags.push(p.src.at(
                            &at,
                            true,
                            format!(
                                "argument `{key}` of tool `{tool}` must be {expected} (the parameter is `{}`), found {}",
                                crate::lower::show_type(ty),
                                kind(value)
                            ),
                        ));
                    }
                }
            }
        }
        let missing: Vec<&str> = params
            .iter()
            .filter(|(n, ty, default)| {
                !args.contains_key(n)
                    && option_type(ty).is_none()
                    && default.is_none()
                    && !meant.contains(&n.as_str())
            })
            .map(|(n, _, _)| n.as_str())
            .collect();
        if !missing.is_empty() {
            let field = if args.is_empty() {
                "tool_name"
            } else {
                "arguments"
            };
            let plural = if missing.len() == 1 { "" } else { "s" };
            diags.push(
                p.src
                    .at(
                        &[Seg::Key("hooks"), Seg::Index(i), Seg::Key(field)],
                        false,
                        format!(
                            "the call of tool `{tool}` is missing the required argument{plural} `{}`",
                            missing.join("`, `")
                        ),
                    )
                    .help(format!(
                        "add {} under `arguments:`",
                        missing
                            .iter()
                            .map(|m| format!("`{m}: ...`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
            );
        }
    }
}

/// What `value` should have been for a parameter of type `ty`, if it is
/// not that (`None`: it fits, or the type is not one JSON knows).
fn mismatch(ty: &syn::Type, value: &Value) -> Option<String> {
    if let Some(inner) = option_type(ty) {
        return if value.is_null() {
            None
        } else {
            mismatch(inner, value)
        };
    }
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let seg = p.path.segments.last()?;
    let name = seg.ident.to_string();
    let args: Vec<&syn::Type> = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let int = |lo: i128, hi: i128| -> Option<String> {
        let n = value
            .as_i64()
            .map(i128::from)
            .or_else(|| value.as_u64().map(i128::from));
        match n {
            Some(n) if (lo..=hi).contains(&n) => None,
            _ if hi == i128::from(u64::MAX) => Some("an integer from 0 up".to_owned()),
            _ if lo == i128::from(i64::MIN) => Some("an integer".to_owned()),
            _ => Some(format!("an integer from {lo} to {hi}")),
        }
    };
    match name.as_str() {
        "i8" => int(i8::MIN.into(), i8::MAX.into()),
        "i16" => int(i16::MIN.into(), i16::MAX.into()),
        "i32" => int(i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" | "i128" => int(i64::MIN.into(), i64::MAX.into()),
        "u8" => int(0, u8::MAX.into()),
        "u16" => int(0, u16::MAX.into()),
        "u32" => int(0, u32::MAX.into()),
        "u64" | "usize" | "u128" => int(0, u64::MAX.into()),
        "f32" | "f64" => (!value.is_number()).then(|| "a number".to_owned()),
        "bool" => (!value.is_boolean()).then(|| "`true` or `false`".to_owned()),
        "String" | "PathBuf" => (!value.is_string()).then(|| "a string".to_owned()),
        "char" => (value.as_str().map(|s| s.chars().count()) != Some(1))
            .then(|| "a string of one character".to_owned()),
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" if args.len() == 1 => match value {
            Value::Array(items) => items
                .iter()
                .find_map(|item| mismatch(args[0], item))
                .map(|inner| format!("a list whose items are each {inner}")),
            _ => Some("a list".to_owned()),
        },
        "HashMap" | "BTreeMap" if args.len() == 2 => match value {
            Value::Object(entries) => entries
                .values()
                .find_map(|item| mismatch(args[1], item))
                .map(|inner| format!("a mapping whose values are each {inner}")),
            _ => Some("a mapping".to_owned()),
        },
        "Box" if args.len() == 1 => mismatch(args[0], value),
        _ => None,
    }
}

/// What kind of JSON value `value` is, for messages.
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("`{n}`"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "a mapping".to_owned(),
    }
}
