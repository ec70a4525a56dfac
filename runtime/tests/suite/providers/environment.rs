//! Building a provider model: the errors before a run, and keys and base
//! URLs from the providers' environment variables.

use super::*;

#[test]
fn a_missing_key_or_an_unknown_provider_is_one_error_before_the_run() {
    let Err(e) = ProviderModel::new(ProviderConfig::new(Provider::Anthropic, "claude-x")) else {
        panic!("built without a key");
    };
    assert!(matches!(&e, ModelError::MissingKey { .. }));
    assert_eq!(
        e.to_string(),
        "model `anthropic:claude-x` needs an API key: set ANTHROPIC_API_KEY"
    );
    let Err(e) = from_spec("antropic:claude-x", None) else {
        panic!("an unknown provider was accepted");
    };
    assert_eq!(
        e.to_string(),
        "unknown model provider `antropic` in `antropic:claude-x` (did you mean `anthropic`?); \
         known: anthropic, openai, openai-responses, gemini, ollama, passthrough, scripted, playback"
    );
    // A provider's name before a `/` would be an OpenAI model name.
    let Err(e) = from_spec("anthropic/claude-x", None) else {
        panic!("`anthropic/claude-x` was taken as an OpenAI model");
    };
    assert_eq!(
        e.to_string(),
        "model not configured: model string `anthropic/claude-x` would be the OpenAI model \
         `anthropic/claude-x`: did you mean `anthropic:claude-x`? (for an OpenAI-compatible \
         router that spells models so, write `openai:anthropic/claude-x`)"
    );
    assert!(from_spec("openai:anthropic/claude-x", None).is_ok());
    let Err(e) = from_spec("ollama:", None) else {
        panic!("no model name was accepted");
    };
    assert_eq!(
        e.to_string(),
        "model not configured: model string `ollama:` names no model: write `ollama:<model>`"
    );
    // Ollama needs no key.
    assert_eq!(
        from_spec("ollama:qwen3:8b", None).unwrap().name(),
        "ollama:qwen3:8b"
    );
}

const CHILD_VAR: &str = "HOOKWIRE_PROVIDERS_CHILD";

/// The environment path (keys and base URLs from the provider's usual
/// variables) in child processes, since the variables are process-wide.
#[test]
fn keys_and_base_urls_come_from_the_providers_environment_variables() {
    let answer = Answer::json(json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-env",
        "content": [{"type": "text", "text": "hello from the proxy"}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 3, "output_tokens": 4}
    }));
    let (url, seen) = serve(vec![answer]);
    let child = |envs: &[(&str, &str)], remove: &[&str]| {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.args([
            "--ignored",
            "--exact",
            "providers::environment::env_child",
            "--nocapture",
            "--test-threads=1",
        ]);
        for var in remove {
            command.env_remove(var);
        }
        command.envs(envs.iter().copied());
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    };
    let stdout = child(
        &[
            (CHILD_VAR, "key"),
            ("ANTHROPIC_API_KEY", "sk-from-env"),
            ("ANTHROPIC_BASE_URL", &url),
        ],
        &[],
    );
    assert!(stdout.contains("answer: hello from the proxy"), "{stdout}");
    let r = next(&seen);
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.headers["x-api-key"], "sk-from-env");
    let stdout = child(&[(CHILD_VAR, "no key")], &["ANTHROPIC_API_KEY"]);
    assert!(
        stdout.contains(
            "error: model `anthropic:claude-env` needs an API key: set ANTHROPIC_API_KEY"
        ),
        "{stdout}"
    );
}

#[tokio::test]
#[ignore = "run by keys_and_base_urls_come_from_the_providers_environment_variables in a child process"]
async fn env_child() {
    let Ok(mode) = std::env::var(CHILD_VAR) else {
        panic!("{CHILD_VAR} is not set: this test is run by keys_and_base_urls_come_from_...");
    };
    match from_spec("anthropic:claude-env", None) {
        Ok(model) => {
            assert_eq!(mode, "key");
            let history = [Message::user("hi")];
            let r = model
                .complete(ModelRequest::new("a", "", &history, &[]))
                .await
                .unwrap();
            println!("answer: {}", r.text);
        }
        Err(e) => println!("error: {e}"),
    }
}
