//! Collapsed stacks, `main;f;g 42` per line: the input of inferno,
//! flamegraph.pl and speedscope. The value is a call path's self weight:
//! self time in the trace's unit, or calls when the trace is untimed (an
//! untimed tree weighs each call 1). Paths with no self weight are left out;
//! thread nodes are not frames.
//!
//! Escaping, the one rule of the folded and flame graph outputs
//! ([`frame`]): in a name, `;` becomes `:` (it separates frames), control
//! characters (newline, carriage return, tab, NUL...) are shown as `\xNN`
//! (so a name cannot start a line), and a space that ends the name or comes
//! before a final number (`task 2`) becomes a no-break space U+00A0, which
//! looks the same but is not read as a count. Invalid UTF-8 was replaced by
//! U+FFFD when the trace was read.

use std::borrow::Cow;
use std::io::{self, Write};

use super::{Exported, Exporter, TreeExporter};
use crate::calltree::NodeId;

/// Folded text past this many bytes gets a warning (1 GiB).
const HUGE_FOLDED: u64 = 1 << 30;

/// `--to folded`.
pub(super) struct Folded;

impl Exporter for Folded {
    fn name(&self) -> &'static str {
        "folded"
    }
    fn about(&self) -> &'static str {
        "collapsed stacks `a;b;c value` (self time, or calls when untimed) for inferno, flamegraph.pl, speedscope"
    }
}

impl TreeExporter for Folded {
    fn check(&self, t: &Exported<'_>) -> crate::error::Result<Option<String>> {
        let bytes = folded_bytes(t);
        Ok((bytes > HUGE_FOLDED).then(|| {
            format!(
                "the folded stacks take {:.1} GiB (every line repeats its whole path; the tree is {} levels deep); --max-depth N ends the stacks at depth N",
                bytes as f64 / (1u64 << 30) as f64,
                t.tree.depths().iter().max().copied().unwrap_or(0)
            )
        }))
    }
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        for_each_stack(t, |stack, value| writeln!(out, "{stack} {value}"))?;
        out.flush()
    }
}

/// Calls `f` with every call path that has a self weight, frames joined by
/// `;` (each name escaped by [`frame`]), in tree order. With
/// `t.max_depth`, a frame at that depth stands for its whole subtree: its
/// line weighs its total.
pub(super) fn for_each_stack(
    t: &Exported<'_>,
    mut f: impl FnMut(&str, u64) -> io::Result<()>,
) -> io::Result<()> {
    walk(t, true, |path, _, value| f(path, value))
}

/// Bytes of the folded text: the lines of [`for_each_stack`], counted
/// without building them (a 200k-deep recursion makes 40 GB).
pub(super) fn folded_bytes(t: &Exported<'_>) -> u64 {
    let mut bytes = 0u64;
    let _ = walk(t, false, |_, len, value| {
        let digits = value.checked_ilog10().unwrap_or(0) as u64 + 1;
        bytes = bytes.saturating_add(len as u64 + digits + 2);
        Ok(())
    });
    bytes
}

/// The stacks of `t` in preorder: `f(path, path length, value)`; `path`
/// is empty unless `build`.
fn walk(
    t: &Exported<'_>,
    build: bool,
    mut f: impl FnMut(&str, usize, u64) -> io::Result<()>,
) -> io::Result<()> {
    let tree = t.tree;
    let cap = t.max_depth.map_or(usize::MAX, |d| d as usize);
    // (end of the subtree, path length before this frame, frames before it)
    let mut open: Vec<(NodeId, usize, usize)> = Vec::new();
    let (mut path, mut len) = (String::new(), 0usize);
    let mut n: NodeId = 1;
    while (n as usize) < tree.len() {
        while let Some(&(end, before, _)) = open.last() {
            if end > n {
                break;
            }
            path.truncate(before.min(path.len()));
            len = before;
            open.pop();
        }
        let frames = open.last().map_or(0, |&(_, _, d)| d);
        let end = n + tree.size(n);
        if t.funcs.is_synthetic(tree.func(n)) {
            open.push((end, len, frames));
            n += 1;
            continue;
        }
        open.push((end, len, frames + 1));
        let name = frame(&t.names[tree.func(n) as usize].name);
        if len > 0 {
            len += 1;
            if build {
                path.push(';');
            }
        }
        len += name.len();
        if build {
            path.push_str(&name);
        }
        // At the depth limit the frame takes its subtree's weight.
        let (value, next) = match frames + 1 >= cap {
            true => (tree.total(n), end),
            false => (tree.self_time(n), n + 1),
        };
        if value > 0 {
            f(&path, len, value)?;
        }
        n = next;
    }
    Ok(())
}

/// `name` as one frame of a collapsed stack (the rule in the module doc).
/// Readers take a line's last space-separated word as its count, and
/// inferno also the word before it (a differential count), so neither may
/// come from a name.
pub(crate) fn frame(name: &str) -> Cow<'_, str> {
    let last_word = name.rfind(' ').map_or(name.len(), |i| i + 1);
    let number_at_end = name[last_word..]
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b'.');
    let risky = |(i, c): (usize, char)| {
        c == ';' || c.is_control() || (c == ' ' && (number_at_end && i + 1 == last_word))
    };
    let trailing = name.trim_end_matches(' ').len();
    if trailing == name.len() && !name.char_indices().any(risky) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for (i, c) in name.char_indices() {
        match c {
            ';' => out.push(':'),
            ' ' if i >= trailing || risky((i, c)) => out.push('\u{a0}'),
            c if c.is_control() => out.push_str(&crate::error::escape_controls(&c.to_string())),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::super::Shape;
    use super::super::testing::{TRACE, export};
    use super::*;

    #[test]
    fn one_line_per_path_with_its_self_time() {
        let out = String::from_utf8(export(Shape::Tree(&Folded), TRACE)).unwrap();
        // main: 40 - (10 + 8) - 3 = 19; f: 8 + 7 = 15 minus g 3 + 1; g under main: 3.
        assert_eq!(out, "main 19\nmain;f 14\nmain;f;g 4\nmain;g 3\n");
    }

    #[test]
    fn names_cannot_forge_lines_frames_or_counts() {
        assert_eq!(frame("plain name(int, char)"), "plain name(int, char)");
        assert_eq!(
            frame("evil\nmain;forged 999999"),
            "evil\\x0amain:forged\u{a0}999999"
        );
        assert_eq!(frame("task 2"), "task\u{a0}2");
        assert_eq!(frame("v 1.5"), "v\u{a0}1.5");
        assert_eq!(frame("tail  "), "tail\u{a0}\u{a0}");
        assert_eq!(frame("a\tb\r\0"), "a\\x09b\\x0d\\x00");
        assert_eq!(frame("operator new"), "operator new");
    }

    #[test]
    fn untimed_traces_count_calls() {
        let out = export(Shape::Tree(&Folded), "E main\nE f\nX f\nE f\nX f\nX main\n");
        assert_eq!(String::from_utf8(out).unwrap(), "main 1\nmain;f 2\n");
    }
}
