#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

const DOC: &str = "\
type: agent
name: pmo   # the name
servers:
  - time
agents: [NY, \"London\"]
tool_hooks:
  - hooks.rs:audit
  - hook: hooks.rs:guard
    match: \"add_*\"
    timeout_ms: 5
tools:
  time: [get_time]
";

#[test]
fn parses_into_our_tree() {
    let y = parse(DOC).unwrap();
    let Yaml::Map(entries) = y else { panic!() };
    assert_eq!(entries[0], ("type".into(), Yaml::Str("agent".into())));
    assert_eq!(entries.len(), 6);
}

#[test]
fn syntax_errors_have_positions() {
    let e = parse("name: a\n  bad: [\n").unwrap_err();
    assert!(e.line >= 2, "{e:?}");
    let e = parse("a: 1\nb: 3\na: 2\n").unwrap_err();
    assert_eq!(
        (e.line, e.message.as_str()),
        (3, "the key `a` is given twice: here is its second entry"),
        "{e:?}"
    );
    let e = parse("x:\n  - k: 1\n    j: 2\n    k: 3\n").unwrap_err();
    assert_eq!(e.line, 4, "{e:?}");
    let e = parse("n: 99999999999999999999\n").unwrap_err();
    assert_eq!(e.message, "the number `99999999999999999999` is too large");
    assert!(e.help.is_some_and(|h| !h.contains("indentation")));
}

#[test]
fn locates_keys_items_and_flow_items() {
    let l = locate(DOC, &[Seg::Key("name")]);
    assert_eq!((l.line, l.key_col, l.value_col, l.value_len), (2, 1, 7, 3));
    let l = locate(DOC, &[Seg::Key("servers"), Seg::Index(0)]);
    assert_eq!((l.line, l.value_col, l.value_len), (4, 5, 4));
    let l = locate(DOC, &[Seg::Key("agents"), Seg::Index(1)]);
    assert_eq!((l.line, l.value_col, l.value_len), (5, 14, 8));
    let l = locate(
        DOC,
        &[Seg::Key("tool_hooks"), Seg::Index(1), Seg::Key("match")],
    );
    assert_eq!((l.line, l.key_col, l.value_col), (9, 5, 12));
    let l = locate(
        DOC,
        &[Seg::Key("tool_hooks"), Seg::Index(1), Seg::Key("hook")],
    );
    assert_eq!((l.line, l.key_col), (8, 5));
    let l = locate(DOC, &[Seg::Key("tools"), Seg::Key("time"), Seg::Index(0)]);
    assert_eq!((l.line, l.value_col, l.value_len), (12, 10, 8));
    let l = locate(DOC, &[Seg::Key("nope")]);
    assert_eq!(l.line, 1);
}

#[test]
fn locates_flow_mapping_entries_and_keys_with_escapes() {
    let doc = "a: 1\nhooks: [{hook: h.rs:x, 'mtch': \"q\"}]\ntools: {time: [get_time, 5]}\n\"x\\ny\": 2\n";
    let l = locate(doc, &[Seg::Key("hooks"), Seg::Index(0), Seg::Key("mtch")]);
    assert_eq!(
        (l.line, l.key_col, l.key_len, l.value_col, l.value_len),
        (2, 24, 6, 32, 3)
    );
    let l = locate(doc, &[Seg::Key("hooks"), Seg::Index(0), Seg::Key("hook")]);
    assert_eq!((l.key_col, l.value_col, l.value_len), (10, 16, 6));
    let l = locate(doc, &[Seg::Key("tools"), Seg::Key("time"), Seg::Index(1)]);
    assert_eq!((l.line, l.value_col, l.value_len), (3, 26, 1));
    let l = locate(doc, &[Seg::Key("x\ny")]);
    assert_eq!((l.line, l.key_col, l.key_len, l.value_col), (4, 1, 6, 9));
}
