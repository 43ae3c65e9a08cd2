//! The call graph's edges as CSV (`calltrace graph --csv`):
//! `caller,callee,calls,total_ns`, in order of first appearance. The
//! total's column is named with the trace's unit: `total_ns` for timed
//! traces, `total_calls` for untimed ones (calls in the callee's subtrees),
//! `total_units` for indented input that states no unit.
//!
//! Escaping is RFC 4180's, by the `csv` crate: a field holding a comma,
//! quote, carriage return or newline is quoted, a quote doubled. Names are
//! otherwise kept exactly (NUL, tabs, `;`, a leading `=`), as data for
//! scripts; a CSV reader gets each name back unchanged.

use crate::calltree::CallGraph;
use crate::error::{Error, Result};
use crate::symbols::FuncInfo;

/// Renders the edges as CSV.
pub fn edges(cg: &CallGraph, names: &[FuncInfo], decimals: u8) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Error::Input(format!("cannot write CSV: {e}"));
    let total_col = format!("total_{}", cg.unit.suffix());
    w.write_record(["caller", "callee", "calls", &total_col])
        .map_err(err)?;
    let g = &cg.graph;
    for e in g.edge_indices() {
        let (a, b) = g.edge_endpoints(e).expect("edge of this graph");
        let s = g[e];
        let total = crate::emit::format::weight(s.total, decimals);
        w.write_record([
            &names[g[a] as usize].name,
            &names[g[b] as usize].name,
            &s.calls.to_string(),
            &total,
        ])
        .map_err(err)?;
    }
    w.into_inner()
        .map_err(|e| Error::Input(format!("cannot write CSV: {e}")))
}
