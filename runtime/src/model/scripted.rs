//! The scripted model: plays back a script of turns.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Message, Model, ModelError, ModelRequest, ModelResponse, Usage};
use crate::BoxFuture;
use hookwire_chain::call::{ToolArgs, ToolCall};

/// How a [`ScriptedModel`] picks the next turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ScriptMode {
    /// Turns are played in order; a turn whose expectation does not hold is
    /// an error ([`ModelError::ScriptMismatch`]).
    #[default]
    InOrder,
    /// Each request plays the first unplayed turn whose expectation holds
    /// (for agents called concurrently, where the order is not fixed).
    Match,
    /// The answer depends on the conversation alone: a request whose
    /// messages hold `n` assistant messages gets turn `n` (its expectation
    /// checked as in order). The model keeps no count of its own, so one
    /// value serves any number of sessions, and a run replayed or resumed
    /// in another process (a durable session after a restart, a run
    /// imported from its state) gets the answers it would have got. Set
    /// with [`ScriptedModel::by_conversation`] or `mode: conversation`.
    Conversation,
}

/// What a turn expects of the request it answers. Every field set must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnExpectation {
    /// The last user message contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_contains: Option<String>,
    /// The last message (of any role; for a tool result, its text) contains
    /// this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_contains: Option<String>,
    /// The agent asking has this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// These tools are on offer (others may be too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_offered: Vec<String>,
    /// The request asks for a final answer of the output schema of this
    /// name ([`ModelRequest::output`]; `Answer` for `run_typed::<Answer>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl TurnExpectation {
    /// `Ok(())` if the request meets the expectation, else what was wrong
    /// as `(expected, found)`.
    fn check(&self, request: &ModelRequest<'_>) -> Result<(), (String, String)> {
        if let Some(agent) = &self.agent
            && request.agent != agent
        {
            return Err((
                format!("agent `{agent}`"),
                format!("the agent is `{}`", request.agent),
            ));
        }
        if let Some(needle) = &self.user_contains {
            let last = request.last_user_text().unwrap_or_default();
            if !last.contains(needle.as_str()) {
                return Err((
                    format!("a user message containing {needle:?}"),
                    format!("the last user message is {last:?}"),
                ));
            }
        }
        if let Some(needle) = &self.last_contains {
            let last = request
                .messages
                .last()
                .map(Message::text)
                .unwrap_or_default();
            if !last.contains(needle.as_str()) {
                return Err((
                    format!("a last message containing {needle:?}"),
                    format!("the last message is {last:?}"),
                ));
            }
        }
        if let Some(name) = &self.output {
            let asked = request.output.map(|spec| spec.name.as_str());
            if asked != Some(name.as_str()) {
                return Err((
                    format!("a request for output `{name}`"),
                    match asked {
                        Some(other) => format!("it asks for output `{other}`"),
                        None => "it asks for no output schema".to_owned(),
                    },
                ));
            }
        }
        for tool in &self.tools_offered {
            if !request.tools.iter().any(|t| &t.name == tool) {
                return Err((
                    format!("tool `{tool}` on offer"),
                    "it is not offered".to_owned(),
                ));
            }
        }
        Ok(())
    }
}

/// A tool call in a script. Arguments are a JSON object, or a string that
/// is sent verbatim as the model's argument text (to script malformed
/// arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedToolCall {
    /// The tool-use id; defaults to `call_<turn>_<index>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    #[serde(default)]
    pub arguments: Value,
}

/// One scripted turn: optional expectations, then text and/or tool calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// What the request must look like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<TurnExpectation>,
    /// The text of the answer.
    #[serde(default)]
    pub text: String,
    /// The tool calls of the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ScriptedToolCall>,
    /// The usage to report.
    #[serde(default)]
    pub usage: Usage,
}

impl Turn {
    /// A turn answering with text.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// A turn calling one tool with JSON arguments.
    pub fn call(name: impl Into<String>, arguments: Value) -> Self {
        Self::default().and_call(name, arguments)
    }

