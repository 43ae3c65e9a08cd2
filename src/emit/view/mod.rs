//! `view.html` of `calltrace view`: one self-contained page (script,
//! styles and data inline; nothing fetched) that draws the abstracted call
//! tree of `abstract` and the hot call graph of `graph` and lets the user
//! turn the commands' own flags.
//!
//! Nothing is abstracted in the browser: [`tree_states`] and
//! [`graph_states`] run the real passes and pruning for every setting the
//! controls can reach when the page is written, over one shared table of
//! drawn nodes, and the page (`view.js`, `draw.js`) only picks the set for the
//! controls' state, lays it out and draws it as SVG.
//!
//! Escaping: names are shown as the DOT shows them (control characters,
//! newline included, as `\xNN`: `error::escape_controls`); the data is JSON inside a `<script type="application/json">`
//! element with every `<` written as `\u003c`, so no name can close the
//! element; the script puts names into the page as text nodes only
//! (`textContent`), never as markup.

pub(crate) mod bits;
pub(crate) mod graph_states;
pub(crate) mod merged;
pub(crate) mod tree_states;

use serde::Serialize;

use crate::abstraction::ModuleSource;
use crate::calltree::dist::per_function;
use crate::emit::graph::dot::location;
use crate::error::{Error, Result, escape_controls};
use crate::pipeline::Loaded;
pub(crate) use graph_states::GraphGrid;
pub(crate) use tree_states::TreeGrid;

/// The state, controls and details (`view.js`), then the drawing
/// (`draw.js`); one inline script.
const SCRIPTS: [&str; 2] = [include_str!("view.js"), include_str!("draw.js")];
const STYLE: &str = include_str!("view.css");

/// One trace's drawings.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Pattern {
    /// The pattern's name (the trace's file stem).
    pub name: String,
    /// The trace's path as given, for the command line the page shows.
    pub trace: String,
    /// Per function: name, `file:line`, per-call min/p99/max.
    pub funcs: Vec<(String, String, String)>,
    /// Whether weights are times (else call counts).
    pub timed: bool,
    /// What `abstract` draws in every state.
    pub tree: tree_states::TreeData,
    /// What `graph` draws in every state.
    pub graph: graph_states::GraphData,
}

/// Everything the page shows.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Data {
    /// The binary given to `view`, for the command line the page shows.
    pub binary: Option<String>,
    /// The reachable `abstract` settings.
    pub tree_grid: TreeGrid,
    /// The reachable `graph` settings.
    pub graph_grid: GraphGrid,
    /// One entry per trace (several with a directory of patterns).
    pub patterns: Vec<Pattern>,
}

/// Computes one trace's drawings for every state of the grids; `loaded`
/// is its contexts tree with per-call distributions.
pub(crate) fn pattern(
    name: &str,
    trace: &str,
    loaded: &Loaded,
    trees: &TreeGrid,
    graphs: &GraphGrid,
) -> Result<Pattern> {
    let funcs = &loaded.built.funcs;
    let modules = ModuleSource::from_arg(&trees.modules)?.assign(funcs, &loaded.names)?;
    let tree = &loaded.built.tree;
    let dists = per_function(tree, funcs.len());
    let rows = loaded
        .names
        .iter()
        .enumerate()
        .map(|(f, info)| {
            let per_call = graph_states::per_call(dists.get(f), tree.unit, tree.decimals);
            (
                escape_controls(&info.name).into_owned(),
                location(info).unwrap_or_default(),
                per_call,
            )
        })
        .collect();
    Ok(Pattern {
        name: name.to_string(),
        trace: trace.to_string(),
        funcs: rows,
        timed: tree.unit.is_time(),
        tree: tree_states::compute(loaded, &modules, trees)?,
        graph: graph_states::compute(loaded, graphs)?,
    })
}

/// The page: HTML with the style, the data and the script inline.
pub(crate) fn page(data: &Data) -> Result<Vec<u8>> {
    let json = serde_json::to_string(data)
        .map_err(|e| Error::Input(format!("could not encode the page's data: {e}")))?;
    let json = json.replace('<', "\\u003c");
    let mut out = String::with_capacity(json.len() + 64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<title>calltrace view</title>\n<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str("<header id=\"controls\"></header>\n<main><div id=\"canvas\"></div><aside id=\"details\"></aside></main>\n");
    out.push_str("<script type=\"application/json\" id=\"data\">");
    out.push_str(&json);
    out.push_str("</script>\n<script>\n");
    for script in SCRIPTS {
        out.push_str(script);
    }
    out.push_str("</script>\n</body>\n</html>\n");
    Ok(out.into_bytes())
}
