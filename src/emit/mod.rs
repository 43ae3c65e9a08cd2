//! Writing results: one file per output format. Writers render into
//! memory and [`output::write_atomic`] puts the bytes in place with a
//! temporary file and a rename, so a failed run never leaves half a file
//! where a good one was; the indented tree, which can hold 10^8 calls, is
//! streamed into that temporary file instead ([`output::write_atomic_with`]).

pub mod coverage;
pub mod diff;
pub mod dot;
pub mod edges_csv;
pub mod export;
pub mod html;
pub mod output;
pub mod plot;
pub mod report_csv;
pub mod signals;
pub mod text;
pub mod tree;
pub mod tree_dot;

pub use output::{write_atomic, write_atomic_set, write_atomic_with};
