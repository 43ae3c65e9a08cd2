//! Collapsed stacks, `main;f;g 42` per line: the input of inferno,
//! flamegraph.pl and speedscope. The value is a call path's self weight:
//! self time in the trace's unit, or calls when the trace is untimed (an
//! untimed tree weighs each call 1). Paths with no self weight are left out;
//! thread nodes are not frames.

use std::io::{self, Write};

use super::{Exported, Exporter};
use crate::calltree::NodeId;

/// `--to folded`.
pub struct Folded;

impl Exporter for Folded {
    fn name(&self) -> &'static str {
        "folded"
    }
    fn about(&self) -> &'static str {
        "collapsed stacks `a;b;c value` (self time, or calls when untimed) for inferno, flamegraph.pl, speedscope"
    }
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        for_each_stack(t, |stack, value| writeln!(out, "{stack} {value}"))?;
        out.flush()
    }
}

/// Calls `f` with every call path that has a self weight, frames joined by
/// `;` (a `;` inside a name becomes `:`), in tree order.
pub fn for_each_stack(
    t: &Exported<'_>,
    mut f: impl FnMut(&str, u64) -> io::Result<()>,
) -> io::Result<()> {
    let tree = t.tree;
    // (end of the subtree, length of `path` before this frame was added)
    let mut open: Vec<(NodeId, usize)> = Vec::new();
    let mut path = String::new();
    for n in 1..tree.len() as NodeId {
        while let Some(&(end, len)) = open.last() {
            if end > n {
                break;
            }
            path.truncate(len);
            open.pop();
        }
        open.push((n + tree.size(n), path.len()));
        if t.funcs.is_synthetic(tree.func(n)) {
            continue;
        }
        if !path.is_empty() {
            path.push(';');
        }
        path.push_str(&t.names[tree.func(n) as usize].name.replace(';', ":"));
        let value = tree.self_time(n);
        if value > 0 {
            f(&path, value)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{TRACE, export};
    use super::*;

    #[test]
    fn one_line_per_path_with_its_self_time() {
        let out = String::from_utf8(export(&Folded, TRACE)).unwrap();
        // main: 40 - (10 + 8) - 3 = 19; f: 8 + 7 = 15 minus g 3 + 1; g under main: 3.
        assert_eq!(out, "main 19\nmain;f 14\nmain;f;g 4\nmain;g 3\n");
    }

    #[test]
    fn untimed_traces_count_calls() {
        let out = export(&Folded, "E main\nE f\nX f\nE f\nX f\nX main\n");
        assert_eq!(String::from_utf8(out).unwrap(), "main 1\nmain;f 2\n");
    }
}
