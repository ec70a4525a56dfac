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
    if word.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    candidates
        .into_iter()
        .filter(|c| c.len() <= MAX_SUGGESTED_LEN)
        .filter_map(|c| {
            let prefix = c.starts_with(word) && !word.is_empty();
            let limit = (c.len().max(word.len()) / 3).max(1);
            // The distance is at least the difference in length: a
            // candidate that far off is not compared at all.
            if !prefix && c.len().abs_diff(word.len()) > limit {
                return None;
            }
            let d = strsim::damerau_levenshtein(word, c);
            (d <= limit || prefix).then_some((d, c))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The help for a word that is not known but near `suggestion`: "did you
/// mean `suggestion`?", and, when the word has a character that is not
/// ASCII, which one (a look-alike letter, as the Cyrillic `е` for the
/// Latin `e`, or an invisible one): the two would read the same.
///
/// ```
/// use hookwire_spec::suggestion_help;
/// assert_eq!(suggestion_help("helpr", "helper"), "did you mean `helper`?");
/// assert_eq!(
///     suggestion_help("h\u{435}lper", "helper"),
///     "did you mean `helper`? `h\u{435}lper` has U+0435, which is not ASCII: it only looks like `helper`"
/// );
/// ```
pub fn suggestion_help(word: &str, suggestion: &str) -> String {
    match non_ascii(word) {
        Some(c) => format!(
            "did you mean `{suggestion}`? `{word}` has U+{:04X}, which is not ASCII: it only looks like `{suggestion}`",
            u32::from(c)
        ),
        None => format!("did you mean `{suggestion}`?"),
    }
}

/// The first character of `word` that is not ASCII.
pub fn non_ascii(word: &str) -> Option<char> {
    word.chars().find(|c| !c.is_ascii())
}

/// The longest word (and candidate) [`did_you_mean`] and [`nearest_names`]
/// compare, in bytes: names are at most 64 characters, and comparing two
/// words takes time proportional to the product of their lengths.
pub const MAX_SUGGESTED_LEN: usize = 128;

/// The names in `names` near enough to `pattern` to be what a typo meant
/// (edit distance over the pattern's letters, digits and `_`/`-`, at most a
/// third of its length and at least 2), at most three, nearest first.
pub fn nearest_names<'a>(pattern: &str, names: &'a [String]) -> Vec<&'a str> {
    let word: String = pattern
        .chars()
        .filter(|c| crate::is_tool_name_char(*c))
        .collect();
    if word.len() > MAX_SUGGESTED_LEN {
        return Vec::new();
    }
    // Near enough to be a typo: a third of the pattern's length, at least 2.
    let limit = (word.len() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .filter(|n| n.len() <= MAX_SUGGESTED_LEN && n.len().abs_diff(word.len()) <= limit)
        .map(|n| (strsim::levenshtein(&word, n), n.as_str()))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, n)| n).collect()
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

    #[test]
    fn very_long_words_and_many_candidates_are_quick() {
        let long = "a".repeat(20_000);
        let names: Vec<String> = (0..200)
            .map(|i| format!("{}{i}", "a".repeat(5_000)))
            .collect();
        let start = std::time::Instant::now();
        assert_eq!(did_you_mean(&long, names.iter().map(String::as_str)), None);
        assert!(nearest_names(&long, &names).is_empty());
        let short: Vec<String> = (0..20_000).map(|i| format!("tool_{i}")).collect();
        assert_eq!(
            did_you_mean("tool_19999x", short.iter().map(String::as_str)),
            Some("tool_19999")
        );
        assert_eq!(
            nearest_names("tool_9999x", &short).first(),
            Some(&"tool_9999")
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
    }
}
