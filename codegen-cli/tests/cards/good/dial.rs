//! Function tools of the Dial-Desk card, called by its request-start
//! injections (`hooks:`) with the arguments the card gives them. Each
//! records what it received in `DialDeps::calls`.

use std::sync::PoisonError;

use super::dial_deps_rs::DialDeps;
use hookwire::Dep;

fn record(deps: &DialDeps, call: String) {
    deps.calls
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(call);
}

/// The user's profile: the fields asked for.
pub fn profile(deps: Dep<DialDeps>, user: String, fields: Vec<String>) -> String {
    record(&deps, format!("profile {user} {fields:?}"));
    format!("{user}: {}", fields.join(", "))
}

/// The weather in `city`.
pub fn weather(deps: Dep<DialDeps>, city: String) -> String {
    record(&deps, format!("weather {city}"));
    let forecast = deps.forecast.lock().unwrap_or_else(PoisonError::into_inner);
    format!("{city}: {forecast}")
}

/// The `limit` newest headlines about `topic`.
pub fn news(deps: Dep<DialDeps>, topic: String, limit: u32) -> String {
    record(&deps, format!("news {topic} {limit}"));
    format!("{limit} headlines about {topic}")
}
