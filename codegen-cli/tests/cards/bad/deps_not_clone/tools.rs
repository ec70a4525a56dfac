use hookwire::Dep;

/// Who the agent runs as.
pub fn whoami(deps: Dep<super::deps_rs::AppDeps>) -> String {
    deps.user.clone()
}
