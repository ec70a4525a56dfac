use super::deps_rs::Db;
use hookwire::Dep;

/// Looks a key up.
pub fn lookup(db: Dep<Db>, key: String) -> String {
    let _ = db;
    key
}
