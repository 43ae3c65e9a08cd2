//! The skeleton every chunked reader (binary, E/X text, indented) runs on:
//! parallel parsing in file order. The input is cut into chunks at line
//! ends or record boundaries ([`Input::chunks`]); each format supplies its
//! two roles, a [`ChunkParser`] that parses chunks independently on every
//! parsing thread, and an [`InOrder`] side that the calling thread feeds the
//! results strictly in file order, so everything order-dependent
//! (interning, thread numbering, line numbers, the tree builder fed through
//! the `Sink`) happens exactly as in a single-threaded run. [`read`] drives
//! the two. The calling thread is one of the parsers: when the
//! next chunk in order is not ready it parses a chunk itself, so N threads
//! keep N cores busy without oversubscribing them. Parsing runs at most a
//! few chunks ahead of consumption, which bounds memory; each consumed
//! chunk's mapped pages are handed back to the page cache ([`Input::release`]).
//! A file's chunk is only placed under the chunk source's lock; the thread
//! that parses it reads its bytes ([`Unread::load`]), so reads overlap.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use std::any::Any;

use super::input::{Chunk, Chunks, Unread};
use super::{ChunkWork, Event, FuncTable, Input, ParseOptions, Sink, ThreadIds};
use crate::error::Result;

/// Default chunk size: large enough to amortise hand-over costs, small
/// enough that the chunks in flight stay cache- and memory-friendly.
pub(crate) const DEFAULT_CHUNK: usize = 1 << 20;

/// How many chunks each thread may be ahead of the consumer.
const AHEAD_PER_THREAD: u64 = 2;

/// Number of parsing threads for `opts` (0 means one per core).
pub(crate) fn thread_count(opts: &ParseOptions) -> usize {
    match opts.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// The chunk size `opts` asks for.
pub(crate) fn chunk_size(opts: &ParseOptions) -> usize {
    match opts.chunk_bytes {
        0 => DEFAULT_CHUNK,
        n => n,
    }
}

/// What a worker made of a chunk of events: the events with chunk-local
/// function and thread ids (given in order of first appearance), and the
/// sink's summary of them, if it makes summaries.
#[derive(Default)]
pub(crate) struct LocalEvents {
    /// Events with chunk-local ids.
    pub events: Vec<Event>,
    /// Address of each local function id.
    pub addrs: Vec<u64>,
    /// Name of each local function id, for chunks of function names
    /// (which have no addresses).
    pub names: Vec<String>,
    /// Thread id of each local thread index.
    pub tids: Vec<u64>,
    /// What the sink's [`ChunkWork`](super::ChunkWork) made of the events.
    pub summary: Option<Box<dyn Any + Send>>,
}

impl LocalEvents {
    /// Empties the buffers for the next chunk.
    pub(crate) fn clear(&mut self) {
        self.events.clear();
        self.addrs.clear();
        self.names.clear();
        self.tids.clear();
        self.summary = None;
    }

    /// Hands the chunk to `sink` in global ids: interning the local ids in
    /// order keeps global ids in order of first appearance. `maps` is scratch.
    pub(crate) fn merge(
        &mut self,
        funcs: &mut FuncTable,
        threads: &mut ThreadIds,
        maps: &mut (Vec<u32>, Vec<u32>),
        sink: &mut dyn Sink,
    ) {
        let (func_map, thread_map) = maps;
        func_map.clear();
        func_map.extend(self.addrs.iter().map(|&a| funcs.addr(a)));
        // Moved, not copied: a new name's text becomes the table's.
        func_map.extend(self.names.drain(..).map(|n| funcs.name_owned(n)));
        thread_map.clear();
        thread_map.extend(self.tids.iter().map(|&t| threads.index(t)));
        if let Some(summary) = self.summary.take() {
            sink.merge(summary, func_map, thread_map);
            return;
        }
        for e in self.events.iter_mut() {
            e.func = func_map[e.func as usize];
            e.thread = thread_map[e.thread as usize];
        }
        sink.events(&self.events);
    }
}

/// Buffers that go back and forth between the workers and the consumer, so
/// that chunks after the first few reuse their allocations.
struct Recycle<B>(Mutex<Vec<B>>);

impl<B: Default> Recycle<B> {
    /// A buffer given back earlier, or a new one.
    pub(crate) fn take(&self) -> B {
        self.0
            .lock()
            .expect("recycle lock")
            .pop()
            .unwrap_or_default()
    }

    /// Gives a buffer back for a later chunk.
    pub(crate) fn give(&self, buffer: B) {
        self.0.lock().expect("recycle lock").push(buffer);
    }
}

/// The parallel role of a chunked reader: one per parsing thread, it
/// turns a chunk's bytes into a parsed chunk with chunk-local ids, knowing
/// nothing of the chunks before it. Implemented by each chunked format's
/// `Parser` (binary, E/X text, indented); [`read`] calls it statically, so
/// its hot loop is compiled for the format.
pub(crate) trait ChunkParser {
    /// The reusable buffers a parsed chunk is made in; [`InOrder::consume`]
    /// hands them back for later chunks.
    type Buffer: Default + Send;
    /// What the parser made of a chunk, sent to the in-order side.
    type Parsed: Send;

    /// Parses one chunk (whole lines or records) into `buffer`. `work` is
    /// one of the sink's chunk summarisers, when the sink makes summaries
    /// ([`Sink::chunk_work`](super::Sink::chunk_work)).
    fn parse(
        &mut self,
        bytes: &[u8],
        buffer: Self::Buffer,
        work: Option<&mut dyn ChunkWork>,
    ) -> Self::Parsed;
}

/// The in-order role of a chunked reader: on the calling thread, it takes
/// the parsed chunks strictly in file order and does everything that
/// depends on what came before (global function and thread ids, line
/// numbers, headers, `--lenient` counts, the sink). Implemented by each
/// chunked format's `InOrder`.
pub(crate) trait InOrder {
    /// The parser whose chunks this side takes.
    type Parser: ChunkParser;

    /// Takes the next chunk: its `bytes`, which start at byte `start` of
    /// the input, and what a parser made of them. Returns the chunk's
    /// buffer, if any, to reuse for a later chunk.
    fn consume(
        &mut self,
        start: usize,
        bytes: &[u8],
        parsed: <Self::Parser as ChunkParser>::Parsed,
        sink: &mut dyn Sink,
    ) -> Result<Option<<Self::Parser as ChunkParser>::Buffer>>;
}

/// What a parsing thread works with in [`read`].
struct Worker<'p, P: ChunkParser> {
    parser: P,
    /// One of the sink's chunk summarisers, if it makes them.
    work: Option<Box<dyn ChunkWork>>,
    /// Buffers shared with the consumer.
    buffers: &'p Recycle<P::Buffer>,
}

