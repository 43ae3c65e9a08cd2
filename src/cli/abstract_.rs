//! Flags of `calltrace abstract`, and the abstraction flags `abstract` and
//! `export` share.

use std::path::PathBuf;

use clap::Args;

use super::common::{InputArgs, ShowArgs, TimeUnitArgs, ViewArg};
use crate::abstraction::{Options, Share};
use crate::calltree::View;
use crate::run::abstract_::AbstractOptions;

/// Abstraction flags, shared by every command that abstracts a tree.
/// Applied in the order merge → view → fold → thresholds → budget; with no
/// method flag the recommended readable pipeline runs.
#[derive(Debug, Args, Default)]
pub struct AbstractionArgs {
    /// Module table: CSV `function,module` (globs allowed), `auto`, `auto:file`, `auto:dir` or `auto:prefix`
    #[arg(long, value_name = "M", value_parser = super::common::parse_modules)]
    pub modules: Option<crate::abstraction::ModulesArg>,
    /// Merge callees of the caller's module into the caller (method 2; runs first)
    #[arg(long)]
    pub merge_modules: bool,
    /// Keep callees until they make up this share of the caller's total (method 1): 0.9 or 90%
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub threshold: Option<Share>,
    /// Which tree to abstract [default: calls for --threshold/--merge-modules alone, else contexts]
    #[arg(long, value_enum)]
    pub view: Option<ViewArg>,
    /// Fold recursion: a call to a function already on the path joins that ancestor's node
    #[arg(long)]
    pub fold_recursion: bool,
    /// Whole-trace threshold: keep nodes whose total is at least this share of the root's: 0.1% or 0.001
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub min_total: Option<Share>,
    /// Node budget: keep the N heaviest nodes (and their ancestors)
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<usize>,
    /// Functions that always survive, with their ancestors; repeatable (FUNC: see README "Naming functions")
    #[arg(long, value_name = "FUNC")]
    pub keep: Vec<crate::symbols::FuncPattern>,
    /// Draw chains of nodes with negligible self time and one callee as one node [default: on with no method flag, else off]
    #[arg(long, overrides_with = "no_fold_chains")]
    pub fold_chains: bool,
    /// Draw every node of such chains (turns off --fold-chains)
    #[arg(long, overrides_with = "fold_chains")]
    pub no_fold_chains: bool,
}

/// Flags of `calltrace abstract`.
#[derive(Debug, Args)]
pub struct AbstractArgs {
    /// The trace, the program and how they are read.
    #[command(flatten)]
    pub input: InputArgs,
    /// How the tree is abstracted.
    #[command(flatten)]
    pub abstraction: AbstractionArgs,
    /// Draw the abstracted tree as DOT (identical paths drawn once) [default: abstract.dot unless --tree-out or --stats is given]
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write the abstracted tree as indented `name (self / total)` text
    #[arg(long, value_name = "FILE")]
    pub tree_out: Option<PathBuf>,
    /// Write node counts, explained time and the parameters used as JSON
    #[arg(long, value_name = "FILE.json")]
    pub stats: Option<PathBuf>,
    /// Leave calls deeper than N out of --tree-out (top-level calls are depth 1)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
    /// The unit times are shown in.
    #[command(flatten)]
    pub time: TimeUnitArgs,
    /// Per-call numbers after each line of --tree-out.
    #[command(flatten)]
    pub show: ShowArgs,
}

impl AbstractionArgs {
    /// Converts the flags into the abstraction's [`Options`].
    pub fn into_options(self) -> Options {
        Options {
            modules: self.modules,
            merge: self.merge_modules,
            view: self.view.map(View::from),
            fold_recursion: self.fold_recursion,
            threshold: self.threshold,
            min_total: self.min_total,
            max_nodes: self.max_nodes,
            keep: self.keep,
            chains: match (self.fold_chains, self.no_fold_chains) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
        }
    }
}

impl AbstractArgs {
    /// Converts the flags into [`AbstractOptions`].
    pub fn into_options(self) -> AbstractOptions {
        AbstractOptions {
            input: self.input.into_options(),
            abstraction: self.abstraction.into_options(),
            dot: match (self.output, &self.tree_out, &self.stats) {
                (Some(o), _, _) => Some(o),
                (None, None, None) => Some(PathBuf::from(crate::run::abstract_::DEFAULT_DOT)),
                _ => None,
            },
            tree_out: self.tree_out,
            stats: self.stats,
            max_depth: self.max_depth,
            time_unit: self.time.time_unit.into(),
            show: self.show.stats(),
        }
    }
}
