//! What a matcher is evaluated against: one tool call, or a step.

use crate::ToolSource;
use crate::meta::ToolMeta;

/// The metadata of a target that has none.
static NO_META: ToolMeta = ToolMeta::EMPTY;

/// What a matcher is evaluated against: one tool call's identity, or (for
/// a lifecycle hook's `stop` and `step_end`) a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MatchTarget<'a> {
    /// The tool's name as the model sees it (for MCP tools, `server__tool`);
    /// empty for a step as a whole.
    pub tool: &'a str,
    /// Where the tool comes from.
    pub source: ToolSource,
    /// The kind of step: a tool execution, or the final answer.
    pub step: StepKind,
    /// The metadata the tool declares (`meta:` parts read it).
    pub meta: &'a ToolMeta,
}

impl<'a> MatchTarget<'a> {
    /// A target for a call of `tool` from `source` (a tool execution).
    pub const fn new(tool: &'a str, source: ToolSource) -> Self {
        Self {
            tool,
            source,
            step: StepKind::Tool,
            meta: &NO_META,
        }
    }

    /// The same target, for a tool that declares `meta`.
    pub const fn with_meta(self, meta: &'a ToolMeta) -> Self {
        Self { meta, ..self }
    }

    /// The same target, with `meta` when the tool's metadata is known.
    pub const fn with_meta_if(self, meta: Option<&'a ToolMeta>) -> Self {
        match meta {
            Some(meta) => self.with_meta(meta),
            None => self,
        }
    }

    /// A step as a whole, of kind `step` (no tool: only `step:` parts and
    /// negations select it).
    pub const fn step(step: StepKind) -> Self {
        Self {
            tool: "",
            source: ToolSource::Function,
            step,
            meta: &NO_META,
        }
    }

    /// Whether this is one tool call (name and source parts apply).
    pub(super) const fn is_call(&self) -> bool {
        !self.tool.is_empty()
    }
}

/// The kind of an agent step, for `step:` matchers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// The model answered with tool calls, which run (`step:tool`).
    Tool,
    /// The model gave its final answer (`step:final`).
    Final,
}

impl StepKind {
    /// Every kind with its spelling after `step:`.
    pub const ALL: [(&'static str, StepKind); 2] = [("tool", Self::Tool), ("final", Self::Final)];

    /// `tool` or `final`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Final => "final",
        }
    }
}
