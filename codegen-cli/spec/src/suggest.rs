//! Did-you-mean: the names near enough to a word to be what a typo meant.
//! The `#[agent]`/`#[tool]`/`#[hook]` macros (unknown keys and values) and
//! the cards (unknown fields, values, functions, agents) use these, so a
//! typo gets the same suggestion in either front end.

/// The candidate nearest to `word`, if it is near enough to be a typo: at
/// most a third of the longer one's length apart (at least 1; a swap of
/// two neighbouring letters counts 1), or `word` is a prefix of it.
///
/// ```
/// use hookwire_spec::did_you_mean;
///
/// let keys = ["name", "max_parallel", "tool_hooks"];
/// assert_eq!(did_you_mean("nmae", keys), Some("name"));
/// assert_eq!(did_you_mean("toolhooks", keys), Some("tool_hooks"));
/// assert_eq!(did_you_mean("zzzzzz", keys), None);
/// ```
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|(d, c)| {
            *d <= (c.len().max(word.len()) / 3).max(1) || c.starts_with(word) && !word.is_empty()
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The names in `names` near enough to `pattern` to be what a typo meant
/// (edit distance over the pattern's letters, digits and `_`/`-`, at most a
/// third of its length and at least 2), at most three, nearest first.
pub fn nearest_names<'a>(pattern: &str, names: &'a [String]) -> Vec<&'a str> {
    let word: String = pattern
        .chars()
        .filter(|c| crate::is_tool_name_char(*c))
        .collect();
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .map(|n| (strsim::levenshtein(&word, n), n.as_str()))
        .collect();
    scored.sort();
    // Near enough to be a typo: a third of the pattern's length, at least 2.
    let limit = (word.chars().count() / 3).max(2);
    scored
        .into_iter()
        .filter(|(d, _)| *d <= limit)
        .take(3)
        .map(|(_, n)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_nearest_key_or_none() {
        let fields = [
            "name",
            "max_parallel",
            "tool_hooks",
            "description",
            "strict",
        ];
        assert_eq!(did_you_mean("nmae", fields), Some("name"));
        assert_eq!(did_you_mean("max_paralel", fields), Some("max_parallel"));
        assert_eq!(did_you_mean("descripton", fields), Some("description"));
        assert_eq!(did_you_mean("strcit", fields), Some("strict"));
        assert_eq!(did_you_mean("zzzzzz", fields), None);
    }

    #[test]
    fn nearest_names_lists_close_names_nearest_first() {
        let names = [
            "read_file".to_owned(),
            "read_files".to_owned(),
            "write".to_owned(),
        ];
        assert_eq!(
            nearest_names("read_fil", &names),
            ["read_file", "read_files"]
        );
        assert!(nearest_names("zzz", &names).is_empty());
    }
}
