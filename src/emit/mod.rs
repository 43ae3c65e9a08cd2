//! Writing results, grouped by who reads them:
//! - [`output`] (with [`signals`]): the write infrastructure. Writers
//!   render into memory and [`output::write_atomic`] puts the bytes in place
//!   with a temporary file and a rename, so a failed run never leaves half a
//!   file where a good one was; the indented tree, which can hold 10^8
//!   calls, is streamed into that temporary file instead
//!   ([`output::write_atomic_with`]).
//! - [`format`](mod@format): how every number is printed (times with their
//!   unit, percentages, counts); a leaf of the crate root
//!   ([`crate::format`]) that the stages below `emit` use too, re-exported.
//! - [`graph`]: the DOT drawings and edge CSV of `graph` and `abstract`.
//! - [`tree`]: the indented text tree.
//! - [`compare`]: `compare`'s tables, figures, HTML page and stdout table.
//! - [`export`]: the `export --to` formats, one file each, listed once
//!   with their shape: a tree, a stream of every call, or a dataset
//!   directory ([`export::Shape`]).
//! - [`stats`], [`coverage`], [`diff`]: the tables, CSVs and pictures of
//!   those commands; `view`: `calltrace view`'s one-page HTML.

pub mod compare;
pub mod coverage;
pub mod diff;
pub mod export;
pub use crate::format;
pub mod graph;
pub mod output;
pub mod signals;
pub mod stats;
pub mod tree;
pub(crate) mod view;

pub use output::{write_atomic, write_atomic_set, write_atomic_with};
