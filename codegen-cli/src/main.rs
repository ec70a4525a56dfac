//! `cardgen`: compile AgentCards to Rust.
//!
//! ```text
//! cardgen check DIR                 check every card, print every error
//! cardgen build DIR [--out OUT]     check, then generate (default OUT: DIR/generated)
//! cardgen explain DIR AGENT         every tool of AGENT with its resolved hook chain
//! cardgen explain --json DIR AGENT  the same as AGENT's policy document (JSON)
//! cardgen graph DIR --format mermaid|dot
//! cardgen schema                    the JSON Schema of the frontmatter
//! cardgen mcp lock [--check] [DIR]  pin the MCP servers' tools in DIR/hookwire.lock
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use hookwire_codegen::cards::{self, BuildOptions, Diagnostic, GraphFormat};

/// Compile AgentCards (`.md` with YAML frontmatter, `.yaml`, `.yml`) into
/// statically dispatched Rust agents.
#[derive(Parser)]
#[command(name = "cardgen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check every card of DIR and print every error (exit 1 on any).
    Check {
        /// The cards folder.
        dir: PathBuf,
    },
    /// Check, then generate one Rust module per card, `__rust_refs.rs` (the
    /// referenced Rust files and their adapters, once) and `mod.rs`.
    ///
    /// Nothing is written if any card has an error; files are written
    /// atomically and only when their content changed.
    Build {
        /// The cards folder.
        dir: PathBuf,
        /// The output folder (default: `DIR/generated`).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Print every tool of AGENT with its resolved chain, in the order it runs.
    Explain {
        /// The cards folder.
        dir: PathBuf,
        /// The agent's name.
        agent: String,
        /// Print the agent's policy document (JSON, CARDS.md "The policy
        /// document"), as the generated agent's `policy().to_json()` does.
        #[arg(long)]
        json: bool,
    },
    /// Print agents, tools, hooks and agent-as-tool edges as a picture.
    Graph {
        /// The cards folder.
        dir: PathBuf,
        /// The picture format.
        #[arg(long, value_enum, default_value = "mermaid")]
        format: Format,
    },
    /// Print the JSON Schema of the card frontmatter, for editors.
    Schema,
    /// MCP servers of the configuration beside the cards (`hookwire.yaml`).
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
}

#[derive(Subcommand)]
enum McpCommand {
    /// Start every server of DIR/hookwire.yaml and pin its tools
    /// (description digest, input schema, annotations) in
    /// DIR/hookwire.lock. With `--check`, write nothing: name every tool
    /// that differs from the lock (changed, new, missing) and exit 1 if
    /// any does.
    Lock {
        /// Compare the live servers with the lock instead of writing it.
        #[arg(long)]
        check: bool,
        /// The cards folder (default: the current folder).
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Mermaid,
    Dot,
}

/// `cardgen mcp lock [--check] DIR`.
fn mcp_lock(dir: &std::path::Path, check: bool) -> ExitCode {
    use hookwire_codegen::mcp_lock;
    if !check {
        return match mcp_lock::write(dir) {
            Ok(path) => {
                println!("wrote {}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match mcp_lock::check(dir) {
        Ok(drift) if drift.is_empty() => {
            println!("the MCP servers offer the locked tools");
            ExitCode::SUCCESS
        }
        Ok(drift) => {
            for d in &drift {
                eprintln!("error: {d}");
            }
            eprintln!(
                "error: {} difference{} from the lock; review the servers' tools, then write the lock again with `cardgen mcp lock`",
                drift.len(),
                if drift.len() == 1 { "" } else { "s" }
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn report(diags: &[Diagnostic]) -> ExitCode {
    for d in diags {
        eprintln!("{d}");
    }
    eprintln!(
        "error: {} error{} in the cards",
        diags.len(),
        if diags.len() == 1 { "" } else { "s" }
    );
    ExitCode::FAILURE
}

/// `cardgen` is allocation-heavy (`quote` -> `syn` -> `prettyplease` for
/// every card): with mimalloc, `cardgen build` of 1,000 cards takes about a
/// quarter less CPU than with glibc's allocator (BENCHMARKS.md, "The figures").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs the command on a thread with [`cards::STACK_SIZE`] of stack (the
/// Rust files the cards reference are parsed by recursive descent).
fn main() -> ExitCode {
    match std::thread::Builder::new()
        .stack_size(cards::STACK_SIZE)
        .spawn(run)
    {
        Ok(thread) => thread.join().unwrap_or(ExitCode::FAILURE),
        Err(_) => run(),
    }
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { dir } => match cards::load_dir(&dir) {
            Ok(c) => {
                println!("{} card(s) OK", c.cards.len());
                println!("{}", c.default_line());
                ExitCode::SUCCESS
            }
            Err(diags) => report(&diags),
        },
        Command::Build { dir, out } => {
            let out = out.unwrap_or_else(|| dir.join("generated"));
            match cards::build(&dir, &BuildOptions::new(&out)) {
                Ok((c, r)) => {
                    println!(
                        "{} card(s) -> {}: {} written, {} unchanged, {} removed",
                        c.cards.len(),
                        cards::escape(&out.display().to_string()),
                        r.written.len(),
                        r.unchanged.len(),
                        r.removed.len()
                    );
                    println!("{}", c.default_line());
                    ExitCode::SUCCESS
                }
                Err(cards::BuildError::Cards(diags)) => {
                    let code = report(&diags);
                    eprintln!(
                        "nothing was written to {}",
                        cards::escape(&out.display().to_string())
                    );
                    code
                }
                Err(e) => {
                    eprintln!("error: {}", cards::escape(&e.to_string()));
                    ExitCode::FAILURE
                }
            }
        }
        Command::Explain { dir, agent, json } => match cards::load_dir(&dir) {
            Ok(c) => match if json {
                cards::explain_json(&c, &agent)
            } else {
                cards::explain(&c, &agent)
            } {
                Some(text) => {
                    print!("{text}");
                    ExitCode::SUCCESS
                }
                None => {
                    let names: Vec<&str> = c.cards.iter().map(|c| c.spec.name.as_str()).collect();
                    eprintln!("error: no agent named `{}`", cards::escape(&agent));
                    if let Some(s) = cards::did_you_mean(&agent, names.iter().copied()) {
                        eprintln!("  = help: did you mean `{}`?", cards::escape(s));
                    }
                    eprintln!("  = note: agents: {}", cards::escape(&names.join(", ")));
                    ExitCode::FAILURE
                }
            },
            Err(diags) => report(&diags),
        },
        Command::Graph { dir, format } => match cards::load_dir(&dir) {
            Ok(c) => {
                let f = match format {
                    Format::Mermaid => GraphFormat::Mermaid,
                    Format::Dot => GraphFormat::Dot,
                };
                print!("{}", cards::graph(&c, f));
                ExitCode::SUCCESS
            }
            Err(diags) => report(&diags),
        },
        Command::Mcp {
            command: McpCommand::Lock { check, dir },
        } => mcp_lock(&dir, check),
        Command::Schema => {
            match serde_json::to_string_pretty(&cards::schema()) {
                Ok(s) => println!("{s}"),
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
    }
}