    /// Adds a tool call.
    pub fn and_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.tool_calls.push(ScriptedToolCall {
            id: None,
            name: name.into(),
            arguments,
        });
        self
    }

    /// Sets the expectation.
    pub fn expecting(mut self, expect: TurnExpectation) -> Self {
        self.expect = Some(expect);
        self
    }

    fn response(&self, index: usize) -> ModelResponse {
        let tool_calls = self
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let id = call
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{index}_{i}"));
                let arguments = match &call.arguments {
                    Value::String(text) => ToolArgs::from_json(text.clone()),
                    Value::Null => ToolArgs::empty(),
                    Value::Object(map) => ToolArgs::from_map(map.clone()),
                    other => ToolArgs::from_json(other.to_string()),
                };
                ToolCall::new(id, call.name.clone(), arguments)
            })
            .collect();
        ModelResponse {
            text: self.text.clone(),
            tool_calls,
            usage: self.usage,
            ..ModelResponse::default()
        }
    }
}

/// A script: a name, a mode and turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The model's name in traces (default `scripted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How turns are picked.
    #[serde(default)]
    pub mode: ScriptMode,
    /// The turns.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// Whether the model answers an output schema natively (with a JSON
    /// text turn), as OpenAI or Gemini do; by default (`false`) a typed run
    /// offers it the final-answer tool, which a turn calls
    /// (`tool_calls: [{name: final_result, arguments: {..}}]`), as for
    /// Anthropic. Either kind of answer is accepted both ways.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub native_output: bool,
}

impl Script {
    /// Parses a script from JSON: a `{name, mode, turns}` object or a bare
    /// list of turns.
    pub fn from_json(text: &str) -> Result<Self, ModelError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ModelError::InvalidScript(e.to_string()))?;
        Self::from_value(value)
    }

    /// Parses a script from YAML (same shapes as [`from_json`](Self::from_json)).
    #[cfg(feature = "yaml")]
    #[cfg_attr(docsrs, doc(cfg(feature = "yaml")))]
    pub fn from_yaml(text: &str) -> Result<Self, ModelError> {
        Self::from_value(super::yaml::from_str(text).map_err(ModelError::InvalidScript)?)
    }

    /// A script from a JSON value.
    pub fn from_value(value: Value) -> Result<Self, ModelError> {
        let value = match value {
            Value::Array(turns) => serde_json::json!({ "turns": turns }),
            other => other,
        };
        serde_json::from_value(value).map_err(|e| ModelError::InvalidScript(e.to_string()))
    }
}

/// A model that plays back a [`Script`]: deterministic, offline, the
/// default for examples and tests.
///
/// ```
/// # use hookwire::model::{Message, Model, ModelRequest, ScriptedModel};
/// let model = ScriptedModel::from_yaml(r#"
/// turns:
///   - tool_calls:
///       - name: add
///         arguments: {a: 1, b: 2}
///   - expect: {last_contains: "3"}
///     text: "1 + 2 = 3"
/// "#).unwrap();
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let history = [Message::user("add 1 and 2")];
/// let first = model.complete(ModelRequest::new("calc", "", &history, &[])).await.unwrap();
/// assert_eq!(&*first.tool_calls[0].name, "add");
/// # });
/// ```
#[derive(Debug)]
pub struct ScriptedModel {
    name: String,
    mode: ScriptMode,
    turns: Vec<Turn>,
    played: Mutex<Played>,
    native_output: bool,
}

/// Which turns were played: constant work per request in order, however
/// long the script (a 2,000-step run must not pay for its early steps on
/// every later one).
#[derive(Debug)]
struct Played {
    turns: Vec<bool>,
    /// How many are played.
    done: usize,
    /// No turn before this one is unplayed.
    first_open: usize,
}

