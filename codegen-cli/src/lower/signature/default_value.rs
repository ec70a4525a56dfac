//! A tool parameter's `#[default(..)]` written as a literal, checked
//! against the parameter's type where the type is a primitive or `String`:
//! what rustc would refuse in the generated default function (a string
//! literal for a `String`, an integer for a float, a value out of range),
//! refused here, so that `cardgen check` refuses it too. Other types (a
//! type alias, a struct) and other expressions are left to the compiler.

use syn::{Expr, Lit, Type, UnOp};

/// What a primitive type takes as a literal.
enum Takes {
    Int {
        min: i128,
        max: u128,
    },
    Float,
    Bool,
    Char,
    /// `String`: not a literal (a string literal is a `&str`).
    Owned,
}

fn takes(ty: &Type) -> Option<(String, Takes)> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() || p.path.leading_colon.is_some() || p.path.segments.len() != 1 {
        return None;
    }
    let name = p.path.segments[0].ident.to_string();
    let int = |min: i128, max: u128| Some(Takes::Int { min, max });
    let t = match name.as_str() {
        "i8" => int(i8::MIN.into(), i8::MAX as u128),
        "i16" => int(i16::MIN.into(), i16::MAX as u128),
        "i32" => int(i32::MIN.into(), i32::MAX as u128),
        "i64" | "isize" => int(i64::MIN.into(), i64::MAX as u128),
        "i128" => int(i128::MIN, i128::MAX as u128),
        "u8" => int(0, u8::MAX.into()),
        "u16" => int(0, u16::MAX.into()),
        "u32" => int(0, u32::MAX.into()),
        "u64" | "usize" => int(0, u64::MAX.into()),
        "u128" => int(0, u128::MAX),
        "f32" | "f64" => Some(Takes::Float),
        "bool" => Some(Takes::Bool),
        "char" => Some(Takes::Char),
        "String" => Some(Takes::Owned),
        _ => None,
    }?;
    Some((name, t))
}

/// Why `expr`, a default, is not a value of `ty`, when it is a literal
/// (or a negated one) and `ty` a primitive or `String`.
pub(super) fn literal_mismatch(expr: &Expr, ty: &Type) -> Option<String> {
    let (negative, lit) = match expr {
        Expr::Lit(l) => (false, &l.lit),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(l) => (true, &l.lit),
            _ => return None,
        },
        _ => return None,
    };
    let (name, takes) = takes(ty)?;
    let found = match lit {
        Lit::Str(_) => "a string literal (a `&str`)",
        Lit::Int(_) => "an integer",
        Lit::Float(_) => "a floating-point number",
        Lit::Bool(_) => "a boolean",
        Lit::Char(_) => "a character",
        _ => "a literal",
    };
    match (takes, lit) {
        (Takes::Owned, Lit::Str(s)) if !negative => Some(format!(
            "is {found}, and the parameter is a `String`: write `String::from({})`",
            quote::ToTokens::to_token_stream(s)
        )),
        (Takes::Int { min, max }, Lit::Int(i)) => {
            let suffix = i.suffix();
            if !suffix.is_empty() && suffix != name {
                return Some(format!("is a `{suffix}`, and the parameter is a `{name}`"));
            }
            let value: u128 = i.base10_parse().ok()?;
            let fits = if negative {
                i128::try_from(value).is_ok_and(|v| -v >= min) || (value == min.unsigned_abs())
            } else {
                value <= max
            };
            (!fits).then(|| {
                format!(
                    "is {}{value}, out of the range of `{name}` ({min} to {max})",
                    if negative { "-" } else { "" }
                )
            })
        }
        (Takes::Float, Lit::Float(f)) => {
            let suffix = f.suffix();
            (!suffix.is_empty() && suffix != name)
                .then(|| format!("is a `{suffix}`, and the parameter is a `{name}`"))
        }
        (Takes::Float, Lit::Int(i)) => Some(format!(
            "is an integer, and the parameter is a `{name}`: write `{}.0`",
            i.base10_digits()
        )),
        (Takes::Bool, Lit::Bool(_)) | (Takes::Char, Lit::Char(_)) if !negative => None,
        _ => Some(format!("is {found}, and the parameter is a `{name}`")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn check(expr: &str, ty: &str) -> Option<String> {
        literal_mismatch(&syn::parse_str(expr).unwrap(), &syn::parse_str(ty).unwrap())
    }

    #[test]
    fn literals_of_the_wrong_type_are_refused() {
        for (expr, ty) in [
            ("3", "u32"),
            ("-128", "i8"),
            ("2.5", "f64"),
            ("true", "bool"),
            ("String::from(\"x\")", "String"),
            ("\"x\"", "Mode"),
            ("'c'", "char"),
        ] {
            assert_eq!(check(expr, ty), None, "{expr}: {ty}");
        }
        for (expr, ty, why) in [
            ("\"hello\"", "String", "write `String::from(\"hello\")`"),
            ("\"3\"", "u32", "a string literal"),
            ("300", "u8", "out of the range of `u8`"),
            ("-1", "u32", "out of the range"),
            ("3", "f64", "write `3.0`"),
            ("1.5", "u32", "a floating-point number"),
            ("3u64", "u32", "is a `u64`"),
            ("1", "bool", "an integer"),
        ] {
            let m = check(expr, ty).unwrap_or_default();
            assert!(m.contains(why), "{expr}: {ty}: {m}");
        }
    }
}
