//! The vocabulary hookwire shares between its runtime, its `#[agent]` macro
//! and its AgentCards generator, in one small crate without syn:
//!
//! * [`ToolSource`] and [`Matcher`]: which tools a hook applies to, with
//!   one evaluation at code generation time and at run time;
//! * the tool-name rules ([`agent_tool_name`], [`SERVER_SEPARATOR`],
//!   [`sanitize_tool_name`], [`injection_tool_names`]);
//! * the words of a declaration ([`FailurePolicy`], [`HookKind`],
//!   [`HookEvent`], [`HistorySource`], [`HistoryMergeTarget`],
//!   [`Frequency`], [`RefreshCondition`]) with their spellings;
//! * the settings table ([`for_each_setting!`], [`SETTINGS`]): the keys
//!   of a declaration that hold one plain value, each declared once for
//!   every front end and the runtime;
//! * model strings ([`parse_model_string`]), read one way by the runtime
//!   and `cardgen check`;
//! * the MCP server configuration file ([`parse_server_entry`],
//!   [`check_server_file_key`]), read one way by the runtime and `cardgen
//!   check`;
//! * the MCP lock file ([`McpLock`]): the tools each server offered when
//!   it was locked, read one way by cardgen, the macros and the runtime;

//! * an agent's policy as data ([`Policy`], its JSON document) and the
//!   coverage rules checked on it ([`coverage_problem`]);
//! * did-you-mean suggestions ([`did_you_mean`], [`nearest_names`]) and
//!   the perfect hash generated dispatch uses ([`dispatch`]).
//!
//! The agent spec both front ends lower to, and its checks, are not here:
//! only code generation reads them, so they live in `hookwire-codegen`
//! (`hookwire_codegen::spec`, which re-exports this crate beside them).

pub mod dispatch;
mod lock;
mod matcher;
mod meta;
mod model;
mod names;
mod output;
mod policy;
mod servers;
mod settings;
mod source;
mod suggest;
mod vocab;

pub use lock::{
    DriftKind, LOCK_FILE, LOCK_VERSION, LockAspect, LockedTool, McpLock, OnChange, ToolDrift,
    model_description,
};
pub use matcher::{
    MAX_MATCHER_DEPTH, MAX_MATCHER_LEN, MatchTarget, Matcher, MatcherError, StepKind,
};
pub use meta::{
    MCP_HINT_KEYS, MetaError, MetaExpr, MetaFormula, ToolMeta, check_meta, check_meta_key,
    check_meta_value, str_eq,
};
pub use model::{
    ModelProvider, ModelString, ModelStringError, OFFLINE_MODEL_PREFIXES, known_prefixes,
    parse_model_string,
};
pub use names::{
    AGENT_TOOL_PREFIX, InvalidName, MAX_DURABLE_NAME_LEN, MAX_TOOL_NAME_LEN, SERVER_SEPARATOR,
    agent_tool_name, check_agent_name, check_durable_name, check_tool_name, derived_durable_name,
    injection_tool_names, invalid_tool_name_char, is_tool_name_char, is_valid_durable_name,
    is_valid_tool_name, mcp_tool_name, sanitize_tool_name,
};
pub use output::{SchemaError, SchemaStep, pointer_steps, steps_text};
#[cfg(feature = "output-schema")]
pub use output::{check_output_schema, compile_output_schema};
pub use policy::{
    Approval, CoverageKind, CoverageProblem, CoverageRule, HookLevel, List, Message,
    POLICY_VERSION, Policy, PolicyHook, PolicyTool, Selected, Text, ToolKind, UnknownCoverageRule,
    check_coverage, coverage_message, coverage_problem, parse_coverage_entry,
};
pub use servers::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, EntryTransport, HeaderPiece, RESERVED_HEADERS,
    SERVER_ENTRY_KEYS, SERVER_FILE_KEYS, ServerEntry, check_header, check_server_file_key,
    check_server_name, header_pieces, is_header_text, parse_server_entry, server_entry_errors,
};
pub use settings::{
    SETTINGS, Setting, SettingKind, Spelled, check_positive, check_text_setting, kind,
};
pub use source::{ToolSource, UnknownToolSource};
pub use suggest::{MAX_SUGGESTED_LEN, did_you_mean, nearest_names, non_ascii, suggestion_help};
pub use vocab::{
    FailurePolicy, Frequency, HistoryMergeTarget, HistorySource, HookEvent, HookKind,
    RefreshCondition, UnknownValue,
};