impl Played {
    fn new(n: usize) -> Self {
        Self {
            turns: vec![false; n],
            done: 0,
            first_open: 0,
        }
    }

    fn is_played(&self, index: usize) -> bool {
        self.turns.get(index).copied().unwrap_or(true)
    }

    fn mark(&mut self, index: usize) {
        if let Some(slot) = self.turns.get_mut(index)
            && !*slot
        {
            *slot = true;
            self.done += 1;
        }
        while self.first_open < self.turns.len() && self.is_played(self.first_open) {
            self.first_open += 1;
        }
    }

    /// The first unplayed turn.
    fn first_open(&self) -> Option<usize> {
        (self.first_open < self.turns.len()).then_some(self.first_open)
    }
}

impl ScriptedModel {
    /// A model playing `script`.
    pub fn new(script: Script) -> Self {
        Self {
            name: script.name.unwrap_or_else(|| "scripted".to_owned()),
            mode: script.mode,
            played: Mutex::new(Played::new(script.turns.len())),
            turns: script.turns,
            native_output: script.native_output,
        }
    }

    /// Answers output schemas natively (see [`Script::native_output`]).
    pub fn with_native_output(mut self, native: bool) -> Self {
        self.native_output = native;
        self
    }

    /// A model playing `turns` in order.
    pub fn from_turns(turns: impl IntoIterator<Item = Turn>) -> Self {
        Self::new(Script {
            turns: turns.into_iter().collect(),
            ..Script::default()
        })
    }

    /// A model from a JSON script.
    pub fn from_json(text: &str) -> Result<Self, ModelError> {
        Script::from_json(text).map(Self::new)
    }

    /// A model from a YAML script.
    #[cfg(feature = "yaml")]
    #[cfg_attr(docsrs, doc(cfg(feature = "yaml")))]
    pub fn from_yaml(text: &str) -> Result<Self, ModelError> {
        Script::from_yaml(text).map(Self::new)
    }

