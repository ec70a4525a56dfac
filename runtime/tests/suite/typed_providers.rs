//! Typed output against local servers speaking each provider's documented
//! wire format: OpenAI chat completions (native and OpenAI-compatible),
//! Anthropic and Gemini are asked for the schema natively, and their JSON
//! text is the answer; a model in tool mode is required to call a tool.

use crate::mock_http::{Answer, Seen, serve};

use hookwire::Router;
use hookwire::agent::{AgentConfig, BasicAgent, Runner};
use serde_json::json;

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Plan {
    /// The city.
    city: String,
    /// How many days.
    days: u32,
}

fn agent() -> BasicAgent<Router> {
    BasicAgent::new(
        AgentConfig::new("planner").with_instruction("You plan trips."),
        Router::new(),
    )
}

fn next(seen: &std::sync::mpsc::Receiver<Seen>) -> Seen {
    seen.recv_timeout(std::time::Duration::from_secs(10))
        .unwrap()
}

/// A chat-completions answer whose message content is `content`.
#[cfg(any(feature = "openai", feature = "providers"))]
fn chat_completion(content: &str) -> Answer {
    Answer::json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": content, "refusal": null}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}
    }))
}

#[cfg(feature = "providers")]
mod native {
    use super::*;
    use hookwire::model::{Provider, ProviderConfig, ProviderModel};

    /// A provider's model at the local server `url`, not streamed.
    fn model(provider: Provider, name: &str, url: String) -> ProviderModel {
        ProviderModel::new(
            ProviderConfig::new(provider, name)
                .with_api_key("k")
                .with_base_url(url)
                .with_streaming(false),
        )
        .unwrap()
    }

    /// A Messages response, as the documentation shows it, with `content`.
    fn messages_answer(content: serde_json::Value, stop: &str) -> Answer {
        Answer::json(json!({
            "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
            "model": "claude-test", "content": content,
            "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 120, "output_tokens": 30}
        }))
    }

    #[tokio::test]
    async fn anthropic_is_asked_for_the_json_schema_natively() {
        // Structured outputs: the text block is the JSON answer.
        let (url, seen) = serve(vec![messages_answer(
            json!([{"type": "text", "text": "{\"city\": \"Oslo\", \"days\": 3}"}]),
            "end_turn",
        )]);
        let model = model(Provider::Anthropic, "claude-test", url);
        let mut runner = Runner::new(agent(), model);
        let out = runner
            .run_typed::<Plan>("Plan three days in Oslo")
            .await
            .unwrap();
        assert_eq!(
            out.value,
            Plan {
                city: "Oslo".into(),
                days: 3
            }
        );
        let r = next(&seen);
        assert_eq!(r.path, "/v1/messages");
        let format = &r.body["output_config"]["format"];
        assert_eq!(format["type"], "json_schema", "{}", r.body);
        assert_eq!(format["schema"]["required"], json!(["city", "days"]));
        assert!(
            r.body.get("tools").is_none(),
            "no final-answer tool: {}",
            r.body
        );
    }

    /// A model that does not answer natively (here Anthropic behind a
    /// `Model` that says so): the final-answer tool is offered and a tool
    /// call is required, so the model cannot answer with text.
    struct ToolMode(ProviderModel);

    impl hookwire::model::Model for ToolMode {
        fn name(&self) -> &str {
            self.0.name()
        }

