use super::*;
use crate::meta::{MetaFormula, ToolMeta};

fn t(name: &str) -> MatchTarget<'_> {
    MatchTarget::new(name, ToolSource::Function)
}

#[test]
fn syntax_forms_select_the_right_tools() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("*", &["a", "read_file"], &[]),
        ("read_file", &["read_file"], &["read_files", "xread_file"]),
        ("read_*", &["read_file", "read_"], &["write_file"]),
        ("a|b", &["a", "b"], &["ab", "c"]),
        ("read_*|delete", &["read_x", "delete"], &["deleted"]),
        (
            "/^fs__(read|write)$/",
            &["fs__read", "fs__write"],
            &["fs__readx"],
        ),
        ("!shell", &["ls"], &["shell"]),
        (
            "time__{get,set}_*",
            &["time__get_x", "time__set_y"],
            &["time__del_x"],
        ),
    ];
    for (pattern, yes, no) in cases {
        let m = Matcher::parse(pattern).unwrap();
        for name in *yes {
            assert!(m.matches(t(name)), "{pattern} should match {name}");
        }
        for name in *no {
            assert!(!m.matches(t(name)), "{pattern} should not match {name}");
        }
    }
}

#[test]
fn source_and_composites() {
    let m = Matcher::all([
        Matcher::parse("source:mcp").unwrap(),
        Matcher::not(Matcher::parse("time__*").unwrap()),
    ]);
    assert!(m.matches(MatchTarget::new("fs__read", ToolSource::Mcp)));
    assert!(!m.matches(MatchTarget::new("time__now", ToolSource::Mcp)));
    assert!(!m.matches(MatchTarget::new("fs__read", ToolSource::Function)));
    assert!(!Matcher::any([]).matches(t("x")));
    assert!(Matcher::all([]).matches(t("x")));
}

#[test]
fn bad_patterns_are_errors_not_panics() {
    assert!(matches!(
        Matcher::parse("/(unclosed/"),
        Err(MatcherError::InvalidRegex { .. })
    ));
    assert!(matches!(Matcher::parse("  "), Err(MatcherError::Empty(_))));
    assert!(matches!(
        Matcher::parse("a||b"),
        Err(MatcherError::Empty(_))
    ));
    assert!(matches!(
        Matcher::parse("source:cloud"),
        Err(MatcherError::UnknownSource(_))
    ));
    assert!(matches!(
        Matcher::parse("a[b"),
        Err(MatcherError::InvalidGlob { .. })
    ));
}

/// Runs `f` on a thread with a 256 KiB stack: a recursive parse of
/// the inputs below would overflow it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn long_and_deep_matchers_are_errors_on_a_small_stack() {
    let errors = on_small_stack(|| {
        [
            format!("{}shell", "!".repeat(200_000)),
            format!("{}shell", "!".repeat(1_000)),
            format!("{}shell", "!".repeat(MAX_MATCHER_DEPTH + 1)),
            format!("/{}a{}/", "(".repeat(500), ")".repeat(500)),
        ]
        .map(|p| Matcher::parse(&p).unwrap_err())
    });
    assert_eq!(
        errors[0],
        MatcherError::TooLong {
            len: 200_005,
            max: MAX_MATCHER_LEN
        }
    );
    assert_eq!(
        errors[1],
        MatcherError::TooDeep {
            max: MAX_MATCHER_DEPTH
        }
    );
    assert_eq!(
        errors[2],
        MatcherError::TooDeep {
            max: MAX_MATCHER_DEPTH
        }
    );
    assert!(
        matches!(errors[3], MatcherError::InvalidRegex { .. }),
        "{:?}",
        errors[3]
    );
    let deepest = format!("{}shell", "!".repeat(MAX_MATCHER_DEPTH));
    assert_eq!(Matcher::parse(&deepest).unwrap().depth(), MAX_MATCHER_DEPTH);
}

#[test]
fn the_yaml_form_is_depth_limited_too() {
    let mut json = "\"shell\"".to_owned();
    for _ in 0..MAX_MATCHER_DEPTH {
        json = format!("{{\"not\": {json}}}");
    }
    assert!(serde_json::from_str::<Matcher>(&json).is_ok());
    let deeper = format!("{{\"any\": [{json}]}}");
    let e = serde_json::from_str::<Matcher>(&deeper).unwrap_err();
    assert!(e.to_string().contains("nested too deeply"), "{e}");
}

#[test]
fn empty_and_everything_patterns_are_errors() {
    assert_eq!(Matcher::parse("//"), Err(MatcherError::EmptyRegex));
    assert_eq!(Matcher::parse("! //"), Err(MatcherError::EmptyRegex));
    for p in ["/a|/", "/x*/", "/|shell/", "/(?:)/"] {
        assert!(
            matches!(Matcher::parse(p), Err(MatcherError::MatchesEverything(_))),
            "{p}"
        );
    }
    for p in ["{a,}", "x{,b}", "{}", "a{b,,c}"] {
        assert!(
            matches!(
                Matcher::parse(p),
                Err(MatcherError::EmptyGlobAlternative(_))
            ),
            "{p}"
        );
    }
    for p in ["!", "a|", "|a", "! ", "a| |b"] {
        assert!(
            matches!(Matcher::parse(p), Err(MatcherError::Empty(_))),
            "{p}"
        );
    }
    // Anchored or non-empty regexes stay.
    for p in ["/^$/", "/^fs__/", "/read|write/"] {
        assert!(Matcher::parse(p).is_ok(), "{p}");
    }
}