/// Reads `chunks` of `input` with a chunked format's two roles: [`run`]
/// with a `parser()` and one of `sink`'s chunk summarisers per parsing
/// thread, and `in_order` taking the parsed chunks in file order.
pub(crate) fn read<'a, P, I>(
    input: &'a Input,
    chunks: Chunks<'a>,
    opts: &ParseOptions,
    sink: &mut dyn Sink,
    parser: impl Fn() -> P + Sync,
    in_order: &mut I,
) -> Result<()>
where
    P: ChunkParser,
    I: InOrder<Parser = P>,
{
    let buffers = Recycle(Mutex::new(Vec::new()));
    let threads = thread_count(opts).max(1);
    let works: Mutex<Vec<_>> = Mutex::new((0..threads).map(|_| sink.chunk_work()).collect());
    let make_worker = || Worker {
        parser: parser(),
        work: works.lock().expect("work lock").pop().flatten(),
        buffers: &buffers,
    };
    let work = |w: &mut Worker<'_, P>, bytes: &[u8]| {
        let buffer = w.buffers.take();
        let work = w.work.as_mut().map(|b| &mut **b as &mut dyn ChunkWork);
        w.parser.parse(bytes, buffer, work)
    };
    run(input, chunks, opts, make_worker, work, |chunk, parsed| {
        let spare = in_order.consume(chunk.start, &chunk.bytes, parsed, sink)?;
        if let Some(buffer) = spare {
            buffers.give(buffer);
        }
        Ok(())
    })
}