        fn complete<'a>(
            &'a self,
            request: hookwire::model::ModelRequest<'a>,
        ) -> hookwire::BoxFuture<
            'a,
            Result<hookwire::model::ModelResponse, hookwire::model::ModelError>,
        > {
            self.0.complete(request)
        }
    }

    #[tokio::test]
    async fn a_model_in_tool_mode_must_call_a_tool() {
        let call = |id: &str, input: serde_json::Value| {
            messages_answer(
                json!([
                    {"type": "text", "text": "Here is the plan."},
                    {"type": "tool_use", "id": id, "name": "final_result", "input": input}
                ]),
                "tool_use",
            )
        };
        let (url, seen) = serve(vec![
            call("toolu_01A", json!({"city": "Oslo", "days": "three"})),
            call("toolu_01B", json!({"city": "Oslo", "days": 3})),
        ]);
        let model = ToolMode(model(Provider::Anthropic, "claude-test", url));
        let mut runner = Runner::new(agent(), model);
        let out = runner
            .run_typed::<Plan>("Plan three days in Oslo")
            .await
            .unwrap();
        assert_eq!(out.value.days, 3);
        assert_eq!((out.output.usage.input_tokens, out.output.steps), (240, 2));
        let r1 = next(&seen);
        let tools = r1.body["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 1, "{tools:#?}");
        assert_eq!(tools[0]["name"], "final_result");
        assert_eq!(
            r1.body["tool_choice"],
            json!({"type": "any"}),
            "{}",
            r1.body
        );
        assert!(r1.body.get("output_config").is_none(), "{}", r1.body);
        // The second request answers the first call with the error.
        let r2 = next(&seen);
        assert_eq!(r2.body["tool_choice"], json!({"type": "any"}));
        let messages = r2.body["messages"].as_array().unwrap();
        let result = &messages[2]["content"][0];
        assert_eq!(result["type"], "tool_result", "{messages:#?}");
        assert_eq!(result["tool_use_id"], "toolu_01A");
        assert_eq!(
            result["content"],
            "the answer does not match the schema: at `days`: invalid type: string \"three\", expected u32. Call `final_result` again with a corrected answer."
        );
    }

    #[tokio::test]
    async fn openai_chat_is_asked_for_the_json_schema_natively() {
        let (url, seen) = serve(vec![chat_completion(r#"{"city":"Rome","days":2}"#)]);
        let model = model(Provider::OpenAi, "gpt-test", format!("{url}/v1"));
        let mut runner = Runner::new(agent(), model);
        let out = runner.run_typed::<Plan>("Plan Rome").await.unwrap();
        assert_eq!(out.value.city, "Rome");
        let r = next(&seen);
        assert_eq!(r.path, "/v1/chat/completions");
        let format = &r.body["response_format"];
        assert_eq!(format["type"], "json_schema", "{}", r.body);
        assert_eq!(format["json_schema"]["name"], "Plan");
        assert_eq!(format["json_schema"]["strict"], true);
        assert_eq!(
            format["json_schema"]["schema"]["required"],
            json!(["city", "days"])
        );
        assert_eq!(
            format["json_schema"]["schema"]["additionalProperties"],
            false
        );
        assert!(r.body.get("tools").is_none(), "no final-answer tool");
    }

    #[tokio::test]
    async fn gemini_is_asked_for_the_response_json_schema() {
        let answer = Answer::json(json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "{\"city\": \"Lima\", \"days\": 5}"}
            ]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 9, "totalTokenCount": 39},
            "modelVersion": "gemini-test"
        }));
        let (url, seen) = serve(vec![answer]);
        let model = model(Provider::Gemini, "gemini-test", url);
        let mut runner = Runner::new(agent(), model);
        let out = runner.run_typed::<Plan>("Plan Lima").await.unwrap();
        assert_eq!(out.value.days, 5);
        let r = next(&seen);
        let config = &r.body["generationConfig"];
        assert_eq!(config["responseMimeType"], "application/json", "{}", r.body);
        assert_eq!(
            config["responseJsonSchema"]["required"],
            json!(["city", "days"])
        );
        assert!(
            !out.output
                .trace
                .iter()
                .any(|e| matches!(e, hookwire::agent::TraceEvent::OutputRetry { .. }))
        );
    }
}

#[cfg(feature = "openai")]
#[tokio::test]
async fn the_openai_compatible_model_sends_response_format_and_reads_the_answer() {
    use hookwire::model::{OpenAiConfig, OpenAiModel};
    let (url, seen) = serve(vec![
        chat_completion(r#"{"city":"Rome"}"#),
        chat_completion(r#"{"city":"Rome","days":2}"#),
    ]);
    let model = OpenAiModel::new(
        OpenAiConfig::new("gpt-test")
            .with_base_url(format!("{url}/v1"))
            .with_api_key("sk-test"),
    )
    .unwrap();
    let mut runner = Runner::new(agent(), model);
    let out = runner.run_typed::<Plan>("Plan Rome").await.unwrap();
    assert_eq!(out.value.days, 2);
    let r1 = next(&seen);
    assert_eq!(
        r1.body["response_format"],
        json!({"type": "json_schema", "json_schema": {
            "name": "Plan",
            "strict": true,
            "schema": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city."},
                    "days": {"type": "integer", "format": "uint32", "minimum": 0, "description": "How many days."}
                },
                "required": ["city", "days"],
                "additionalProperties": false
            }
        }})
    );
    // The mismatch went back as a user message; the schema was asked again.
    let r2 = next(&seen);
    let messages = r2.body["messages"].as_array().unwrap();
    assert_eq!(
        messages.last().unwrap(),
        &json!({"role": "user", "content": "Your answer does not match the output schema `Plan`: missing field `days`. Answer again with the JSON value only."})
    );
    assert_eq!(r2.body["response_format"], r1.body["response_format"]);
}

/// In tool mode (a wrapper whose `native_output` is false) the
/// OpenAI-compatible client requires a tool call and asks for no
/// `response_format`.
#[cfg(feature = "openai")]
#[test]
fn the_openai_compatible_model_requires_a_tool_call_in_tool_mode() {
    use hookwire::model::{
        Message, ModelRequest, OpenAiConfig, OpenAiModel, OutputMode, OutputSpec,
    };
    let model = OpenAiModel::new(OpenAiConfig::new("gpt-test")).unwrap();
    let spec = OutputSpec::for_type::<Plan>().with_mode(OutputMode::Tool);
    let tools = [spec.tool_definition()];
    let history = [Message::user("Plan Rome")];
    let request = ModelRequest::new("planner", "", &history, &tools).with_output(&spec);
    let body = model.request_body(&request);
    assert_eq!(body["tool_choice"], "required", "{body}");
    assert_eq!(body["tools"][0]["function"]["name"], "final_result");
    assert!(body.get("response_format").is_none(), "{body}");
    // Natively, no tool call is required.
    let native = OutputSpec::for_type::<Plan>().with_mode(OutputMode::Native);
    let request = ModelRequest::new("planner", "", &history, &[]).with_output(&native);
    assert!(model.request_body(&request).get("tool_choice").is_none());
}
