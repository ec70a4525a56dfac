//! JSON objects parsed with duplicate keys rejected, at every depth.
//!
//! `serde_json`'s own `Value` keeps the last of two equal keys. A typed
//! parse of the model's text (`#[derive(Deserialize)]`) rejects a
//! duplicate field instead, so arguments that a hook read as an object
//! (last wins) and arguments parsed straight into the tool's type (an
//! error) would disagree. Every path that turns arguments into an object
//! goes through here, so both reject `{"x": 1, "x": 2}` with an error that
//! names the key.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `text` as JSON; a duplicate key anywhere is an error naming it
/// and where it is (`duplicate key `x``, `duplicate key `b` in `a.b``).
#[doc(hidden)]
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict { at: None }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Where a value is: the keys and indices above it, innermost last,
/// linked on the stack (nothing is allocated unless there is an error).
#[derive(Clone, Copy)]
struct At<'a> {
    parent: Option<&'a At<'a>>,
    step: Step<'a>,
}

#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match (self.step, self.parent) {
            (Step::Key(k), None) => f.write_str(k),
            (Step::Key(k), Some(_)) => write!(f, ".{k}"),
            (Step::Index(i), _) => write!(f, "[{i}]"),
        }
    }
}

/// A `Value` whose objects reject duplicate keys.
#[derive(Clone, Copy)]
struct Strict<'a> {
    at: Option<&'a At<'a>>,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            let at = At {
                parent: self.at,
                step: Step::Index(items.len()),
            };
            match seq.next_element_seed(Strict { at: Some(&at) })? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = At {
                parent: self.at,
                step: Step::Key(&key),
            };
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key `{at}`")));
            }
            let value = map.next_value_seed(Strict { at: Some(&at) })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_errors_naming_the_key_and_where_it_is() {
        let e = from_str(r#"{"x": 1, "x": 2}"#).unwrap_err();
        assert!(e.to_string().starts_with("duplicate key `x`"), "{e}");
        let e = from_str(r#"{"a": [{"b": 1}, {"c": {"d": 1, "d": 1}}]}"#).unwrap_err();
        assert!(e.to_string().starts_with("duplicate key `a[1].c.d`"), "{e}");
    }

    #[test]
    fn everything_else_parses_as_serde_json_does() {
        let text = r#"{"s": "t", "n": null, "b": true, "i": -3, "u": 18446744073709551615,
            "f": 1.5, "a": [1, {"k": []}], "o": {"z": 1, "a": 2}}"#;
        let ours = from_str(text).unwrap();
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
        // Key order is kept (`preserve_order`).
        let keys: Vec<&String> = ours["o"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a"]);
        assert!(from_str(r#"{"x": 1} trailing"#).is_err());
        assert!(from_str(r#"{"x": "#).is_err());
    }
}
