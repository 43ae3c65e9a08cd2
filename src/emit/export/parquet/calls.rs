//! `calls.parquet` (`--view calls`): one row per call, written as the
//! trace's events are read a second time, so memory holds the open frames
//! and one batch of rows, never the calls: a 10^8-call trace exports in
//! bounded memory. Each call names its calling context by the same stable
//! id as `contexts.parquet`, and its thread and `seq` (the call's entry
//! number in its thread, from 0) say which call it is.
//!
//! Times are in the run's unit: nanoseconds for timed traces; for untimed
//! ones a call's `duration` is the calls in its subtree, its `self` 1 and
//! its `start` its `seq`, as the contexts weigh them.

use std::io::{self, Write};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use rustc_hash::FxHashMap;

use super::{i64_of, ids, io_err, properties};
use crate::emit::export::calls::{CallStream, CallWriter, Layout};
use crate::ingest::{Event, EventSink, FuncId, FuncTable, NodeRecord, NodeSink};

/// Rows per row group.
const BATCH: usize = 1 << 16;

/// The schema of `calls.parquet`.
fn schema() -> Arc<Schema> {
    let int = |n: &str| Field::new(n, DataType::Int64, false);
    Arc::new(Schema::new(vec![
        Field::new("run_id", DataType::Utf8, false),
        int("thread"),
        int("seq"),
        int("context_id"),
        int("start"),
        int("duration"),
        int("self"),
    ]))
}

/// An open call.
struct Frame {
    context: i64,
    seq: u64,
    /// Summed durations of its finished callees.
    callees: u64,
    /// Calls in its subtree so far, itself included (untimed weights).
    calls: u64,
}

/// Rows being gathered, and the Parquet file they go to.
struct Rows<'a> {
    run_id: &'a str,
    /// Stable id of each function, by function id.
    function_ids: &'a [i64],
    timed: bool,
    /// Open frames and calls entered so far, per thread id.
    stacks: FxHashMap<u64, (Vec<Frame>, u64)>,
    columns: [Int64Builder; 6],
    len: usize,
    writer: ArrowWriter<Vec<u8>>,
    out: &'a mut dyn Write,
    /// Bytes written to `out`.
    written: u64,
    /// The first write error; later rows are dropped.
    error: Option<io::Error>,
}

impl Rows<'_> {
    /// Bytes written to the output so far.
    #[cfg(test)]
    fn out_len(&self) -> u64 {
        self.written
    }

    fn push(&mut self, values: [i64; 6]) {
        for (c, v) in self.columns.iter_mut().zip(values) {
            c.append_value(v);
        }
        self.len += 1;
        if self.len >= BATCH {
            self.flush();
        }
    }

    /// Writes the gathered rows as one row group.
    fn flush(&mut self) {
        if self.len == 0 || self.error.is_some() {
            return;
        }
        let mut run = StringBuilder::new();
        (0..self.len).for_each(|_| run.append_value(self.run_id));
        let mut arrays: Vec<arrow_array::ArrayRef> = vec![Arc::new(run.finish())];
        arrays.extend(self.columns.iter_mut().map(|c| Arc::new(c.finish()) as _));
        self.len = 0;
        let batch = RecordBatch::try_new(schema(), arrays).expect("columns match the schema");
        let written = (|| {
            self.writer.write(&batch).map_err(io_err)?;
            self.writer.flush().map_err(io_err)?;
            let bytes = std::mem::take(self.writer.inner_mut());
            self.written += bytes.len() as u64;
            self.out.write_all(&bytes)
        })();
        self.error = written.err();
    }
}

impl CallWriter for Rows<'_> {
    fn enter(&mut self, func: FuncId, tid: u64, _time: u64) {
        let (stack, entered) = self.stacks.entry(tid).or_default();
        let parent = stack.last().map_or(0, |f| f.context);
        let function = self.function_ids.get(func as usize).copied().unwrap_or(0);
        stack.push(Frame {
            context: ids::context_id(parent, function),
            seq: *entered,
            callees: 0,
            calls: 1,
        });
        *entered += 1;
    }

    fn leave(&mut self, _func: FuncId, tid: u64, start: u64, end: u64) {
        let Some((stack, _)) = self.stacks.get_mut(&tid) else {
            return;
        };
        let Some(f) = stack.pop() else { return };
        let duration = end.saturating_sub(start);
        if let Some(up) = stack.last_mut() {
            up.callees = up.callees.saturating_add(duration);
            up.calls += f.calls;
        }
        let (start, duration, self_weight) = match self.timed {
            true => (start, duration, duration.saturating_sub(f.callees)),
            false => (f.seq, f.calls, 1),
        };
        let row = [tid, f.seq, 0, start, duration, self_weight].map(i64_of);
        self.push([row[0], row[1], f.context, row[3], row[4], row[5]]);
    }
}

