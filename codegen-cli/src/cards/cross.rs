//! Checks across cards: duplicate names, names the generated code would
//! declare twice, agent references (unknown, self, listed twice), cycles
//! and default agents. Every check is linear in the number of cards and
//! references (a chain of thousands of cards included).

use std::collections::{BTreeMap, HashMap, HashSet};

use super::diag::{Suggester, listing};
use super::fields::Parsed;
use super::names::Generated;
use super::{Diagnostic, build};
use crate::yaml::Seg;

/// Every check across `parsed`; `broken` are the names (file stems) of the
/// cards that did not load, which references may still name.
pub(crate) fn cross_check(parsed: &[Parsed], broken: &[String], diags: &mut Vec<Diagnostic>) {
    for p in parsed {
        check_spec(p, diags);
    }
    let by_name = unique_names(parsed, diags);
    check_children(parsed, &by_name, broken, diags);
    check_cycles(&by_name, diags);
    check_default(parsed, diags);
}

/// Every card by its agent's name: a name given twice, or two agents whose
/// generated Rust names clash, is an error.
fn unique_names<'p>(
    parsed: &'p [Parsed],
    diags: &mut Vec<Diagnostic>,
) -> HashMap<&'p str, &'p Parsed> {
    let mut by_name: HashMap<&str, &Parsed> = HashMap::new();
    // Each name `mod.rs` declares (an agent's type, tool-set type and
    // module share its type namespace) -> (agent, what it is there).
    let mut taken: HashMap<String, (&str, &'static str)> = HashMap::from([
        (build::RUST_REFS_MODULE.to_owned(), ("", "module")),
        (build::MCP_TYPES_MODULE.to_owned(), ("", "module")),
    ]);
    for p in parsed {
        if let Some(first) = by_name.get(p.spec.name.as_str()) {
            diags.push(
                p.name_diag(format!("duplicate agent name `{}`", p.spec.name))
                    .note(format!("first declared in {}", first.display.display()))
                    .help("give every card a distinct `name`"),
            );
            continue;
        }
        by_name.insert(&p.spec.name, p);
        let Some(generated) = Generated::for_agent(&p.spec.name) else {
            continue;
        };
        for (name, what) in generated.all() {
            match taken.get(name) {
                Some((owner, theirs)) => {
                    let whose = if owner.is_empty() {
                        "the generated code's own".to_owned()
                    } else {
                        format!("agent `{owner}`'s")
                    };
                    diags.push(
                        p.name_diag(format!(
                            "agent `{}` gives the same Rust name `{name}` as {whose} {theirs}: `mod.rs` would declare `{name}` twice",
                            p.spec.name
                        ))
                        .note(format!("`{}` is the {what} of agent `{}`", name, p.spec.name))
                        .help("rename one of the agents"),
                    );
                    break;
                }
                None => {
                    taken.insert(name.to_owned(), (&p.spec.name, what));
                }
            }
        }
    }
    by_name
}

/// Each card's `agents:`: not itself, each once, each a known agent (or
/// one whose card is broken, reported already).
fn check_children(
    parsed: &[Parsed],
    by_name: &HashMap<&str, &Parsed>,
    broken: &[String],
    diags: &mut Vec<Diagnostic>,
) {
    let known: HashSet<&str> = by_name
        .keys()
        .copied()
        .chain(broken.iter().map(String::as_str))
        .collect();
    let mut names: Vec<&str> = known.iter().copied().collect();
    names.sort_unstable();
    let mut suggester = Suggester::default();
    for p in parsed {
        let mut listed: HashMap<&str, usize> = HashMap::new();
        for (i, child) in p.spec.agents.iter().enumerate() {
            let at = [Seg::Key("agents"), Seg::Index(i)];
            if child.name == p.spec.name {
                diags.push(
                    p.src
                        .at(
                            &at,
                            true,
                            format!("agent `{}` lists itself in `agents`", child.name),
                        )
                        .help("an agent cannot call itself as a tool"),
                );
            } else if let Some(first) = listed.get(child.name.as_str()) {
                diags.push(
                    p.src
                        .at(
                            &at,
                            true,
                            format!("agent `{}` is listed twice in `agents`", child.name),
                        )
                        .note(format!("it is also agents[{first}]"))
                        .help("list every child agent once"),
                );
            } else if !known.contains(child.name.as_str()) {
                diags.push(
                    p.src
                        .at(&at, true, format!("unknown agent `{}`", child.name))
                        .maybe_help(
                            suggester
                                .did_you_mean(&child.name, &names)
                                .map(|s| crate::spec::suggestion_help(&child.name, s)),
                        )
                        .note(format!("known agents: {}", listing(&names))),
                );
            }
            listed.entry(&child.name).or_insert(i);
        }
    }
}

