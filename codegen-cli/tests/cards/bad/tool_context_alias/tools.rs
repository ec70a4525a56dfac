//! Tools.
use hookwire::ToolContext;

/// The context under a name of this file.
pub type Cx = ToolContext;

/// Names the tool.
pub fn who(cx: &Cx) -> String {
    cx.tool().to_owned()
}
