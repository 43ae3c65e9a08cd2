//! The in-order side of an indented parse, on the calling thread: widths
//! turned into depths, names interned in file order, the file's unit and
//! precision followed, and the sink fed.

use super::*;
use crate::ingest::{NodeRecord, skip_or_fail};

/// The calling thread's side: turns widths into depths, interns names into
/// the [`FuncTable`] in file order and feeds the sink, scaling the times
/// already fed when a more precise number shows up.
pub(super) struct InOrder<'a> {
    pub(super) name: &'a str,
    pub(super) opts: &'a ParseOptions,
    pub(super) funcs: &'a mut FuncTable,
    pub(super) meta: TraceMeta,
    pub(super) indents: Indents,
    /// Line ends before the current chunk.
    pub(super) line: u64,
    /// The first error in strict mode: later chunks are still checked for
    /// UTF-8, which the whole file must be before any line counts.
    pub(super) failed: Option<Error>,
    /// Global ids of the chunk's names, as a function and as a thread node.
    pub(super) maps: (Vec<u32>, Vec<u32>),
    pub(super) units: Units,
    /// Reads the chunks a summary could not stand for, record by record.
    pub(super) own: Option<(Parser, Parsed)>,
}

/// The file's unit as far as read: nanoseconds from the first number with
/// a time unit on (earlier numbers then count as nanoseconds too), else
/// calls if a number says so, else numbers of unknown unit.
#[derive(Default)]
pub(super) struct Units {
    pub(super) time: bool,
    pub(super) calls: bool,
    /// Some nodes were fed with values that differ from their nanoseconds
    /// (decimals, or digits beyond 2^53).
    pub(super) inexact: bool,
    /// A time unit came after such nodes: the file is read again whole.
    pub(super) restart: bool,
}

impl Units {
    /// Notes a line's units before it is fed; false when the file must be
    /// read again.
    #[inline]
    fn line(&mut self, r: &Rec) -> bool {
        if r.units & Rec::TIME != 0 && !self.time {
            if self.inexact {
                self.restart = true;
                return false;
            }
            self.time = true;
        }
        self.calls |= r.units & Rec::CALLS != 0;
        if !self.time {
            let exact = |n: Number| n.decimals == 0 && n.digits < EXACT_F64;
            self.inexact |= !(exact(r.self_time) && exact(r.total));
        }
        true
    }

    pub(super) fn finish(&self, mut meta: TraceMeta) -> TraceMeta {
        meta.unit = if self.time {
            meta.decimals = 0;
            Unit::Nanos
        } else if self.calls {
            Unit::Calls
        } else {
            Unit::Number
        };
        meta
    }
}

impl InOrder<'_> {
    /// Takes the next chunk (`bytes`, and what a worker made of it).
    pub(super) fn chunk(&mut self, bytes: &[u8], out: &Out, sink: &mut dyn Sink) -> Result<()> {
        if !out.summarised {
            return self.records(&out.parsed, sink);
        }
        // Summarised chunks are UTF-8: after an error there is nothing to check.
        if self.failed.is_some() || self.units.restart || self.part(&out.part, sink) {
            self.line += out.part.lines;
            return Ok(());
        }
        let (reader, parsed) = self
            .own
            .get_or_insert_with(|| (Parser::new(false), Parsed::default()));
        reader.chunk(bytes, parsed);
        let parsed = std::mem::take(parsed);
        let r = self.records(&parsed, sink);
        if let Some(own) = self.own.as_mut() {
            own.1 = parsed;
        }
        r
    }

    /// Feeds a summarised chunk; false when its summary cannot stand for
    /// it here (then its records are fed instead).
    fn part(&mut self, p: &Part, sink: &mut dyn Sink) -> bool {
        if p.nodes.is_empty() {
            return true;
        }
        let mut indents = Indents(self.indents.0.clone());
        let Some(depths) = p.resolve(&mut indents) else {
            return false;
        };
        let units = &mut self.units;
        if p.nanos && !units.time && units.inexact {
            units.restart = true;
            return true;
        }
        if !p.nanos && units.time && !p.exact {
            return false;
        }
        self.indents = indents;
        units.time |= p.nanos;
        units.calls |= p.calls_unit;
        let factor = if units.time {
            1
        } else {
            units.inexact |= !p.exact;
            if p.decimals > self.meta.decimals {
                sink.scale_times(POW10[(p.decimals - self.meta.decimals) as usize]);
                self.meta.decimals = p.decimals;
            }
            POW10[(self.meta.decimals - p.decimals) as usize]
        };
        let chunk = p.node_chunk(depths, self.funcs, &mut self.maps, factor);
        sink.node_chunk(&chunk);
        true
    }

    /// Feeds a chunk's records.
    fn records(&mut self, parsed: &Parsed, sink: &mut dyn Sink) -> Result<()> {
        if let Some(line) = parsed.bad_utf8 {
            let line = self.line + line + 1;
            return Err(Error::parse(self.name, line, "expected UTF-8 text"));
        }
        if self.failed.is_none() && !self.units.restart {
            let (funcs, threads) = &mut self.maps;
            funcs.clear();
            funcs.resize(parsed.names.len(), UNSET);
            threads.clear();
            threads.resize(parsed.names.len(), UNSET);
            for r in &parsed.recs {
                match self.rec(r, parsed, sink) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        self.failed = Some(e);
                        break;
                    }
                }
            }
        }
        self.line += parsed.lines;
        Ok(())
    }

    /// Feeds one record; Ok(false) when the file must be read again.
    #[inline]
    fn rec(&mut self, r: &Rec, parsed: &Parsed, sink: &mut dyn Sink) -> Result<bool> {
        let lineno = self.line + r.line + 1;
        if r.name == Rec::ERROR {
            let msg = parsed.errors[r.calls as usize].clone();
            let err = Error::parse(self.name, lineno, msg);
            return skip_or_fail(&mut self.meta, self.opts, err).map(|()| true);
        }
        let depth = match self.indents.depth(r.width) {
            Ok(d) => d,
            Err(msg) => {
                let err = Error::parse(self.name, lineno, msg);
                return skip_or_fail(&mut self.meta, self.opts, err).map(|()| true);
            }
        };
        if !self.units.line(r) {
            return Ok(false);
        }
        let places = r.self_time.decimals.max(r.total.decimals);
        if !self.units.time && places > self.meta.decimals {
            sink.scale_times(POW10[(places - self.meta.decimals) as usize]);
            self.meta.decimals = places;
        }
        let n = r.name as usize;
        let name = &parsed.names[n];
        let func = match name.thread {
            Some(tid) if depth == 0 => {
                let f = &mut self.maps.1[n];
                if *f == UNSET {
                    *f = self.funcs.thread(tid);
                }
                *f
            }
            _ => {
                let f = &mut self.maps.0[n];
                if *f == UNSET {
                    *f = self.funcs.name(&name.text);
                }
                *f
            }
        };
        let d = self.meta.decimals;
        let value = |n: Number| {
            if self.units.time {
                n.nanos()
            } else {
                n.fixed(d)
            }
        };
        sink.node(NodeRecord {
            depth,
            func,
            self_time: value(r.self_time),
            total: value(r.total),
            calls: r.calls,
        });
        Ok(true)
    }
}

impl chunked::InOrder for InOrder<'_> {
    type Parser = Parser;

    fn consume(
        &mut self,
        _start: usize,
        bytes: &[u8],
        out: Out,
        sink: &mut dyn Sink,
    ) -> Result<Option<Out>> {
        self.chunk(bytes, &out, sink).map(|()| Some(out))
    }
}
