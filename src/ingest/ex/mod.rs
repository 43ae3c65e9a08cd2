//! E/X traces: one entry (`E`) or exit (`X`) per line, as written by the
//! classic `instrument.c` (`E0x401136`) and by our runtime
//! (`E0x401136 1234 77`: address, timestamp in ns, thread id), plus the
//! symbolic variant for interpreters and hand-written tracers (`E main 120 1`).
//!
//! The token after the letter is an address when it is glued to the letter
//! or starts with `0x`; otherwise it is a function name. `#` starts a
//! comment, except the headers `# base 0xADDR [path]`, which records the
//! executable's load address, and `# map 0xSTART 0xEND 0xOFFSET BUILD_ID|-
//! PATH`, one per executable mapping of a loaded object. Timestamp and thread columns are optional but
//! must be used consistently: the first event line decides.

//!
//! Big traces are read in parallel: worker threads run the [`fast`] scanner
//! over chunks cut at line ends, and the calling thread merges the chunks in
//! file order ([`inorder`]), parsing line by line any chunk the scanner gave up
//! on, so results, errors and line numbers are those of one sequential pass.
//! The scanner is the reader's [`ChunkParser`](super::chunked::ChunkParser)
//! (`fast::Parser`), the in-order side its [`InOrder`](super::chunked::InOrder)
//! (`inorder::InOrder`); `syntax` holds the line syntax both use.

pub(super) mod digits;
mod fast;
mod inorder;
mod syntax;
#[cfg(test)]
mod tests;

use super::{FuncTable, Input, ParseOptions, Sink, TraceFormat, TraceMeta};
use crate::error::Result;
use fast::Parser;
pub(super) use fast::{TextScan, TextScanned};
use inorder::InOrder;
use syntax::split_event;

/// E/X trace of code addresses (`E0x401136`, optional time and thread columns).
pub struct AddrFormat;

/// E/X trace of function names (`E main`, optional time and thread columns).
pub struct SymbolicFormat;

impl TraceFormat for AddrFormat {
    fn name(&self) -> &'static str {
        "addr"
    }
    fn help(&self) -> &'static str {
        "E/X lines with addresses: `E0x401136 [time thread]`"
    }
    fn sniff(&self, head: &[u8]) -> bool {
        sniff_ex(head) == Some(true)
    }
    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        parse_ex(self.name(), false, input, opts, funcs, sink)
    }
}

impl TraceFormat for SymbolicFormat {
    fn name(&self) -> &'static str {
        "symbolic"
    }
    fn help(&self) -> &'static str {
        "E/X lines with function names: `E main [time thread]`"
    }
    fn sniff(&self, head: &[u8]) -> bool {
        sniff_ex(head) == Some(false)
    }
    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        parse_ex(self.name(), true, input, opts, funcs, sink)
    }
}

/// Reads an E/X trace: chunks scanned in parallel, merged in file order.
fn parse_ex(
    format: &'static str,
    symbolic: bool,
    input: &Input,
    opts: &ParseOptions,
    funcs: &mut FuncTable,
    sink: &mut dyn Sink,
) -> Result<TraceMeta> {
    let mut seq = InOrder::new(format, symbolic, input.name(), opts, funcs);
    let chunks = input.chunks(super::chunked::chunk_size(opts));
    super::chunked::read(
        input,
        chunks,
        opts,
        sink,
        || Parser::new(symbolic),
        &mut seq,
    )?;
    Ok(seq.finish())
}

/// `Some(true)` when the first event lines carry addresses, `Some(false)`
/// for names, `None` when the input does not start with an E/X line. Later
/// lines that are not events do not change the verdict: the parser reports
/// them with their line number (or skips them under `--lenient`).
fn sniff_ex(head: &[u8]) -> Option<bool> {
    let mut lines = super::guess::meaningful_lines(head).take(4);
    let (_, first, _) = split_event(lines.next()?)?;
    let verdict = first.is_addr();
    // mixed: the address parser reports the odd line
    let mixed = lines
        .filter_map(split_event)
        .any(|(_, token, _)| token.is_addr() != verdict);
    Some(verdict || mixed)
}
