//! Do patterns stay distinguishable? Patterns whose trees contain exactly
//! the same set of distinct functions form a group (the paper's test of
//! whether abstraction blurs patterns together). Groups are numbered G1,
//! G2, ... per stage in order of their first pattern, and a pattern has
//! *changed* at a stage when the patterns sharing its group there are not
//! the ones that shared it before abstraction.

use super::{PatternReport, Stage};

/// Group number and change flag of every pattern at every stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    /// `number[p][s]`: 1-based group of pattern `p` at stage `s` ([`Stage::index`]).
    pub number: Vec<[usize; Stage::COUNT]>,
    /// `changed[p][s]`: whether `p`'s group partners at stage `s` differ from before.
    pub changed: Vec<[bool; Stage::COUNT]>,
}

impl Groups {
    /// Groups `patterns` (in their order) at every stage.
    pub fn of(patterns: &[PatternReport]) -> Groups {
        let per_stage: Vec<Vec<usize>> = Stage::all()
            .map(|s| number(&patterns.iter().map(|p| p.functions(s)).collect::<Vec<_>>()))
            .collect();
        let before = &per_stage[Stage::BEFORE.index()];
        let changed_per_stage: Vec<Vec<bool>> =
            per_stage.iter().map(|g| changed(before, g)).collect();
        let pick = |p: usize| std::array::from_fn(|s| per_stage[s][p]);
        let pick_changed = |p: usize| std::array::from_fn(|s| changed_per_stage[s][p]);
        Groups {
            number: (0..patterns.len()).map(pick).collect(),
            changed: (0..patterns.len()).map(pick_changed).collect(),
        }
    }

    /// Number of distinct groups at stage `s`.
    pub fn count(&self, s: Stage) -> usize {
        self.number.iter().map(|g| g[s.index()]).max().unwrap_or(0)
    }

    /// Number of patterns whose group changed at stage `s`.
    pub fn changed_count(&self, s: Stage) -> usize {
        self.changed.iter().filter(|c| c[s.index()]).count()
    }
}

/// The group label of a 1-based group number: `G1`, `G2`, ...
pub(crate) fn label(number: usize) -> String {
    format!("G{number}")
}

/// Numbers `items` so that equal items share a number; numbers start at 1
/// and follow the order of each group's first item.
pub(crate) fn number<T: PartialEq>(items: &[T]) -> Vec<usize> {
    let mut firsts: Vec<&T> = Vec::new();
    items
        .iter()
        .map(|item| match firsts.iter().position(|f| *f == item) {
            Some(i) => i + 1,
            None => {
                firsts.push(item);
                firsts.len()
            }
        })
        .collect()
}

/// For each item: is the set of items sharing its group under `after`
/// different from the set sharing it under `before`?
pub(crate) fn changed(before: &[usize], after: &[usize]) -> Vec<bool> {
    let n = before.len();
    (0..n)
        .map(|p| (0..n).any(|q| (before[q] == before[p]) != (after[q] == after[p])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_items_share_numbers_in_order_of_first_appearance() {
        assert_eq!(number(&["b", "a", "b", "c", "a"]), [1, 2, 1, 3, 2]);
        assert_eq!(number::<&str>(&[]), Vec::<usize>::new());
        assert_eq!(label(3), "G3");
    }

    #[test]
    fn renumbering_alone_is_no_change() {
        // Same partitions with other numbers: nobody changed.
        assert_eq!(changed(&[1, 2, 1], &[1, 2, 1]), [false; 3]);
        assert_eq!(changed(&[1, 2, 2], &[1, 2, 2]), [false; 3]);
    }

    #[test]
    fn merging_and_splitting_groups_change_their_members_only() {
        // Patterns 0 and 1 fall together; 2 keeps its (singleton) group.
        assert_eq!(changed(&[1, 2, 3], &[1, 1, 2]), [true, true, false]);
        // Group {0, 1, 2} splits into {0, 1} and {2}: all three changed, 3 did not.
        assert_eq!(
            changed(&[1, 1, 1, 2], &[1, 1, 2, 3]),
            [true, true, true, false]
        );
    }
}
