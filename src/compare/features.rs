//! Do the patterns' features survive? A pattern's *distinguishing*
//! functions are those in its trace and in no other pattern's; the paper
//! asks that abstraction keep them. For each one this records, per stage,
//! whether the function is still in the pattern's (abstracted) tree.

use std::collections::BTreeMap;

use super::{PatternReport, Stage};

/// One distinguishing function of one pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    /// Index of the pattern in the report.
    pub pattern: usize,
    /// The function's name.
    pub function: String,
    /// `kept[s]`: whether it is in the tree at stage `Stage::all().nth(s).expect("a stage")` (always at `before`).
    pub kept: [bool; Stage::COUNT],
}

/// The distinguishing functions of every pattern, by pattern then name.
pub(crate) fn find(patterns: &[PatternReport]) -> Vec<Feature> {
    let before: Vec<_> = patterns
        .iter()
        .map(|p| p.functions(Stage::BEFORE))
        .collect();
    unique_members(&before)
        .into_iter()
        .map(|(pattern, function)| {
            let p = &patterns[pattern];
            let kept = std::array::from_fn(|s| p.functions[s].contains(function));
            Feature {
                pattern,
                function: function.to_string(),
                kept,
            }
        })
        .collect()
}

/// Every (set index, member) whose member is in no other set, in set order
/// and then the members' order.
pub(crate) fn unique_members<'a, S>(sets: &[&'a S]) -> Vec<(usize, &'a str)>
where
    &'a S: IntoIterator<Item = &'a String>,
{
    let mut owners: BTreeMap<&str, usize> = BTreeMap::new();
    for set in sets {
        for f in *set {
            *owners.entry(f.as_str()).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        out.extend(
            set.into_iter()
                .filter(|f| owners[f.as_str()] == 1)
                .map(|f| (i, f.as_str())),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn members_of_one_set_only_are_unique() {
        let a = set(&["main", "print", "rle"]);
        let b = set(&["main", "print", "lz"]);
        let c = set(&["main", "scan"]);
        assert_eq!(
            unique_members(&[&a, &b, &c]),
            [(0, "rle"), (1, "lz"), (2, "scan")]
        );
    }

    #[test]
    fn identical_sets_have_no_unique_members() {
        let a = set(&["main", "x"]);
        assert!(unique_members(&[&a, &a]).is_empty());
        // A lone pattern has nothing to be distinguished from: all its functions count.
        assert_eq!(unique_members(&[&a]), [(0, "main"), (0, "x")]);
    }
}
