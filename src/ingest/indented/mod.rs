//! Indented self/total traces, the abstraction paper's format (fig. 1):
//! one call per line, `name (self / total)`, depth given by leading white
//! space (a tab advances to the next multiple of 8 columns). Numbers are
//! integers or decimals; decimals are kept exactly as fixed-point integers
//! with as many decimal places as the file's most precise number. A trailing
//! `xN` gives the number of calls a line stands for (calling-context trees).
//! `[thread N]` lines are the synthetic per-thread nodes that `calltrace
//! tree` prints for multi-threaded traces.
//!
//! Names are escaped so that any name reads back unchanged ([`escape_name`],
//! [`unescape_name`]): `\\` for a backslash, `\#` for a leading `#` (else
//! the line is a comment), `\xHH` for control characters (newline, tab,
//! NUL...) and for a space at either end, `\u{H}` for other white space
//! such as NBSP (which trimming would eat). A backslash not starting one of
//! these escapes stands for itself.
//!
//! Chunks of lines are parsed on every core into compact records (widths,
//! chunk-local names, numbers as digits and decimal places); the calling
//! thread turns widths into depths in file order and feeds the sink, which
//! scales the times it holds when the file's precision grows
//! ([`NodeSink::scale_times`](super::NodeSink::scale_times)). Nothing but the sink's tree is kept, and
//! errors, line numbers and `--lenient` counts are those of one pass.
//!
//! Files: `reader` (the `chunked::ChunkParser` role,
//! on the parsing threads) with its fast line path `line` and chunk
//! summaries `part`; `inorder` (the `chunked::InOrder`
//! role, on the calling thread); `text` (the general line syntax);
//! `whole` (the two-pass reader); `escape` (name escapes).

use inorder::{InOrder, Units};
use part::{LineIn, Part};
use reader::{Out, Parser, UNSET};
use text::Line;
use text::{Indents, check_name, decimals, fixed, in_nanos, indent_width, parse_line};
use whole::parse_whole;

mod escape;
mod inorder;
mod line;
mod part;
mod reader;
mod text;
mod whole;

use escape::thread_id;
pub use escape::{escape_name, unescape_name};

use super::{FuncTable, Input, ParseOptions, Sink, TraceFormat, TraceMeta, Unit, chunked};
use crate::error::{Error, Result};

/// Indented `name (self / total)` trace.
pub struct IndentedFormat;

/// Most decimal places kept; more precise numbers are an error.
const MAX_DECIMALS: usize = 9;

impl TraceFormat for IndentedFormat {
    fn name(&self) -> &'static str {
        "indented"
    }

    fn help(&self) -> &'static str {
        "Indented `name (self / total)` lines"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        let mut lines = super::guess::meaningful_lines(head);
        lines
            .next()
            .is_some_and(|l| parse_line(&String::from_utf8_lossy(l)).is_ok())
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let mut merge = InOrder {
            name: input.name(),
            opts,
            funcs,
            meta: TraceMeta {
                format: self.name(),
                timed: true,
                threads: vec![0],
                ..TraceMeta::default()
            },
            indents: Indents::default(),
            line: 0,
            failed: None,
            maps: Default::default(),
            units: Units::default(),
            own: None,
        };
        // A stream cannot be read twice (see `parse_whole`): read it whole.
        if input.is_stream() {
            let _ = &input[..];
        }
        let summarise = sink.takes_node_chunks();
        let chunks = input.chunks(chunked::chunk_size(opts));
        chunked::read(
            input,
            chunks,
            opts,
            sink,
            || Parser::new(summarise),
            &mut merge,
        )?;
        if merge.units.restart {
            sink.clear_nodes();
            return parse_whole(input, opts, funcs, sink);
        }
        match merge.failed {
            Some(e) => Err(e),
            None => Ok(merge.units.finish(merge.meta)),
        }
    }
}

/// What a worker made of one chunk of lines: a compact record per call
/// line, with the indentation width still to be turned into a depth, and
/// numbers as (digits, decimal places) until the file's precision is known.
#[derive(Default)]
struct Parsed {
    recs: Vec<Rec>,
    /// Names of the chunk-local name ids, in order of first appearance.
    names: Vec<Name>,
    /// Messages of the lines that did not parse ([`Rec::ERROR`] records).
    errors: Vec<String>,
    /// Line ends in the chunk.
    lines: u64,
    /// Chunk line (0-based) of the first byte that is not UTF-8, if any.
    bad_utf8: Option<u64>,
}

impl Parsed {
    fn clear(&mut self) {
        self.recs.clear();
        self.names.clear();
        self.errors.clear();
        self.lines = 0;
        self.bad_utf8 = None;
    }
}

/// An unescaped name and, for `[thread N]`, the thread id.
#[derive(Clone)]
struct Name {
    text: String,
    thread: Option<u64>,
}

/// One line of a chunk.
#[derive(Debug, Clone, Copy)]
struct Rec {
    self_time: Number,
    total: Number,
    calls: u64,
    /// Chunk-local name id, or [`Rec::ERROR`] (then `calls` indexes
    /// [`Parsed::errors`]).
    name: u32,
    /// Columns of indentation.
    width: usize,
    /// Line within the chunk, 0-based.
    line: u64,
    /// [`Rec::TIME`] and [`Rec::CALLS`]: the units the line states.
    units: u8,
}

impl Rec {
    const ERROR: u32 = u32::MAX;
    /// A number carries a time unit.
    const TIME: u8 = 1;
    /// A number says `calls`.
    const CALLS: u8 = 2;
}

/// A number as its digits without the point (`u64::MAX` when they
/// overflow) and its decimal places; with its unit, its value in whole
/// nanoseconds (None: the digits give it, see [`Number::nanos`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Number {
    digits: u64,
    decimals: u8,
    nanos: Option<u64>,
}

/// Digits below this convert to `f64` exactly.
const EXACT_F64: u64 = 1 << 53;

impl Number {
    /// Reads a number already checked by [`is_number`], in `unit`.
    fn of(s: &str, unit: Option<&str>) -> Number {
        let frac = decimals(s);
        Number {
            digits: fixed(s, frac),
            decimals: frac as u8,
            nanos: Some(in_nanos(s, unit)),
        }
    }

    /// The value in whole nanoseconds, as [`in_nanos`] gives it: digits
    /// below 2^53 and powers of ten are exact doubles, so their quotient is
    /// the double nearest the decimal, as parsing the text gives.
    #[inline]
    fn nanos(self) -> u64 {
        self.nanos.unwrap_or_else(|| match self.decimals {
            0 => self.digits,
            d => (self.digits as f64 / POW10[d as usize] as f64).round() as u64,
        })
    }

    /// The number in units of 10^-`decimals` (at least its own places),
    /// saturating like [`fixed`].
    #[inline]
    fn fixed(self, decimals: u8) -> u64 {
        let scale = POW10[(decimals - self.decimals) as usize];
        self.digits.saturating_mul(scale)
    }
}

/// Powers of ten up to 10^[`MAX_DECIMALS`].
const POW10: [u64; MAX_DECIMALS + 1] = {
    let mut p = [1u64; MAX_DECIMALS + 1];
    let mut i = 1;
    while i <= MAX_DECIMALS {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

#[cfg(test)]
mod tests;
