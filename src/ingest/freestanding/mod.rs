//! The freestanding runtime's buffer (`calltrace runtime --freestanding`,
//! for microcontrollers): the bytes of the one object `calltrace_buffer`,
//! as `calltrace_dump` writes them, as a semihosting file or as a GDB
//! `dump binary memory` of it. The layout is the contract in
//! docs/binary-format.md ("The freestanding buffer"): a 64-byte header
//! (magic `CALLTRF\0`), a task table, then `capacity` slots of 8 bytes
//! (32-bit targets) or 16 (64-bit), read in ring order (`header.rs`).
//!
//! Each slot is a function entry or exit (the address with the Thumb bit
//! dropped; the `symbols` stage finds the odd Thumb symbol of an even
//! address) with the low 32 bits of the target's clock, or a context
//! switch (`slots.rs`). Each context becomes a thread: `main`, a task by
//! its name, an exception by the function of its first entry
//! ([`TraceMeta::entry_named`], named once functions have names) or
//! `exception N`. Times are cycles unwrapped over 2^32, in nanoseconds
//! when the rate is known (`--clock-hz`, else the header's), else in
//! [`Unit::Cycles`]; a buffer without a clock is untimed. A ring that
//! wrapped starts mid-stack: the call tree's builder repairs it like any
//! cut trace and says how many frames it closed.

mod header;
mod slots;
#[cfg(test)]
mod tests;

use header::{Header, MAGIC, Mode};
use slots::{Clock, Slot, Threads, check_context, decode};

use super::{
    BATCH, Event, EventKind, FuncTable, Input, ParseOptions, Sink, TraceFormat, TraceMeta,
    skip_or_fail,
};
use crate::error::{Error, Result};

/// The format's `--format` name.
pub(crate) const NAME: &str = "freestanding";

/// The freestanding runtime's buffer.
pub(crate) struct FreestandingFormat;

impl TraceFormat for FreestandingFormat {
    fn name(&self) -> &'static str {
        NAME
    }
    fn help(&self) -> &'static str {
        "the buffer of the freestanding runtime (`calltrace_dump`, semihosting or a GDB dump of `calltrace_buffer`)"
    }
    fn magic(&self) -> Option<&'static [u8]> {
        Some(MAGIC)
    }
    fn piece(&self) -> &'static str {
        "record"
    }
    fn sniff(&self, head: &[u8]) -> bool {
        head.starts_with(MAGIC)
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let data: &[u8] = input;
        let name = input.name();
        let h = Header::read(name, data)?;
        check_length(name, data, &h)?;
        let clock = Clock::new(&h, opts.clock_hz);
        let mut meta = TraceMeta {
            format: NAME,
            timed: clock.timed(),
            unit: clock.unit(),
            ..TraceMeta::default()
        };
        let mut read = Read {
            name,
            data,
            h: &h,
            clock,
            threads: Threads::default(),
            batch: Vec::with_capacity(BATCH),
        };
        read.slots(opts, funcs, sink, &mut meta)?;
        let (threads, names, entries) = read.threads.into_ids();
        meta.threads = threads;
        meta.thread_names = names;
        meta.entry_named = entries;
        warn(name, data, &h, opts, &mut meta);
        Ok(meta)
    }
}

/// The file holds every slot the header says there are.
fn check_length(name: &str, data: &[u8], h: &Header) -> Result<()> {
    let len = data.len() as u64;
    if len >= h.end() {
        return Ok(());
    }
    let what = match len.checked_sub(h.header_size as u64) {
        None => "inside the header and task table".to_string(),
        Some(past) => format!("inside slot {}", past / h.event_size as u64),
    };
    Err(Error::Input(format!(
        "{name}: byte {len}: the file ends {what}; expected {} bytes \
         (header size {} + capacity {} x {}-byte slots; cut off?)",
        h.end(),
        h.header_size,
        h.capacity,
        h.event_size
    )))
}

/// One read of the slots.
struct Read<'a> {
    name: &'a str,
    data: &'a [u8],
    h: &'a Header,
    clock: Clock,
    threads: Threads,
    batch: Vec<Event>,
}

