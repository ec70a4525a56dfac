//! `deps:` and the `Dep<T>` parameters of function tools.

use hookwire_codegen::cards::{self, BuildOptions};

use super::{put, render};

/// A folder with one card `a` (its frontmatter lines `fields`) and the
/// given files.
fn deps_folder(fields: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path().join("a.md"),
        format!("---\nname: a\n{fields}---\nHi.\n"),
    );
    for (name, text) in files {
        put(dir.path().join(name), text);
    }
    dir
}

const APP_DEPS: &str = "/// Deps.\n#[derive(Clone)]\npub struct AppDeps;\n";

#[test]
fn deps_sets_the_agents_dependency_type_and_the_cards_module_reexports_its_file() {
    let dir = deps_folder("deps: deps.rs:AppDeps\n", &[("deps.rs", APP_DEPS)]);
    let loaded = cards::load_dir(dir.path()).unwrap();
    let card = &loaded.cards[0];
    assert_eq!(card.spec.deps.as_deref(), Some("deps::AppDeps"));
    let deps_file = card.deps_file.as_deref().unwrap();
    assert!(deps_file.ends_with("deps.rs"), "{deps_file:?}");
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    let a = &files[0].content;
    assert!(
        a.contains("\npub use super::__rust_refs::deps_rs as deps;\n"),
        "{a}"
    );
    assert!(
        a.contains("pub fn new(deps: &deps::AppDeps) -> Self"),
        "{a}"
    );
    // Public, so that the re-export is allowed.
    assert!(
        files[1].content.contains("\npub mod deps_rs;\n"),
        "{}",
        files[1].content
    );

    // Without `deps:`, `new()` and no re-export.
    let dir = deps_folder("", &[]);
    let loaded = cards::load_dir(dir.path()).unwrap();
    assert_eq!(loaded.cards[0].spec.deps, None);
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    assert!(files[0].content.contains("pub fn new() -> Self"));
    assert!(!files[0].content.contains(" as deps;"));
}

#[test]
fn a_dep_is_provided_by_a_from_ref_impl_in_any_file_the_card_references() {
    let card = "deps: deps.rs:AppDeps\nfunction_tools: [tools.rs:get]\n";
    // `Dep<std::sync::Arc<crate::Pool>>` asks for `Arc<Pool>`; the impl is
    // in the tool's own file and names the trait unqualified.
    let tools = "use hookwire::{Dep, FromRef};\nuse super::deps_rs::AppDeps;\n/// A pool.\npub struct Pool;\n\
                 impl FromRef<AppDeps> for std::sync::Arc<Pool> { fn from_ref(_: &AppDeps) -> Self { std::sync::Arc::new(Pool) } }\n\
                 /// Gets.\npub fn get(pool: Dep<std::sync::Arc<crate::Pool>>) -> String { let _ = pool; String::new() }\n";
    let dir = deps_folder(card, &[("deps.rs", APP_DEPS), ("tools.rs", tools)]);
    cards::load_dir(dir.path()).unwrap();

    // Not an impl that counts: behind a `cfg`, generic, or for other
    // dependencies.
    for impl_ in [
        "#[cfg(test)]\nimpl FromRef<AppDeps> for Arc<Pool> { fn from_ref(_: &AppDeps) -> Self { todo!() } }\n",
        "impl<D> FromRef<D> for Arc<Pool> { fn from_ref(_: &D) -> Self { todo!() } }\n",
        "impl FromRef<OtherDeps> for Arc<Pool> { fn from_ref(_: &OtherDeps) -> Self { todo!() } }\n",
    ] {
        let tools = format!(
            "use hookwire::{{Dep, FromRef}};\nuse std::sync::Arc;\n/// A pool.\npub struct Pool;\n{impl_}\
             /// Gets.\npub fn get(pool: Dep<Arc<Pool>>) -> String {{ let _ = pool; String::new() }}\n"
        );
        let dir = deps_folder(card, &[("deps.rs", APP_DEPS), ("tools.rs", &tools)]);
        let diags = cards::load_dir(dir.path()).unwrap_err();
        assert_eq!(diags.len(), 1, "{impl_}\n{}", render(&diags));
        assert_eq!(
            diags[0].message,
            "tool `get` takes `Dep<Arc<Pool>>`, but the agent's dependencies `AppDeps` (`deps: deps.rs:AppDeps`) do not provide `Arc<Pool>`",
            "{impl_}"
        );
        assert_eq!(diags[0].path, dir.path().join("tools.rs"));
        let line = tools
            .lines()
            .position(|l| l.starts_with("pub fn get"))
            .unwrap()
            + 1;
        assert_eq!((diags[0].line, diags[0].col), (line, 18), "{}", diags[0]);
        // `deps: deps.rs:Arc<Pool>` would not parse: not suggested.
        assert_eq!(
            diags[0].help.as_deref(),
            Some("add `impl hookwire::deps::FromRef<AppDeps> for Arc<Pool>` to deps.rs")
        );
        assert_eq!(
            diags[0].notes.last().unwrap(),
            "`AppDeps` provides: AppDeps"
        );
    }

    // A type alias as the dependency type is taken to be `Clone`, and
    // `deps:` naming the part itself provides it.
    let dir = deps_folder(
        "deps: deps.rs:Pool\nfunction_tools: [tools.rs:get]\n",
        &[
            (
                "deps.rs",
                "/// A pool.\npub type Pool = std::sync::Arc<String>;\n",
            ),
            (
                "tools.rs",
                "/// Gets.\npub fn get(pool: hookwire::Dep<super::deps_rs::Pool>) -> String { pool.0.to_string() }\n",
            ),
        ],
    );
    cards::load_dir(dir.path()).unwrap();
}