/// A [`Sink`] writing `calls.parquet` from a trace's events (or an
/// indented trace's nodes, laid out one after another in their caller).
pub(super) struct CallsSink<'a> {
    stream: CallStream<'a>,
    layout: Layout<'a>,
    /// Context ids of the open nodes of an indented trace, by depth
    /// below `base`.
    node_contexts: Vec<i64>,
    /// Depth of the top-level calls of the thread being laid out.
    base: usize,
    rows: Rows<'a>,
}

impl<'a> CallsSink<'a> {
    /// A sink for run `run_id`, whose function `f` has stable id
    /// `function_ids[f]`, writing to `out`.
    pub(super) fn new(
        run_id: &'a str,
        function_ids: &'a [i64],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> io::Result<CallsSink<'a>> {
        let writer =
            ArrowWriter::try_new(Vec::new(), schema(), Some(properties())).map_err(io_err)?;
        Ok(CallsSink {
            stream: CallStream::new(threads, timed),
            layout: Layout::new(funcs, threads.first().copied().unwrap_or(0)),
            node_contexts: Vec::new(),
            base: 0,
            rows: Rows {
                run_id,
                function_ids,
                timed,
                stacks: FxHashMap::default(),
                columns: Default::default(),
                len: 0,
                writer,
                out,
                written: 0,
                error: None,
            },
        })
    }

    /// Closes the calls still open, writes the rest and the file's footer.
    pub(super) fn finish(mut self) -> io::Result<()> {
        self.stream.finish(&mut self.rows);
        self.rows.flush();
        if let Some(e) = self.rows.error.take() {
            return Err(e);
        }
        let rest = self.rows.writer.into_inner().map_err(io_err)?;
        self.rows.out.write_all(&rest)?;
        self.rows.out.flush()
    }
}

impl EventSink for CallsSink<'_> {
    fn events(&mut self, events: &[Event]) {
        self.stream.events(events, &mut self.rows);
    }
}

impl NodeSink for CallsSink<'_> {
    fn node(&mut self, node: NodeRecord) {
        let Some((tid, start, end)) = self.layout.place(node.depth + 1, node.func, node.total)
        else {
            self.node_contexts.clear();
            self.base = node.depth as usize + 1;
            return;
        };
        let depth = (node.depth as usize).saturating_sub(self.base);
        self.node_contexts.truncate(depth);
        let parent = self.node_contexts.last().copied().unwrap_or(0);
        let function = self
            .rows
            .function_ids
            .get(node.func as usize)
            .copied()
            .unwrap_or(0);
        let context = ids::context_id(parent, function);
        self.node_contexts.push(context);
        let (_, entered) = self.rows.stacks.entry(tid).or_default();
        let seq = *entered;
        *entered += 1;
        let row = [tid, seq, 0, start, end - start, node.self_time].map(i64_of);
        self.rows
            .push([row[0], row[1], context, row[3], row[4], row[5]]);
    }
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};

    use super::*;
    use crate::ingest::EventKind;

    fn ev(kind: EventKind, func: FuncId, time: u64) -> Event {
        Event {
            time,
            func,
            thread: 0,
            kind,
        }
    }

    #[test]
    fn rows_leave_memory_in_row_groups_as_the_calls_end() {
        let mut funcs = FuncTable::default();
        let (main, f) = (funcs.name("main"), funcs.name("f"));
        let ids = vec![0i64; funcs.len()];
        let calls = 2 * BATCH as u64 + 5;
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let mut sink = CallsSink::new("r", &ids, &funcs, &[7], true, file.as_file_mut()).unwrap();
        sink.events(&[ev(EventKind::Enter, main, 0)]);
        for i in 0..calls {
            let t = 1 + 3 * i;
            sink.events(&[ev(EventKind::Enter, f, t), ev(EventKind::Exit, f, t + 2)]);
            if i == BATCH as u64 {
                // The first row group is on its way to the file already.
                assert!(sink.rows.out_len() > 0);
            }
        }
        sink.finish().unwrap(); // closes main at its thread's last time
        let reader = SerializedFileReader::new(file.reopen().unwrap()).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.file_metadata().num_rows() as u64, calls + 1);
        assert_eq!(meta.num_row_groups(), 3);
    }
}
