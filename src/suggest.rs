//! Did-you-mean for unknown ids (platforms, options, profiles, parts): the known id the
//! unknown one is a prefix of, or the nearest by edit distance (adjacent swaps count as one
//! edit, so `r7451` finds `r7415`), when it is near enough to be a plausible typo.

/// The known id `unknown` most plausibly meant, if any. Case is ignored. A unique known id
/// that starts with `unknown` wins; otherwise the nearest one within `max(1, len / 3)`
/// edits, if exactly one is nearest.
pub fn did_you_mean<'a>(
    unknown: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let u = unknown.to_lowercase();
    if u.is_empty() {
        return None;
    }
    let known: Vec<&str> = known.into_iter().collect();
    let prefixed: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| k.to_lowercase().starts_with(&u))
        .collect();
    if let [one] = prefixed[..] {
        return Some(one);
    }
    let limit = (u.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    for k in known {
        let d = distance(&u, &k.to_lowercase());
        if d > limit {
            continue;
        }
        match best {
            Some((bd, _)) if d > bd => {}
            Some((bd, _)) if d == bd => tie = true,
            _ => {
                best = Some((d, k));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, k)| k)
}

/// `did you mean `x`?` for a miette help line, when there is a suggestion.
pub fn hint<'a>(unknown: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    did_you_mean(unknown, known).map(|k| format!("did you mean `{k}`?"))
}

/// The help line of an unknown-id error: `did you mean `x`? ` before `rest` when there is a
/// suggestion, else `rest` alone.
pub fn help_with<'a>(
    unknown: &str,
    known: impl IntoIterator<Item = &'a str>,
    rest: &str,
) -> String {
    match hint(unknown, known) {
        Some(h) => format!("{h} {rest}"),
        None => rest.to_string(),
    }
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// adjacent characters, each one edit.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLATFORMS: [&str; 6] = ["r6525", "r740xd", "r7415", "r7425", "r7515", "r7525"];

    #[test]
    fn platforms() {
        assert_eq!(did_you_mean("r740", PLATFORMS), Some("r740xd"));
        assert_eq!(did_you_mean("r7451", PLATFORMS), Some("r7415"));
        assert_eq!(did_you_mean("R740XD", PLATFORMS), Some("r740xd"));
        assert_eq!(
            did_you_mean("r7535", PLATFORMS),
            None,
            "r7525 and r7515 tie"
        );
        assert_eq!(did_you_mean("r7", PLATFORMS), None, "prefix of several");
        assert_eq!(did_you_mean("supermicro", PLATFORMS), None);
        assert_eq!(did_you_mean("", PLATFORMS), None);
    }

    #[test]
    fn distances() {
        assert_eq!(distance("r7451", "r7415"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("randread", "randread"), 0);
    }

    #[test]
    fn hints() {
        assert_eq!(
            hint("randrea", ["randread", "randwrite"]).as_deref(),
            Some("did you mean `randread`?")
        );
        assert_eq!(hint("xyz", ["randread"]), None);
    }
}
