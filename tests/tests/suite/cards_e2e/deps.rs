//! A card with `deps:`, built from them, in a tool set and in a runner.

use super::*;

#[test]
fn a_card_with_deps_is_built_from_them_and_its_tools_get_their_part() {
    let corner = agents::Shop::new(&shop_deps("Corner", &[("apple", 3), ("pear", 0)]));
    let market = agents::Shop::new(&shop_deps("Market", &[("apple", 40)]));
    // `Dep<Inventory>`: the part `impl FromRef<ShopDeps> for Inventory`
    // takes; each agent value has its own.
    let r = run(corner.tools(), "stock", r#"{"item": "apple"}"#);
    assert!(!r.is_error, "{}", r.text_content());
    assert_eq!(r.text_content(), "3 apple in stock [stamped]");
    assert_eq!(
        run(market.tools(), "stock", r#"{"item": "apple"}"#).text_content(),
        "40 apple in stock [stamped]"
    );
    // `Dep<ShopDeps>`: the dependencies themselves.
    assert_eq!(
        run(corner.tools(), "about", "{}").text_content(),
        "Corner: 2 kinds [stamped]"
    );
    // A struct parameter declared in the tool's own file (`Line`).
    assert_eq!(
        run(
            corner.tools(),
            "order",
            r#"{"lines": [{"item": "apple", "count": 2}, {"item": "pear", "count": 1}]}"#
        )
        .text_content(),
        "2 apple: ok, 1 pear: short [stamped]"
    );
    // A tool marked `#[hookwire::tool]` in its file, whose `greeting`
    // has a default: left out, it applies; the schema shows it.
    assert_eq!(
        run(corner.tools(), "greet", r#"{"name": "Ann"}"#).text_content(),
        "hello Ann [stamped]"
    );
    assert_eq!(
        run(
            corner.tools(),
            "greet",
            r#"{"name": "Ann", "greeting": "hi"}"#
        )
        .text_content(),
        "hi Ann [stamped]"
    );
    let greet = corner.tools().definitions();
    let greet = greet.iter().find(|d| d.name == "greet").unwrap();
    assert_eq!(greet.input_schema["required"], serde_json::json!(["name"]));
    assert_eq!(
        greet.input_schema["properties"]["greeting"],
        serde_json::json!({"type": "string", "default": "hello"})
    );
    // A dependency is not an argument: the model sees `item` only.
    let defs = corner.tools().definitions();
    assert_eq!(defs[0].name, "stock");
    assert_eq!(
        defs[0].input_schema["required"],
        serde_json::json!(["item"])
    );
    assert_eq!(
        defs[0].input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["item"]
    );
    assert!(
        defs[1].input_schema["properties"]
            .as_object()
            .is_none_or(|p| p.is_empty())
    );
}

#[test]
fn a_runner_runs_a_card_agent_built_from_its_deps() {
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call("stock", serde_json::json!({"item": "pear"})),
        Turn::call("about", serde_json::json!({})),
        Turn::text("done"),
    ]);
    let agent = agents::Shop::new(&shop_deps("Corner", &[("pear", 7)]));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let out = rt
        .block_on(Runner::new(agent, model).run("pears?"))
        .unwrap();
    assert_eq!(out.text, "done");
    let results: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent { tool, result, .. } = &**call;
                Some(format!("{tool}: {}", result.text_content()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            "stock: 7 pear in stock [stamped]",
            "about: Corner: 1 kinds [stamped]"
        ]
    );
}