/// Parses `chunks` of `input` with `work` on [`thread_count`] threads (the
/// calling one included) and hands each chunk and its result to `consume`
/// on the calling thread, in file order.
fn run<'a, W, R, MW, WF, CF>(
    input: &'a Input,
    chunks: Chunks<'a>,
    opts: &ParseOptions,
    make_worker: MW,
    work: WF,
    mut consume: CF,
) -> Result<()>
where
    R: Send,
    MW: Fn() -> W + Sync,
    WF: Fn(&mut W, &[u8]) -> R + Sync,
    CF: FnMut(&Chunk<'a>, R) -> Result<()>,
{
    let threads = thread_count(opts).max(1);
    let shared = Shared {
        chunks: Mutex::new((chunks, 0)),
        consumed: Mutex::new(0),
        moved: Condvar::new(),
        abort: AtomicBool::new(false),
        ahead: AHEAD_PER_THREAD * threads as u64,
    };
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        for _ in 1..threads {
            let tx = tx.clone();
            let (shared, make_worker, work) = (&shared, &make_worker, &work);
            s.spawn(move || helper(input, shared, make_worker, work, tx));
        }
        drop(tx);
        // Stops the helpers when the consumer is done, or unwinds.
        let _stop = StopOthers(&shared, true);
        let mut own = make_worker();
        let mut parse = |bytes: &[u8]| work(&mut own, bytes);
        in_order(input, &shared, rx, &mut parse, &mut consume)
    })
}

/// Stops every parsing thread of a run when dropped: always (the consumer
/// when it is done or fails, with `true`) or when its thread unwinds (a
/// bug in a helper), so that no other waits for a turn or a chunk that
/// will never come, and the run ends (with the panic) instead of hanging.
struct StopOthers<'s, 'a>(&'s Shared<'a>, bool);

impl Drop for StopOthers<'_, '_> {
    fn drop(&mut self) {
        if !self.1 && !std::thread::panicking() {
            return;
        }
        let shared = self.0;
        // Under the lock, so none can miss the wake-up between its check
        // and its wait (a lock poisoned by a panic still serves).
        let _guard = shared.consumed.lock().unwrap_or_else(|e| e.into_inner());
        shared.abort.store(true, Ordering::Relaxed);
        shared.moved.notify_all();
    }
}

/// State shared by the helpers and the consumer.
struct Shared<'a> {
    /// The chunk source and the sequence number of the next chunk.
    chunks: Mutex<(Chunks<'a>, u64)>,
    /// Number of chunks consumed so far.
    consumed: Mutex<u64>,
    /// Signalled when `consumed` grows or the run is aborted.
    moved: Condvar,
    abort: AtomicBool,
    /// How far ahead of the consumer chunks may be taken.
    ahead: u64,
}

/// A parsed chunk, the end of input (None), or a read error, by sequence number.
type Message<'a, R> = (u64, Result<Option<(Chunk<'a>, R)>>);

/// What trying to take the next chunk gave.
enum Take<'a> {
    /// Chunk `seq` (None: the input ended before it), its bytes still to
    /// be read outside the lock.
    Got(u64, Result<Option<Unread<'a>>>),
    /// Chunk `seq` is too far ahead of the consumer for now.
    TooFar(u64),
}

impl<'a> Shared<'a> {
    fn take(&self, name: &str) -> Take<'a> {
        let mut guard = self.chunks.lock().expect("chunk lock");
        let seq = guard.1;
        if seq >= *self.consumed.lock().expect("consumed lock") + self.ahead {
            return Take::TooFar(seq);
        }
        guard.1 += 1;
        Take::Got(seq, guard.0.next_unread(name))
    }

    /// Waits (holding no other lock) until chunk `seq` may be taken; false
    /// when the run was aborted.
    fn wait_turn(&self, seq: u64) -> bool {
        let mut consumed = self.consumed.lock().expect("consumed lock");
        while seq >= *consumed + self.ahead && !self.abort.load(Ordering::Relaxed) {
            consumed = self.moved.wait(consumed).expect("consumed lock");
        }
        !self.abort.load(Ordering::Relaxed)
    }
}

/// Reads `next`'s chunk (of the input `name`) and parses it with `parse`
/// into a message.
fn parsed<'a, R>(
    next: Result<Option<Unread<'a>>>,
    name: &str,
    parse: &mut impl FnMut(&[u8]) -> R,
) -> Result<Option<(Chunk<'a>, R)>> {
    let Some(unread) = next? else {
        return Ok(None);
    };
    let chunk = unread.load(name)?;
    let r = parse(&chunk.bytes);
    Ok(Some((chunk, r)))
}