#[test]
fn parts_lists_every_alternative_and_negated_pattern() {
    let m = Matcher::all([
        Matcher::parse("!shel").unwrap(),
        Matcher::parse("a|b*").unwrap(),
    ]);
    let parts: Vec<String> = m.parts().iter().map(|p| p.to_string()).collect();
    assert_eq!(
        parts,
        ["all(!shel, a|b*)", "!shel", "shel", "a|b*", "a", "b*"]
    );
}

#[test]
fn step_parts_select_by_step_kind_and_name_parts_select_only_calls() {
    let final_step = MatchTarget::step(StepKind::Final);
    let tool_step = MatchTarget::step(StepKind::Tool);
    let m = Matcher::parse("step:final").unwrap();
    assert!(m.matches(final_step));
    assert!(!m.matches(tool_step));
    assert!(!m.matches(t("shell")));
    let m = Matcher::parse("step:tool").unwrap();
    assert!(m.matches(t("shell")) && m.matches(tool_step));
    assert!(!m.matches(final_step));
    // A name, glob, regex or source never selects a step as a whole.
    for p in ["shell", "sh*", "/^$/", "source:function"] {
        let m = Matcher::parse(p).unwrap();
        assert!(!m.matches(final_step) && !m.matches(tool_step), "{p}");
    }
    let m = Matcher::parse("shell|step:final").unwrap();
    assert!(m.selects_steps());
    assert!(m.matches(t("shell")) && m.matches(final_step) && !m.matches(t("ls")));
    assert!(!Matcher::parse("shell").unwrap().selects_steps());
    assert_eq!(
        Matcher::parse("step:answer").unwrap_err().to_string(),
        "unknown step kind `answer` in `step:answer`: expected `step:tool` or `step:final`"
    );
}

#[test]
fn meta_parts_select_by_declared_metadata() {
    let high = ToolMeta::from_static(&[("risk", "high"), ("kind", "write")]);
    let low = ToolMeta::from_static(&[("risk", "low")]);
    let none = ToolMeta::EMPTY;
    let at = |meta| MatchTarget::new("x", ToolSource::Function).with_meta(meta);
    let cases: &[(&str, [bool; 3])] = &[
        ("meta:risk", [true, true, false]),
        ("meta:risk=high", [true, false, false]),
        ("meta: risk = high ", [true, false, false]),
        ("!meta:risk=high", [false, true, true]),
        ("meta:kind|meta:risk=low", [true, true, false]),
        ("meta:risk=very high", [false, false, false]),
    ];
    for (pattern, want) in cases {
        let m = Matcher::parse(pattern).unwrap();
        let got = [&high, &low, &none].map(|meta| m.matches(at(meta)));
        assert_eq!(&got, want, "{pattern}");
    }
    // A step as a whole has no metadata.
    let m = Matcher::parse("meta:risk").unwrap();
    assert!(!m.matches(MatchTarget::step(StepKind::Tool)));
    assert!(m.selects_meta() && !Matcher::parse("risk").unwrap().selects_meta());
}

#[test]
fn bad_meta_parts_are_errors() {
    let err = |p: &str| Matcher::parse(p).unwrap_err().to_string();
    assert_eq!(
        err("meta:"),
        "empty metadata key: write `meta:key` or `meta:key=value`, as in `meta:risk=high`"
    );
    assert_eq!(err("meta:=high"), err("meta:"));
    assert_eq!(
        err("meta:ri$k"),
        "metadata key `ri$k` has `$`: a key is ASCII letters, digits, `_`, `-` and `.`, as in `risk` or `data.kind`"
    );
    assert_eq!(
        err("meta:risk="),
        "empty value in `meta:risk=`: write `meta:risk` for any value of `risk`, or give the value, as in `meta:risk=high`"
    );
    assert_eq!(
        err("meta:risk=a\u{7}b"),
        "metadata value `a\u{7}b` cannot hold `|`, a control character or leading or trailing space"
    );
    // `|` separates alternatives: `meta:a=b|c` is `meta:a=b` or `c`.
    assert!(matches!(Matcher::parse("meta:a=b|c"), Ok(Matcher::Any(v)) if v.len() == 2));
}

#[test]
fn unknown_metadata_leaves_a_formula() {
    let t = MatchTarget::new("shell", ToolSource::Function);
    let f = |p: &str| Matcher::parse(p).unwrap().meta_formula(t);
    assert_eq!(f("shell"), MetaFormula::Const(true));
    assert_eq!(f("ls|source:mcp"), MetaFormula::Const(false));
    assert_eq!(
        f("meta:risk=high"),
        MetaFormula::Is("risk".into(), "high".into())
    );
    assert_eq!(f("shell|meta:risk"), MetaFormula::Const(true));
    assert_eq!(f("ls|meta:risk"), MetaFormula::Has("risk".into()));
    assert_eq!(
        f("!meta:risk"),
        MetaFormula::Not(Box::new(MetaFormula::Has("risk".into())))
    );
}

#[test]
fn display_round_trips() {
    for p in [
        "*",
        "a",
        "a_*",
        "a|b*",
        "/^x$/",
        "source:agent",
        "!a",
        "step:final",
        "!step:tool",
        "meta:risk",
        "meta:risk=high",
        "!meta:kind=write|ls",
    ] {
        let m = Matcher::parse(p).unwrap();
        assert_eq!(m.to_string(), p);
        assert_eq!(Matcher::parse(&m.to_string()).unwrap(), m);
    }
}
