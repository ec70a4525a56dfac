//! Tests of `ToolArgs` (args.rs) and its typed form (typed.rs).

use super::*;
use serde::Serialize;
use serde_json::json;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Order {
    items: Vec<Item>,
}
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Item {
    qty: u32,
}

#[test]
fn shared_text_is_parsed_by_a_reader_and_stays_the_same_arguments_until_rewritten() {
    let mut sent = ToolArgs::from_json(r#"{"x":41}"#);
    sent.share_text();
    assert!(sent.is_raw());
    let mut read = sent.clone();
    assert!(read.is_shared_with(&sent), "a clone shares the text");
    assert_eq!(read.get("x"), Some(&json!(41)));
    assert!(!read.is_raw());
    // Read, not rewritten: still the text the model sent.
    assert!(read.is_shared_with(&sent));
    assert_eq!(read.shared_identity(), sent.shared_identity());
    let mut rewritten = read.clone();
    rewritten.insert("x", json!(1)).unwrap();
    assert!(!rewritten.is_shared_with(&sent));
    assert!(read.is_shared_with(&sent), "the reader's copy is untouched");
    assert_eq!(rewritten.to_value().unwrap(), json!({"x": 1}));
    assert_eq!(sent.to_value().unwrap(), json!({"x": 41}));
}

#[test]
fn malformed_arguments_name_the_field() {
    let args = ToolArgs::from_json(r#"{"items":[{"qty":1},{"qty":"two"}]}"#);
    let err = args.parse::<Order>("order").unwrap_err();
    match &err {
        ToolError::InvalidArguments(e) => {
            assert_eq!(e.tool, "order");
            assert_eq!(e.field.as_deref(), Some("items[1].qty"));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("items[1].qty"), "{err}");
    let missing = ToolArgs::from_json("{}")
        .parse::<Order>("order")
        .unwrap_err();
    assert!(
        missing.to_string().contains("missing field `items`"),
        "{missing}"
    );
}

#[test]
fn blank_text_is_an_empty_object_and_non_objects_are_rejected() {
    let mut args = ToolArgs::from_json("  ");
    assert!(args.object().unwrap().is_empty());
    let mut bad = ToolArgs::from_json("[1,2]");
    let err = bad.object().unwrap_err();
    assert!(err.to_string().contains("must be a JSON object"), "{err}");
    assert!(ToolArgs::from_value(json!(3)).is_err());
}

#[test]
fn rewrites_go_through_the_object_view() {
    let mut args = ToolArgs::from_json(r#"{"x": 50}"#);
    assert!(args.is_raw());
    args.insert("x", json!(10)).unwrap();
    assert_eq!(args.get("x"), Some(&json!(10)));
    assert_eq!(args.to_value().unwrap(), json!({"x": 10}));
}

#[test]
fn empty_arguments_are_an_empty_object() {
    let mut empty = ToolArgs::empty();
    assert_eq!(empty, ToolArgs::from_map(Map::new()));
    assert_eq!(empty, ToolArgs::from_json("{}"));
    assert_ne!(empty, ToolArgs::from_json(r#"{"x":1}"#));
    assert_eq!(
        ToolArgs::from_json(r#"{"x":1}"#),
        ToolArgs::from_value(json!({"x": 1})).unwrap()
    );
    assert_eq!(format!("{empty:?}"), "ToolArgs({})");
    assert_eq!(serde_json::to_string(&empty).unwrap(), "{}");
    assert!(empty.object().unwrap().is_empty());
}

#[test]
fn parse_reads_every_form_of_arguments_alike() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct P {
        x: Option<i64>,
    }
    let parse = |args: ToolArgs| args.parse::<P>("t").map(|p| p.x);
    assert_eq!(parse(ToolArgs::from_json(r#"{"x":1}"#)).unwrap(), Some(1));
    assert_eq!(parse(ToolArgs::from_json(" \n{\"x\":2}")).unwrap(), Some(2));
    assert_eq!(parse(ToolArgs::from_json("")).unwrap(), None);
    assert_eq!(parse(ToolArgs::from_json(" ")).unwrap(), None);
    assert_eq!(
        parse(ToolArgs::from_value(json!({"x": 3})).unwrap()).unwrap(),
        Some(3)
    );
    let array = parse(ToolArgs::from_json("[4]")).unwrap_err();
    assert!(
        array.to_string().contains("must be a JSON object"),
        "{array}"
    );
    let wrong = parse(ToolArgs::from_json(r#"{"x":"five"}"#)).unwrap_err();
    assert!(
        matches!(&wrong, ToolError::InvalidArguments(e) if e.field.as_deref() == Some("x")),
        "{wrong:?}"
    );
    let broken = parse(ToolArgs::from_json(r#"{"x":"#)).unwrap_err();
    assert!(
        matches!(broken, ToolError::InvalidArguments(_)),
        "{broken:?}"
    );
}

#[derive(Debug, Deserialize, Serialize, PartialEq)]
struct Refund {
    to: String,
    amount: u64,
}

#[test]
fn typed_arguments_are_parsed_once_and_the_tool_takes_the_value() {
    let mut args = ToolArgs::from_json(r#"{"to":"acme","amount":70}"#);
    args.share_text();
    let sent = args.clone();
    let first: *const Refund = args.typed::<Refund>("refund").unwrap();
    let second: *const Refund = args.typed::<Refund>("refund").unwrap();
    assert_eq!(
        first, second,
        "a second typed reader borrows the same value"
    );
    // Read only: still the arguments the model sent.
    assert!(args.is_shared_with(&sent));
    assert_eq!(args.raw_text(), None);
    let third: *const Refund = args.typed_mut::<Refund>("refund").unwrap();
    assert_eq!(first, third);
    args.typed_mut::<Refund>("refund").unwrap().amount = 50;
    assert!(!args.is_shared_with(&sent), "rewritten");
    // The tool takes the value itself: no second parse.
    let taken = args.clone().take_typed::<Refund>();
    assert!(taken.is_err(), "a clone is JSON, not the value");
    let taken = args.take_typed::<Refund>().unwrap();
    assert_eq!(
        taken,
        Refund {
            to: "acme".into(),
            amount: 50
        }
    );
}

#[test]
fn typed_arguments_read_as_json_show_the_rewrite() {
    let mut args = ToolArgs::from_json(r#"{"to":"acme","amount":70}"#);
    args.typed_mut::<Refund>("refund").unwrap().amount = 50;
    assert_eq!(
        args.to_value().unwrap(),
        json!({"to": "acme", "amount": 50})
    );
    assert_eq!(
        args.clone(),
        ToolArgs::from_value(json!({"to": "acme", "amount": 50})).unwrap()
    );
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"to": "acme", "amount": 50})
    );
    assert_eq!(
        format!("{args:?}"),
        r#"ToolArgs({"to":"acme","amount":50})"#
    );
    // A JSON hook after it reads and rewrites the same arguments; a typed
    // hook after that parses them again.
    assert_eq!(args.get("amount"), Some(&json!(50)));
    args.insert("amount", json!(40)).unwrap();
    assert_eq!(args.typed::<Refund>("refund").unwrap().amount, 40);
    // Another type parses from the JSON of the first.
    #[derive(Deserialize)]
    struct OnlyTo {
        to: String,
    }
    assert_eq!(args.typed::<OnlyTo>("refund").unwrap().to, "acme");
    assert_eq!(args.parse::<Refund>("refund").unwrap().amount, 40);
}

#[test]
fn typed_arguments_that_do_not_parse_are_invalid_arguments_naming_the_field() {
    let mut args = ToolArgs::from_json(r#"{"to":"acme","amount":"lots"}"#);
    let error = args.typed::<Refund>("refund").unwrap_err();
    match &error {
        ToolError::InvalidArguments(e) => {
            assert_eq!(e.tool, "refund");
            assert_eq!(e.field.as_deref(), Some("amount"));
        }
        other => panic!("unexpected {other:?}"),
    }
    // Untouched: the tool reports the same.
    assert_eq!(args.raw_text(), Some(r#"{"to":"acme","amount":"lots"}"#));
}