impl Read<'_> {
    /// Hands every slot's event to `sink` in ring order, each on its
    /// context's thread.
    fn slots(
        &mut self,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
        meta: &mut TraceMeta,
    ) -> Result<()> {
        let mut context = self.first_context();
        let mut thread = None;
        for i in self.h.slot_order() {
            let at = self.h.header_size + i as usize * self.h.event_size;
            let bytes = &self.data[at..at + self.h.event_size];
            let fail =
                |msg: String| Error::Input(format!("{}: slot {i} (byte {at}): {msg}", self.name));
            match decode(bytes, self.h.pointer) {
                Ok(Slot::Switch { to, .. }) => match check_context(to, self.h.task_capacity) {
                    Ok(()) => (context, thread) = (to, None),
                    Err(msg) => skip_or_fail(meta, opts, fail(msg))?,
                },
                Ok(Slot::Func { addr, kind, clock }) => {
                    if let Err(msg) = check_context(context, self.h.task_capacity) {
                        skip_or_fail(meta, opts, fail(msg))?;
                        continue;
                    }
                    let t = *thread
                        .get_or_insert_with(|| self.threads.index(context, self.h, self.data));
                    let func = funcs.addr(addr);
                    if kind == EventKind::Enter {
                        self.threads.entered(t, func);
                    }
                    let time = self.clock.time(clock);
                    self.push(
                        sink,
                        Event {
                            time,
                            func,
                            thread: t,
                            kind,
                        },
                    );
                }
                Err(msg) => skip_or_fail(meta, opts, fail(msg))?,
            }
        }
        sink.events(&self.batch);
        Ok(())
    }

    /// The context of the first events: the `from` of the first context
    /// switch, else the header's.
    fn first_context(&self) -> u16 {
        self.h
            .slot_order()
            .find_map(|i| {
                let at = self.h.header_size + i as usize * self.h.event_size;
                match decode(&self.data[at..at + self.h.event_size], self.h.pointer) {
                    Ok(Slot::Switch { from, .. }) => Some(from),
                    _ => None,
                }
            })
            .unwrap_or(self.h.context)
    }

    fn push(&mut self, sink: &mut dyn Sink, e: Event) {
        self.batch.push(e);
        if self.batch.len() == BATCH {
            sink.events(&self.batch);
            self.batch.clear();
        }
    }
}

/// What the user should know about the buffer, once each: no events,
/// events dropped,
/// a ring that wrapped, tasks past the table, bytes past the buffer, a
/// clock rate given to a buffer without a clock.
fn warn(name: &str, data: &[u8], h: &Header, opts: &ParseOptions, meta: &mut TraceMeta) {
    let w = &mut meta.warnings;
    if h.slot_order().next().is_none() {
        let state = match h.recording() {
            true => "on",
            false => "off (calltrace_stop)",
        };
        w.push(format!(
            "{name}: the buffer holds no events: nothing was recorded since reset or \
             calltrace_clear; recording is {state}"
        ));
    }
    if h.mode == Mode::Stop && h.dropped > 0 {
        let more = if h.dropped == u32::MAX {
            "at least "
        } else {
            ""
        };
        w.push(format!(
            "{name}: the buffer filled up and {more}{} event(s) were dropped: the trace holds \
             the first {} slots; a bigger CALLTRACE_EVENTS keeps more (CALLTRACE_MODE_RING keeps \
             the last ones instead); calls left open are closed at the last event",
            h.dropped, h.capacity
        ));
    }
    // A full stop buffer sets the flag too (its slots read from 0 on).
    if h.wrapped() && h.mode == Mode::Ring {
        let written = match h.count {
            u32::MAX => "more than 4294967294".to_string(),
            n => n.to_string(),
        };
        w.push(format!(
            "{name}: the ring wrapped: it holds the last {} of {written} slots written, so it \
             starts in the middle of calls whose entries were overwritten",
            h.capacity
        ));
    }
    if h.tasks_overflowed() {
        w.push(format!(
            "{name}: more tasks ran than the task table's {} entries (CALLTRACE_TASKS): the rest \
             share the thread `other tasks`",
            h.task_capacity
        ));
    }
    let past = data.len() as u64 - h.end();
    if past > 0 {
        w.push(format!(
            "{name}: {past} byte(s) after the buffer's last slot (byte {}) were ignored",
            h.end()
        ));
    }
    if opts.clock_hz.is_some() && !meta.timed {
        w.push(format!(
            "{name}: --clock-hz is ignored: the buffer was recorded without a clock \
             (its events are counted, not timed)"
        ));
    }
}
