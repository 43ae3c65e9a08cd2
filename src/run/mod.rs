//! The commands, one file each, as library functions the thin binary calls.
//! Each takes its `Options` (built from flags by `cli`), runs the pipeline
//! and writes its outputs; what it wants said on stderr comes back in an
//! [`Outcome`].

pub mod abstract_cmd;
pub mod compare;
pub mod export;
pub mod files;
pub mod graph;
pub mod live;
pub mod runtime;
pub mod tree;

/// What a command wants the binary to print besides its outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Counted problems, one line each, printed as warnings.
    pub warnings: Vec<String>,
    /// Informational lines for stderr (what was written where).
    pub notes: Vec<String>,
}
