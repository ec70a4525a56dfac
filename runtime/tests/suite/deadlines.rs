//! Every network wait has a deadline: against a server that accepts the
//! connection and never answers, each client gives up after its configured
//! timeout with an error that says so (model calls, the durable client,
//! MCP over HTTP).

use std::net::TcpListener;
use std::time::Duration;

/// A server that accepts every connection and never answers (nor closes
/// one); its URL. The connections live as long as the process.
fn silent_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming() {
            match stream {
                Ok(stream) => open.push(stream),
                Err(_) => return,
            }
        }
    });
    url
}

const SHORT: Duration = Duration::from_millis(300);

#[cfg(feature = "openai")]
#[tokio::test]
async fn an_openai_call_to_a_silent_server_times_out() {
    use hookwire::model::{Message, Model, ModelError, ModelRequest, OpenAiConfig, OpenAiModel};
    let url = silent_server();
    let model = OpenAiModel::new(
        OpenAiConfig::new("m")
            .with_base_url(format!("{url}/v1"))
            .with_timeout(SHORT),
    )
    .unwrap();
    let history = [Message::user("hi")];
    let error = model
        .complete(ModelRequest::new("a", "", &history, &[]))
        .await
        .unwrap_err();
    assert!(
        matches!(error, ModelError::TimedOut { after_ms: 300 }),
        "{error:?}"
    );
    assert!(error.is_retryable());
}

#[cfg(feature = "providers")]
#[tokio::test]
async fn a_provider_call_to_a_silent_server_times_out_plain_and_streamed() {
    use hookwire::model::{
        Message, Model, ModelError, ModelRequest, Provider, ProviderConfig, ProviderModel,
    };
    for streaming in [false, true] {
        let url = silent_server();
        let model = ProviderModel::new(
            ProviderConfig::new(Provider::Anthropic, "c")
                .with_api_key("sk-ant-test")
                .with_base_url(url)
                .with_timeout(SHORT)
                .with_streaming(streaming),
        )
        .unwrap();
        let history = [Message::user("hi")];
        let error = model
            .complete(ModelRequest::new("a", "", &history, &[]))
            .await
            .unwrap_err();
        assert!(
            matches!(error, ModelError::TimedOut { after_ms: 300 }),
            "streaming {streaming}: {error:?}"
        );
    }
}

#[cfg(feature = "durable")]
#[tokio::test]
async fn the_durable_client_times_out_on_a_silent_server_and_checks_ids() {
    use hookwire::durable::{ClientError, DurableClient};
    let url = silent_server();
    let client = DurableClient::new(url.clone())
        .unwrap()
        .with_timeout(SHORT)
        .with_run_timeout(SHORT);
    let timed_out =
        |e: &ClientError| matches!(e, ClientError::TimedOut { after, .. } if *after == SHORT);
    let e = client.state(&url, "s1").await.unwrap_err();
    assert!(timed_out(&e), "{e:?}");
    assert!(
        e.to_string().contains("did not answer within 300 ms"),
        "{e}"
    );
    let e = client.start("s1", "hi", None).await.unwrap_err();
    assert!(timed_out(&e), "{e:?}");
    let e = client.run("s1", "hi").await.unwrap_err();
    assert!(timed_out(&e), "{e:?}");
    let e = client.output("inv_1abc").await.unwrap_err();
    assert!(timed_out(&e), "{e:?}");
    // An id that is not one a start returned never reaches a URL.
    for bad in ["../admin", "inv_1/attach", "inv 1", "", "inv_1?x=1"] {
        let e = client.output(bad).await.unwrap_err();
        assert!(
            matches!(e, ClientError::InvalidInvocationId { .. }),
            "{bad}: {e:?}"
        );
    }
}

#[cfg(feature = "mcp")]
#[tokio::test]
async fn an_mcp_http_server_that_never_answers_is_reported_unavailable() {
    use hookwire::mcp::{McpConfig, McpOptions, McpServers, ServerSpec, ServerStatus};
    let url = silent_server();
    let config = McpConfig::new()
        .with_server(
            "mute",
            ServerSpec::http(format!("{url}/mcp")).startup_timeout(SHORT),
        )
        .unwrap();
    let servers = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap();
    let Some(ServerStatus::Unavailable(why)) = servers.status("mute") else {
        panic!("{:?}", servers.status("mute"));
    };
    assert!(
        why.contains("did not finish starting (initialize and tools/list) within 300 ms"),
        "{why}"
    );
}
