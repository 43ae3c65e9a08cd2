//! `calltrace graph`: the pvtrace-compatible call graph. With no options it
//! reads `trace.txt` and writes `graph.dot`, exactly like `pvtrace ./app`.

use std::path::PathBuf;

use super::Outcome;
use crate::calltree::{CallGraph, View};
use crate::emit;
use crate::error::Result;
use crate::pipeline::{self, InputOptions};

/// Options of `calltrace graph`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphOptions {
    /// Trace, binary and parsing options.
    pub input: InputOptions,
    /// Where the DOT goes, `-` for stdout. Default is `graph.dot`.
    pub output: PathBuf,
    /// Where the edge CSV goes, if anywhere. Default is none.
    pub csv: Option<PathBuf>,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions {
            input: InputOptions::default(),
            output: PathBuf::from("graph.dot"),
            csv: None,
        }
    }
}

/// Runs `calltrace graph`.
pub fn run(opts: &GraphOptions) -> Result<Outcome> {
    // The calling-context tree yields the same edges as the call tree, in
    // memory bounded by distinct call paths.
    let loaded = pipeline::load(&opts.input, View::Contexts)?;
    let cg = CallGraph::from_tree(&loaded.built.tree, &loaded.built.funcs);
    let dot = emit::dot::call_graph(&cg, &loaded.names);
    let csv = match &opts.csv {
        Some(_) => Some(emit::edges_csv::edges(
            &cg,
            &loaded.names,
            loaded.built.tree.decimals,
        )?),
        None => None,
    };
    emit::write_atomic(&opts.output, &dot)?;
    let mut notes = Vec::new();
    if let (Some(path), Some(bytes)) = (&opts.csv, csv) {
        emit::write_atomic(path, &bytes)?;
        if path.as_os_str() != "-" {
            notes.push(format!("wrote {}", path.display()));
        }
    }
    if opts.output.as_os_str() != "-" {
        notes.insert(
            0,
            format!(
                "wrote {} ({} functions, {} edges)",
                opts.output.display(),
                cg.graph.node_count(),
                cg.graph.edge_count()
            ),
        );
    }
    Ok(Outcome {
        warnings: loaded.warnings,
        notes,
    })
}
