//! The ratios the chain bench reports at the end of a criterion run, read
//! from the estimates criterion wrote during this run.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One ratio to report: `numerator / denominator` and its target.
struct Ratio {
    what: &'static str,
    numerator: &'static str,
    denominator: &'static str,
    target: Target,
}

enum Target {
    AtMost(f64),
    AtLeast(f64),
    Info,
}

const RATIOS: &[Ratio] = &[
    Ratio {
        what: "the root of a call, no hook / direct",
        numerator: "chain/root",
        denominator: "chain/direct",
        target: Target::Info,
    },
    Ratio {
        what: "1 no-op hook / direct",
        numerator: "chain/noop_1",
        denominator: "chain/direct",
        target: Target::Info,
    },
    Ratio {
        what: "4 no-op hooks / direct",
        numerator: "chain/noop_4",
        denominator: "chain/direct",
        target: Target::Info,
    },
    Ratio {
        what: "16 no-op hooks / direct",
        numerator: "chain/noop_16",
        denominator: "chain/direct",
        target: Target::AtMost(2.0),
    },
    Ratio {
        what: "16 counting hooks / hand-inlined",
        numerator: "chain/count16_hookwire",
        denominator: "chain/count16_inline",
        target: Target::AtMost(1.10),
    },
    Ratio {
        what: "16 pass-through named-future hooks / direct",
        numerator: "chain/noop16_poll",
        denominator: "chain/direct",
        target: Target::Info,
    },
    Ratio {
        what: "16 counting named-future hooks / hand-inlined",
        numerator: "chain/count16_poll",
        denominator: "chain/count16_inline",
        target: Target::Info,
    },
    Ratio {
        what: "boxed Vec<Arc<dyn>> chain / ours (16 counting)",
        numerator: "chain/count16_boxed",
        denominator: "chain/count16_hookwire",
        target: Target::AtLeast(5.0),
    },
    Ratio {
        what: "e2e Router, no hooks / hand-written",
        numerator: "e2e/hookwire_0_hooks",
        denominator: "e2e/hand_written",
        target: Target::AtMost(1.25),
    },
    Ratio {
        what: "e2e generated tool set, no hooks / hand-written",
        numerator: "e2e/generated_0_hooks",
        denominator: "e2e/hand_written",
        target: Target::AtMost(1.25),
    },
    Ratio {
        what: "e2e generated, perfect-hash dispatch, no hooks / hand-written",
        numerator: "e2e/generated_0_hooks_hashed",
        denominator: "e2e/hand_written",
        target: Target::Info,
    },
    Ratio {
        what: "e2e generated tool set, 4 hooks / hand-written",
        numerator: "e2e/generated_4_hooks",
        denominator: "e2e/hand_written",
        target: Target::Info,
    },
    Ratio {
        what: "e2e Router, 4 hooks / hand-written",
        numerator: "e2e/hookwire_4_hooks",
        denominator: "e2e/hand_written",
        target: Target::Info,
    },
];

/// criterion's output folder: `$CRITERION_HOME`, or `criterion/` in the
/// target folder this binary was built in (`<target>/release/deps/chain-*`).
fn criterion_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(home.into());
    }
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("criterion"))
}

/// The mean (ns) criterion estimated for `id` in this run, if it ran.
fn mean_ns(home: &Path, id: &str, since: SystemTime) -> Option<f64> {
    let path = home.join(id).join("new").join("estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["mean"]["point_estimate"].as_f64()
}

pub(super) fn report(since: SystemTime) {
    let Some(home) = criterion_home() else {
        return;
    };
    let mut lines = Vec::new();
    for ratio in RATIOS {
        let (Some(num), Some(den)) = (
            mean_ns(&home, ratio.numerator, since),
            mean_ns(&home, ratio.denominator, since),
        ) else {
            continue;
        };
        let value = num / den;
        let verdict = match ratio.target {
            Target::AtMost(max) if value <= max => format!("ok (<= {max:.2}x)"),
            Target::AtMost(max) => format!("MISSED (target <= {max:.2}x)"),
            Target::AtLeast(min) if value >= min => format!("ok (>= {min:.2}x)"),
            Target::AtLeast(min) => format!("MISSED (target >= {min:.2}x)"),
            Target::Info => String::new(),
        };
        lines.push(format!(
            "  {:<48} {:>7.2}x  ({:>8.1} ns / {:>8.1} ns)  {}",
            ratio.what, value, num, den, verdict
        ));
    }
    if !lines.is_empty() {
        println!("\nhookwire chain ratios (criterion means, this run):");
        for line in lines {
            println!("{line}");
        }
    }
}