/// Agents as tools form a tree: each cycle is an error (self-references
/// are reported by [`check_children`]).
fn check_cycles(by_name: &HashMap<&str, &Parsed>, diags: &mut Vec<Diagnostic>) {
    let graph: BTreeMap<&str, Vec<&str>> = by_name
        .iter()
        .map(|(name, p)| {
            (
                *name,
                p.spec
                    .agents
                    .iter()
                    .map(|a| a.name.as_str())
                    .filter(|a| a != name && by_name.contains_key(a))
                    .collect(),
            )
        })
        .collect();
    for cycle in cycles(&graph) {
        let p = by_name[cycle[0]];
        let idx = p
            .spec
            .agents
            .iter()
            .position(|a| a.name == cycle[1])
            .unwrap_or(0);
        let mut shown = cycle.clone();
        shown.push(cycle[0]);
        diags.push(
            p.src
                .at(
                    &[Seg::Key("agents"), Seg::Index(idx)],
                    true,
                    format!("agents form a cycle: {}", shown.join(" -> ")),
                )
                .help("agents as tools must form a tree: remove one of these references"),
        );
    }
}

/// At most one card is the default agent.
fn check_default(parsed: &[Parsed], diags: &mut Vec<Diagnostic>) {
    let defaults: Vec<&Parsed> = parsed.iter().filter(|p| p.spec.default).collect();
    for extra in defaults.iter().skip(1) {
        diags.push(
            extra
                .src
                .at(
                    &[Seg::Key("default")],
                    false,
                    format!(
                        "more than one default agent: `{}` and `{}`",
                        defaults[0].spec.name, extra.spec.name
                    ),
                )
                .note(format!(
                    "`{}` is the default agent already ({})",
                    defaults[0].spec.name,
                    defaults[0].display.display()
                ))
                .help(format!(
                    "remove `default: true` here, or from `{}`: one card is the generated module's `default()`",
                    defaults[0].spec.name
                )),
        );
    }
}

/// One cycle per strongly connected component of `graph` that has one: the
/// shortest cycle through the component's first node (in name order),
/// starting there. Components come in the order of their first nodes.
/// Linear in nodes and edges, and without recursion (a chain of 100,000
/// agents needs no deep stack).
/// The spec's own rules ([`AgentSpec::validate`](crate::spec::AgentSpec::validate),
/// the same rules and messages as `#[agent]`'s), each an error at the
/// field it is about: a hook whose `match:` selects none of its agent's
/// tools at that `match:`, a `tool_input_schema` that does not describe an
/// object at its key.
fn check_spec(p: &Parsed, diags: &mut Vec<Diagnostic>) {
    use crate::spec::{HookPlace, SpecField};
    let spec = unresolved_spec(p);
    for error in spec.validate() {
        // A child listed twice has the same tool name twice; it is reported
        // once, as listed twice (above, in `cross_check`).
        if let SpecField::Agent(i) = error.field
            && let Some(child) = p.spec.agents.get(i)
            && p.spec.agents[..i].iter().any(|c| c.name == child.name)
        {
            continue;
        }
        match error.field {
            SpecField::Hook(place @ (HookPlace::ToolHook(_) | HookPlace::Lifecycle(_))) => {
                diags.push(match_diag(p, place, error.message));
            }
            SpecField::ToolInputSchema => {
                let at = [Seg::Key("tool_input_schema")];
                diags.push(p.src.at(&at, false, error.message));
            }
            SpecField::McpTools(i) => {
                let server = p.spec.mcp_tools.get(i).map_or("", |t| t.server.as_str());
                let at = [Seg::Key("tools"), Seg::Key(server)];
                diags.push(p.src.at(&at, false, error.message));
            }
            _ => diags.push(p.name_diag(error.message)),
        }
    }
}

/// The card's spec before its Rust references resolve: the function tools
/// by name only (their metadata unknown), a name given twice once (it is
/// reported when they resolve, with the references).
fn unresolved_spec(p: &Parsed) -> crate::spec::AgentSpec {
    let mut spec = p.spec.clone();
    let mut names = crate::spec::UniqueToolNames::new();
    for (i, r) in p.tool_refs.iter().enumerate() {
        if names.insert(&r.function, i).is_ok() {
            spec.function_tools
                .push(crate::spec::ToolRef::new("", r.function.clone()));
        }
    }
    spec
}

/// An error about the matcher of the hook at `place`, at its `match:`
/// (a hook with a matcher is a mapping: `{hook: .., match: ..}`).
fn match_diag(p: &Parsed, place: crate::spec::HookPlace, message: String) -> Diagnostic {
    use crate::spec::HookPlace;
    let r = match place {
        HookPlace::ToolHook(i) => p.hook_refs.get(i),
        HookPlace::Lifecycle(i) => p.lifecycle_refs.get(i),
        HookPlace::ToolEntry { .. } => None,
    };
    match r {
        Some(r) => {
            let mut path = vec![Seg::Key(r.field)];
            path.extend(r.index.map(Seg::Index));
            path.push(Seg::Key("match"));
            p.src.at(&path, true, message)
        }
        None => p.name_diag(message),
    }
}

