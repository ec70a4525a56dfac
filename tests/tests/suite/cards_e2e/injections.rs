//! The Dial-Desk card's request-start injections: arguments, frequency and
//! TTL.

use super::*;

/// The Dial-Desk card's request-start injections, run on three requests
/// with a clock set by hand: each calls its function tool with the card's
/// `arguments` and through the card's tool hook (`[tag]`); `frequency:
/// always` (`profile`) injects at every request; `append_if_changed`
/// (`weather`) injects again only when the result changed (an unchanged
/// one replaces its pair in place); the TTL of 10 minutes (`news`) reuses
/// its result before expiry, without a call, and calls again after it.
#[test]
fn the_dial_cards_injections_call_their_tools_with_the_cards_arguments_by_frequency_and_ttl() {
    use hookwire::agent::inject::ManualClock;
    let deps = agents::dial_desk::deps::DialDeps::default();
    "sunny".clone_into(&mut deps.forecast.lock().unwrap());
    let clock = Arc::new(ManualClock::new(1_000_000));
    let desk = Desk::new(Vec::<String>::new());
    let mut runner =
        Runner::new(agents::DialDesk::new(&deps), desk.clone()).with_clock(clock.clone());
    let rt = runtime(false);
    let mut calls_per_request = Vec::new();
    for (prompt, forecast, minutes) in [("1", "sunny", 0), ("2", "sunny", 9), ("3", "rain", 2)] {
        clock.advance(minutes * 60);
        forecast.clone_into(&mut deps.forecast.lock().unwrap());
        let out = rt.block_on(runner.run(prompt)).unwrap();
        assert_eq!(out.text, format!("done: {prompt}"));
        calls_per_request.push(std::mem::take(&mut *deps.calls.lock().unwrap()));
    }
    assert_eq!(
        calls_per_request,
        [
            vec![
                "profile ada [\"name\", \"city\"]",
                "weather Paris",
                "news rust 2"
            ],
            // 9 minutes on: the news is fresh, nothing calls it.
            vec!["profile ada [\"name\", \"city\"]", "weather Paris"],
            // 11 minutes after the first news: expired, called again.
            vec![
                "profile ada [\"name\", \"city\"]",
                "weather Paris",
                "news rust 2"
            ],
        ]
    );
    let seen: Vec<Vec<String>> = desk
        .sent_by("Dial-Desk")
        .into_iter()
        .map(|s| s.messages)
        .collect();
    let profile = [
        "assistant:  -> profile({\"user\":\"ada\",\"fields\":[\"name\",\"city\"]})",
        "tool: ada: name, city [tag]",
    ];
    let weather = |forecast: &str| {
        [
            "assistant:  -> weather({\"city\":\"Paris\"})".to_owned(),
            format!("tool: Paris: {forecast} [tag]"),
        ]
    };
    let news = [
        "assistant:  -> news({\"topic\":\"rust\",\"limit\":2})",
        "tool: 2 headlines about rust [tag]",
    ];
    let mut first: Vec<String> = vec!["user: 1".into()];
    first.extend(profile.map(String::from));
    first.extend(weather("sunny"));
    first.extend(news.map(String::from));
    assert_eq!(seen[0], first, "request 1");
    // Request 2: a second profile pair; the unchanged weather replaced in
    // place (still one pair); no second news pair.
    let mut second = first.clone();
    second.push("assistant: done: 1".into());
    second.push("user: 2".into());
    second.extend(profile.map(String::from));
    assert_eq!(seen[1], second, "request 2");
    // Request 3: the changed weather and the expired news are appended.
    let mut third = second.clone();
    third.push("assistant: done: 2".into());
    third.push("user: 3".into());
    third.extend(profile.map(String::from));
    third.extend(weather("rain"));
    third.extend(news.map(String::from));
    assert_eq!(seen[2], third, "request 3");
    assert_eq!(seen.len(), 3);
}
