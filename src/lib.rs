//! `calltrace` turns function-call traces of C/C++ programs into call
//! graphs, weighted call trees and abstracted call trees.
//!
//! The pipeline follows the folders: [`ingest`] reads a trace (E/X address
//! lines from `-finstrument-functions`, symbolic E/X lines, indented
//! self/total trees, the runtime's binary format, the freestanding
//! runtime's buffer, uftrace recordings, XRay logs) into a stream of
//! events; [`calltree`] builds the weighted tree from it (one node per
//! call, or one per distinct call path) and the caller/callee graph;
//! [`symbols`] names the functions from the executable's DWARF and symbol
//! tables, undoing the load bias of PIE executables; [`emit`] writes DOT,
//! CSV, indented text and the `export` formats; `compare` compares many
//! traces (test patterns of one product) as the abstraction paper's
//! evaluation does. [`run`] holds one function per command and `pipeline`
//! the part they share: every command reads a trace through its one front
//! door (BINARY checked, trace opened, format picked, then one read
//! function), in one pass or, through filters and for streamed exports, in
//! two; [`cli`] turns flags into each command's options, parsing what the
//! user names (a function: [`symbols::FuncPattern`]; a module table;
//! `[BINARY] TRACE...`) into types once. [`format`](mod@format) prints
//! numbers for every stage.
//!
//! ```
//! use calltrace::{calltree, ingest, symbols, emit};
//!
//! let text = b"E main\nE work\nX work\nE work\nX work\nX main\n".to_vec();
//! let input = ingest::Input::from_bytes("example", text);
//! let format = ingest::guess::detect(&input, None)?;
//! let built = calltree::build(&input, format, &Default::default(), calltree::View::Contexts)?;
//! let names = symbols::names_without_binary(&built.funcs);
//! let out = emit::tree::indented(&built.tree, &names);
//! assert_eq!(
//!     String::from_utf8(out).unwrap(),
//!     "main (1 call / 3 calls)\n  work (2 calls / 2 calls) x2\n"
//! );
//! # Ok::<(), calltrace::Error>(())
//! ```

pub(crate) mod abstraction;
pub mod calltree;
pub mod cli;
pub(crate) mod compare;
pub(crate) mod coverage;
pub(crate) mod diff;
pub mod emit;
mod error;
pub mod format;
pub mod ingest;
pub mod live;
pub(crate) mod pipeline;
pub(crate) mod progress;
pub mod run;
pub(crate) mod stats;
pub mod symbols;

pub use abstraction::ModuleTable;
pub use error::{Error, Result, escape_controls};