/// The `meta:` parts that only the function tools' metadata decides (read
/// from their `#[hookwire::tool(meta(..))]` once they resolve, into
/// `resolved`): each hook's first part that selects no tool, at its
/// `match:`, with the metadata the tools declare.
pub(crate) fn check_meta_matchers(
    p: &Parsed,
    resolved: &crate::spec::AgentSpec,
    diags: &mut Vec<Diagnostic>,
) {
    let before = unresolved_spec(p);
    let undecided: Vec<crate::spec::HookPlace> = before
        .hooks_with_undecided_meta()
        .iter()
        .filter_map(|h| h.parts.first().map(|(u, _)| u.place))
        .collect();
    for unmatched in resolved.hooks_selecting_no_tool() {
        if undecided.contains(&unmatched.place) {
            let message = unmatched.message(resolved);
            diags.push(match_diag(p, unmatched.place, message));
        }
    }
}

fn cycles<'a>(graph: &BTreeMap<&'a str, Vec<&'a str>>) -> Vec<Vec<&'a str>> {
    let nodes: Vec<&str> = graph.keys().copied().collect();
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = graph
        .values()
        .map(|next| next.iter().filter_map(|n| index.get(n).copied()).collect())
        .collect();
    let mut found: Vec<Vec<&str>> = strongly_connected(&adj)
        .into_iter()
        .filter(|c| c.len() > 1)
        .filter_map(|component| {
            let start = component.iter().copied().min()?;
            let members: HashSet<usize> = component.into_iter().collect();
            shortest_cycle(&adj, start, &members)
                .map(|path| path.into_iter().map(|i| nodes[i]).collect())
        })
        .collect();
    found.sort_unstable_by(|a: &Vec<&str>, b| a[0].cmp(b[0]));
    found
}

/// The strongly connected components of `adj` (Tarjan's algorithm, with
/// an explicit stack).
fn strongly_connected(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State {
        order: Vec<usize>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        /// (node, index of its next edge to follow)
        work: Vec<(usize, usize)>,
    }
    impl State {
        fn visit(&mut self, v: usize) {
            self.order[v] = self.next;
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            self.work.push((v, 0));
        }
    }
    const UNSEEN: usize = usize::MAX;
    let n = adj.len();
    let mut st = State {
        order: vec![UNSEEN; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        work: Vec::new(),
    };
    let mut out = Vec::new();
    for root in 0..n {
        if st.order[root] != UNSEEN {
            continue;
        }
        st.visit(root);
        while let Some(&(v, edge)) = st.work.last() {
            if let Some(&w) = adj[v].get(edge) {
                if let Some(top) = st.work.last_mut() {
                    top.1 += 1;
                }
                if st.order[w] == UNSEEN {
                    st.visit(w);
                } else if st.on_stack[w] {
                    st.low[v] = st.low[v].min(st.order[w]);
                }
                continue;
            }
            st.work.pop();
            if let Some(&(parent, _)) = st.work.last() {
                st.low[parent] = st.low[parent].min(st.low[v]);
            }
            if st.low[v] == st.order[v] {
                let mut component = Vec::new();
                while let Some(w) = st.stack.pop() {
                    st.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

/// The shortest path `start -> .. -> start` inside `members` (breadth
/// first), without the closing `start`.
fn shortest_cycle(
    adj: &[Vec<usize>],
    start: usize,
    members: &HashSet<usize>,
) -> Option<Vec<usize>> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &adj[v] {
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while let Some(&p) = parent.get(&at) {
                    path.push(p);
                    at = p;
                }
                path.reverse();
                if path.first() != Some(&start) {
                    path.insert(0, start);
                }
                return Some(path);
            }
            if members.contains(&w) && !parent.contains_key(&w) {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn graph<'a>(edges: &[(&'a str, &[&'a str])]) -> BTreeMap<&'a str, Vec<&'a str>> {
        edges.iter().map(|(n, e)| (*n, e.to_vec())).collect()
    }

    #[test]
    fn one_shortest_cycle_per_component_in_name_order() {
        let g = graph(&[
            ("a", &["b"]),
            ("b", &["c", "a"]),
            ("c", &["a"]),
            ("d", &["e"]),
            ("e", &["f"]),
            ("f", &["d"]),
            ("g", &["a"]),
        ]);
        assert_eq!(cycles(&g), [vec!["a", "b"], vec!["d", "e", "f"]]);
        assert!(cycles(&graph(&[("a", &["b"]), ("b", &[])])).is_empty());
    }

    #[test]
    fn a_long_chain_needs_no_deep_stack() {
        let found = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let names: Vec<String> = (0..200_000).map(|i| format!("n{i:06}")).collect();
                let mut g: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
                for (i, n) in names.iter().enumerate() {
                    g.insert(n, vec![&names[(i + 1) % names.len()]]);
                }
                cycles(&g).into_iter().map(|c| c.len()).collect::<Vec<_>>()
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(found, [200_000]);
    }
}