    /// A model from a script file (`.json`, or YAML otherwise).
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self, ModelError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| ModelError::InvalidScript(format!("{}: {e}", path.display())))?;
        if path.extension().is_some_and(|e| e == "json") {
            return Self::from_json(&text);
        }
        #[cfg(feature = "yaml")]
        return Self::from_yaml(&text);
        #[cfg(not(feature = "yaml"))]
        Err(ModelError::InvalidScript(format!(
            "{}: YAML scripts need the `yaml` feature",
            path.display()
        )))
    }

    /// Answers by the conversation ([`ScriptMode::Conversation`]): the turn
    /// after `n` assistant messages is turn `n`, whatever this value played
    /// before. The model for durable sessions, and for one agent value
    /// serving many sessions from one script.
    ///
    /// ```
    /// # use hookwire::model::{Message, Model, ModelRequest, ScriptedModel, Turn};
    /// let model = ScriptedModel::from_turns([Turn::text("first"), Turn::text("second")])
    ///     .by_conversation();
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let fresh = [Message::user("hi")];
    /// let later = [Message::user("hi"), Message::assistant("first"), Message::user("and?")];
    /// for _ in 0..2 {
    ///     // Asked again, it answers again: the conversation decides.
    ///     let a = model.complete(ModelRequest::new("a", "", &fresh, &[])).await.unwrap();
    ///     let b = model.complete(ModelRequest::new("a", "", &later, &[])).await.unwrap();
    ///     assert_eq!((a.text.as_str(), b.text.as_str()), ("first", "second"));
    /// }
    /// # });
    /// ```
    pub fn by_conversation(mut self) -> Self {
        self.mode = ScriptMode::Conversation;
        self
    }

    /// Skips the first `n` turns (to resume a run in a new process).
    pub fn skip(self, n: usize) -> Self {
        {
            let mut played = self.lock();
            for index in 0..n.min(self.turns.len()) {
                played.mark(index);
            }
        }
        self
    }

    /// How many turns have been played.
    pub fn played(&self) -> usize {
        self.lock().done
    }

    /// How many turns are left.
    pub fn remaining(&self) -> usize {
        self.turns.len() - self.played()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Played> {
        crate::lock(&self.played)
    }

    fn next(&self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let mut played = self.lock();
        let done = played.done;
        let index = match self.mode {
            ScriptMode::InOrder => played.first_open(),
            ScriptMode::Conversation => {
                let answered = request
                    .messages
                    .iter()
                    .filter(|m| matches!(m, crate::model::Message::Assistant { .. }))
                    .count();
                (answered < self.turns.len()).then_some(answered)
            }
            ScriptMode::Match => None,
        };
        match self.mode {
            ScriptMode::InOrder | ScriptMode::Conversation => {
                let Some(index) = index else {
                    return Err(self.exhausted(match self.mode {
                        // Every turn was played, in this conversation.
                        ScriptMode::Conversation => self.turns.len(),
                        _ => done,
                    }));
                };
                let turn = &self.turns[index];
                if let Some(expect) = &turn.expect {
                    expect.check(request).map_err(|(expected, found)| {
                        ModelError::ScriptMismatch {
                            model: self.name.clone(),
                            turn: index,
                            expected,
                            found,
                        }
                    })?;
                }
                played.mark(index);
                Ok(turn.response(index))
            }
            ScriptMode::Match => {
                let mut first_miss = None;
                for (index, turn) in self.turns.iter().enumerate().skip(played.first_open) {
                    if played.is_played(index) {
                        continue;
                    }
                    match turn.expect.as_ref().map(|e| e.check(request)) {
                        None | Some(Ok(())) => {
                            played.mark(index);
                            return Ok(turn.response(index));
                        }
                        Some(Err(miss)) => {
                            first_miss.get_or_insert((index, miss));
                        }
                    }
                }
                match first_miss {
                    Some((turn, (expected, found))) => Err(ModelError::ScriptMismatch {
                        model: self.name.clone(),
                        turn,
                        expected,
                        found,
                    }),
                    None => Err(self.exhausted(done)),
                }
            }
        }
    }

    fn exhausted(&self, played: usize) -> ModelError {
        ModelError::ScriptExhausted {
            model: self.name.clone(),
            played,
        }
    }
}

impl Model for ScriptedModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn native_output(&self) -> bool {
        self.native_output
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let answer = self.next(&request);
        if let (Ok(response), Some(_)) = (&answer, request.on_text) {
            // Streamed, the text arrives a word at a time.
            for chunk in response.text.split_inclusive(char::is_whitespace) {
                request.text_delta(chunk);
            }
        }
        Box::pin(std::future::ready(answer))
    }
}

#[cfg(all(test, feature = "yaml"))]
mod tests {
    use super::*;
    use crate::model::Message;

    #[test]
    fn a_yaml_script_with_mode_conversation_answers_by_the_conversation() {
        let model = match ScriptedModel::from_yaml(
            "mode: conversation\nturns:\n  - text: one\n  - text: two\n",
        ) {
            Ok(model) => model,
            Err(e) => panic!("{e}"),
        };
        let fresh = [Message::user("a")];
        let later = [
            Message::user("a"),
            Message::assistant("one"),
            Message::user("b"),
        ];
        let done = [
            Message::user("a"),
            Message::assistant("one"),
            Message::user("b"),
            Message::assistant("two"),
            Message::user("c"),
        ];
        for _ in 0..2 {
            let text = |m: &[Message]| {
                model
                    .next(&ModelRequest::new("a", "", m, &[]))
                    .map(|r| r.text)
            };
            assert_eq!(text(&later).ok().as_deref(), Some("two"));
            assert_eq!(text(&fresh).ok().as_deref(), Some("one"));
            assert!(matches!(
                text(&done),
                Err(ModelError::ScriptExhausted { played: 2, .. })
            ));
        }
    }
}