/// A helper thread: takes, parses and sends chunks until the input ends.
fn helper<'a, W, R, MW, WF>(
    input: &'a Input,
    shared: &Shared<'a>,
    make_worker: &MW,
    work: &WF,
    tx: mpsc::Sender<Message<'a, R>>,
) where
    MW: Fn() -> W,
    WF: Fn(&mut W, &[u8]) -> R,
{
    let _stop = StopOthers(shared, false);
    let mut w = make_worker();
    let mut parse = |bytes: &[u8]| work(&mut w, bytes);
    loop {
        if shared.abort.load(Ordering::Relaxed) {
            return;
        }
        match shared.take(input.name()) {
            Take::TooFar(seq) => {
                if !shared.wait_turn(seq) {
                    return;
                }
            }
            Take::Got(seq, next) => {
                let msg = parsed(next, input.name(), &mut parse);
                let last = !matches!(msg, Ok(Some(_)));
                if tx.send((seq, msg)).is_err() || last {
                    return;
                }
            }
        }
    }
}

/// Consumes results in sequence order, parsing chunks itself while the
/// next one in order is not ready.
fn in_order<'a, R>(
    input: &'a Input,
    shared: &Shared<'a>,
    rx: mpsc::Receiver<Message<'a, R>>,
    parse: &mut impl FnMut(&[u8]) -> R,
    consume: &mut impl FnMut(&Chunk<'a>, R) -> Result<()>,
) -> Result<()> {
    let mut pending = BTreeMap::new();
    let mut next = 0u64;
    let mut source_done = false;
    loop {
        pending.extend(rx.try_iter());
        if let Some(msg) = pending.remove(&next) {
            let Some((chunk, r)) = msg? else {
                return Ok(());
            };
            consume(&chunk, r)?;
            input.release(chunk.start + chunk.bytes.len());
            let mut guard = shared.chunks.lock().expect("chunk lock");
            guard.0.recycle(chunk.bytes);
            drop(guard);
            next += 1;
            *shared.consumed.lock().expect("consumed lock") = next;
            shared.moved.notify_all();
            continue;
        }
        if !source_done && let Take::Got(seq, chunk) = shared.take(input.name()) {
            let msg = parsed(chunk, input.name(), parse);
            source_done = !matches!(msg, Ok(Some(_)));
            pending.insert(seq, msg);
            continue;
        }
        // A helper holds chunk `next`: wait for it (or anything else).
        match rx.recv() {
            Ok((seq, msg)) => {
                pending.insert(seq, msg);
            }
            Err(_) => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// Whether `run` over 64 small chunks on `threads` threads, whose
    /// parsing panics on the consumer's thread (`consumer`) or on the
    /// first chunk a helper parses (the other helpers go on), ended with
    /// that panic within 30 seconds (None: it hung).
    fn panics_and_ends(threads: usize, consumer: bool) -> Option<bool> {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("consumer".into())
            .spawn(move || {
                let text: String = (0..64).map(|i| format!("line {i:03}\n")).collect();
                let input = Input::from_bytes("t", text.into_bytes());
                let opts = ParseOptions {
                    threads,
                    ..Default::default()
                };
                let by_helpers = AtomicUsize::new(0);
                let work = |_: &mut (), bytes: &[u8]| {
                    let mine = std::thread::current().name() == Some("consumer");
                    let first = !mine && by_helpers.fetch_add(1, Ordering::SeqCst) == 0;
                    if (mine && consumer) || (first && !consumer) {
                        panic!("a bug while parsing");
                    }
                    // The consumer leaves the helpers a chunk to fail on.
                    while mine && by_helpers.load(Ordering::SeqCst) == 0 {
                        std::thread::yield_now();
                    }
                    bytes.len()
                };
                let run = || run(&input, input.chunks(9), &opts, || (), work, |_, _| Ok(()));
                let _ = tx.send(catch_unwind(AssertUnwindSafe(run)).is_err());
            })
            .expect("spawn");
        rx.recv_timeout(Duration::from_secs(30)).ok()
    }

    #[test]
    fn a_parsing_thread_that_panics_ends_the_run_instead_of_hanging() {
        for threads in [2, 3] {
            for consumer in [true, false] {
                assert_eq!(
                    panics_and_ends(threads, consumer),
                    Some(true),
                    "{threads} threads, the panic on {} thread",
                    if consumer {
                        "the consumer's"
                    } else {
                        "a helper's"
                    }
                );
            }
        }
    }
}
