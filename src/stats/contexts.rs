//! Calling contexts as a trie of parent links: each context is its parent
//! context and one label (a function's name, interned by the caller), so
//! that the contexts of a 40,000-deep recursion take memory in proportion
//! to the tree, not to the sum of their paths' lengths (the square of the
//! depth). `stats --by context` and `diff --by context` key their rows by
//! a context's id here, one trie shared by every run compared, and write a
//! context's path only for the rows they print.
//!
//! A path as printed (the `path` column of the CSVs and JSON, the table,
//! `--histogram`) joins the names from the top with `;`; a `;` or `\`
//! inside a name is written `\;` or `\\`, so a path splits back into
//! exactly its names ([`split_path`]) and the names themselves are kept
//! exactly everywhere else.

use std::borrow::Cow;
use std::collections::HashMap;

/// The id of a context: an index into [`Contexts`].
pub(crate) type ContextId = u32;

/// Interned calling contexts: (parent, label) -> id. A parent's id is
/// always smaller than its children's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Contexts {
    /// Each context's parent (None at the top) and label.
    nodes: Vec<(Option<ContextId>, u32)>,
    index: HashMap<(Option<ContextId>, u32), ContextId>,
}

impl Contexts {
    /// The context `label` called from `parent` (None: at the top of a
    /// thread), added on first use.
    pub(crate) fn child(&mut self, parent: Option<ContextId>, label: u32) -> ContextId {
        let next = self.nodes.len() as ContextId;
        let id = *self.index.entry((parent, label)).or_insert(next);
        if id == next {
            self.nodes.push((parent, label));
        }
        id
    }

    /// The context called `label` under `parent`, if there is one.
    pub(crate) fn find(&self, parent: Option<ContextId>, label: u32) -> Option<ContextId> {
        self.index.get(&(parent, label)).copied()
    }

    /// The number of contexts.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The context that called `id`, None at the top.
    pub(crate) fn parent(&self, id: ContextId) -> Option<ContextId> {
        self.nodes[id as usize].0
    }

    /// The label of `id`'s own function.
    pub(crate) fn label(&self, id: ContextId) -> u32 {
        self.nodes[id as usize].1
    }

    /// The labels of `id`'s path, from the top.
    pub(crate) fn labels(&self, id: ContextId) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = Some(id);
        while let Some(c) = at {
            out.push(self.label(c));
            at = self.parent(c);
        }
        out.reverse();
        out
    }

    /// `id`'s path as printed: its names from the top joined by `;`, each
    /// escaped by [`escape_in_path`].
    pub(crate) fn path<'n>(&self, id: ContextId, name: impl Fn(u32) -> &'n str) -> String {
        let parts: Vec<Cow<'_, str>> = self
            .labels(id)
            .into_iter()
            .map(|l| escape_in_path(name(l)))
            .collect();
        parts.join(";")
    }

    /// `id`'s path as a table shows it: [`Contexts::path`], or for a path
    /// of more than `2 * keep + 1` names its first and last `keep` names
    /// around `…(N more)…`, so that a deep recursion's rows fit a screen.
    pub(crate) fn shown_path<'n>(
        &self,
        id: ContextId,
        keep: usize,
        name: impl Fn(u32) -> &'n str,
    ) -> String {
        let labels = self.labels(id);
        if labels.len() <= 2 * keep + 1 {
            return self.path(id, name);
        }
        let part = |ls: &[u32]| -> String {
            let names: Vec<Cow<'_, str>> = ls.iter().map(|&l| escape_in_path(name(l))).collect();
            names.join(";")
        };
        let hidden = labels.len() - 2 * keep;
        format!(
            "{};…({hidden} more)…;{}",
            part(&labels[..keep]),
            part(&labels[labels.len() - keep..])
        )
    }

    /// The length in bytes of every context's printed path, in one pass
    /// (parents come before their children).
    pub(crate) fn path_lengths(&self, name_len: impl Fn(u32) -> u64) -> Vec<u64> {
        let mut lens: Vec<u64> = Vec::with_capacity(self.nodes.len());
        for &(parent, label) in &self.nodes {
            let own = name_len(label);
            let len = match parent {
                Some(p) => lens[p as usize] + 1 + own,
                None => own,
            };
            lens.push(len);
        }
        lens
    }

    /// Every context's depth (1 at the top), in one pass.
    pub(crate) fn depths(&self) -> Vec<u32> {
        let mut depths: Vec<u32> = Vec::with_capacity(self.nodes.len());
        for &(parent, _) in &self.nodes {
            depths.push(parent.map_or(1, |p| depths[p as usize] + 1));
        }
        depths
    }
}

/// `name` as one step of a printed path: `\` and `;` escaped with `\`.
pub(crate) fn escape_in_path(name: &str) -> Cow<'_, str> {
    if !name.contains([';', '\\']) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 2);
    for c in name.chars() {
        if c == ';' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// The length of `name` as one step of a printed path.
pub(crate) fn escaped_len(name: &str) -> u64 {
    (name.len() + name.matches([';', '\\']).count()) as u64
}

/// The names of a printed path (the inverse of [`Contexts::path`]): split
/// at each `;` not escaped, with `\;` and `\\` read back as `;` and `\`.
pub(crate) fn split_path(path: &str) -> Vec<String> {
    let mut names = vec![String::new()];
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => names.last_mut().expect("one name").push(next),
                None => names.last_mut().expect("one name").push('\\'),
            },
            ';' => names.push(String::new()),
            c => names.last_mut().expect("one name").push(c),
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_are_interned_once_with_parents_first() {
        let mut c = Contexts::default();
        let main = c.child(None, 0);
        let a = c.child(Some(main), 1);
        assert_eq!(c.child(Some(main), 1), a);
        let aa = c.child(Some(a), 1);
        assert!(main < a && a < aa);
        assert_eq!(c.labels(aa), [0, 1, 1]);
        assert_eq!(c.find(Some(a), 1), Some(aa));
        assert_eq!(c.find(Some(aa), 1), None);
        assert_eq!(c.depths(), [1, 2, 3]);
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn paths_escape_separators_and_split_back_into_the_names() {
        let names = ["main", "a;b", r"c\d", "a:b"];
        let mut c = Contexts::default();
        let mut at = None;
        for l in 0..names.len() as u32 {
            at = Some(c.child(at, l));
        }
        let last = at.unwrap();
        let path = c.path(last, |l| names[l as usize]);
        assert_eq!(path, r"main;a\;b;c\\d;a:b");
        assert_eq!(split_path(&path), names);
        let lens = c.path_lengths(|l| escaped_len(names[l as usize]));
        assert_eq!(lens[last as usize], path.len() as u64);
        assert_eq!(c.shown_path(last, 2, |l| names[l as usize]), path);
        assert_eq!(
            c.shown_path(last, 1, |l| names[l as usize]),
            "main;…(2 more)…;a:b"
        );
    }
}
