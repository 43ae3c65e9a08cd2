//! `contexts.parquet`: one row per calling context per thread, in
//! preorder, with the context's whole path (function ids root to leaf).
//! The paths of a deep recursion hold frames in the square of its depth,
//! so rows go out in row groups of at most [`ROWS`] rows or [`FRAMES`]
//! path frames: memory holds the open path and one row group, never the
//! table ([`super::super::MAX_FRAMES`] bounds the file).

use std::io::{self, Write};
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use super::{Exported, Run, Tables, i64_of, write_batches};
use crate::calltree::NodeId;
use crate::ingest::FuncKey;

/// Rows per row group, at most.
const ROWS: usize = 1 << 16;
/// Path frames per row group, at most (one row may pass it alone).
const FRAMES: usize = 1 << 22;

/// The columns of `contexts.parquet`.
fn schema() -> Arc<Schema> {
    let int = |n: &str, nullable| Field::new(n, DataType::Int64, nullable);
    let element = Arc::new(Field::new("element", DataType::Int64, false));
    Arc::new(Schema::new(vec![
        Field::new("run_id", DataType::Utf8, false),
        int("context_id", false),
        int("parent_id", true),
        int("depth", false),
        int("thread", false),
        int("function_id", false),
        int("calls", false),
        int("self", false),
        int("total", false),
        Field::new("path", DataType::List(element), false),
    ]))
}

/// Writes `contexts.parquet` of `t` to `out`.
pub(super) fn write(
    out: &mut dyn Write,
    t: &Exported<'_>,
    run: &Run<'_>,
    tables: &Tables,
) -> io::Result<()> {
    write_batches(out, schema(), Batches::new(t, run, tables))
}

/// The contexts' row groups, made as they are written.
struct Batches<'a, 't> {
    t: &'a Exported<'t>,
    run: &'a Run<'t>,
    tables: &'a Tables,
    parents: Vec<NodeId>,
    /// The thread each node is on (set by thread nodes).
    thread_of: Vec<i64>,
    /// The next node to look at.
    next: usize,
    /// The open calling context: its nodes, ids and function ids, root first.
    open: Vec<(NodeId, i64, i64)>,
    rows: Rows,
}

/// The columns of the rows gathered for one row group.
#[derive(Default)]
struct Rows {
    /// context_id, parent_id, depth, thread, function_id, calls, self, total.
    ints: [Int64Builder; 8],
    paths: Option<ListBuilder<Int64Builder>>,
    len: usize,
    frames: usize,
}

impl<'a, 't> Batches<'a, 't> {
    fn new(t: &'a Exported<'t>, run: &'a Run<'t>, tables: &'a Tables) -> Self {
        let first_thread = run.meta.threads.first().copied().unwrap_or(0);
        Batches {
            t,
            run,
            tables,
            parents: t.tree.parents(),
            thread_of: vec![i64_of(first_thread); t.tree.len()],
            next: 1,
            open: Vec::new(),
            rows: Rows::default(),
        }
    }

    /// Adds node `n`'s row, if it is a calling context (thread nodes are
    /// not: their children are the roots of their thread).
    fn add(&mut self, n: NodeId) {
        let (tree, parent) = (self.t.tree, self.parents[n as usize]);
        self.thread_of[n as usize] = self.thread_of[parent as usize];
        let f = tree.func(n);
        if let FuncKey::Thread(tid) = self.t.funcs.key(f) {
            self.thread_of[n as usize] = i64_of(*tid);
            return;
        }
        let Some(function) = self.tables.function_ids[f as usize] else {
            return;
        };
        // The open path down to the parent (none when the parent is a
        // thread node or the root).
        while self.open.last().is_some_and(|&(node, _, _)| node != parent) {
            self.open.pop();
        }
        let parent_id = self.open.last().map(|&(_, id, _)| id);
        let id = super::ids::context_id(parent_id.unwrap_or(0), function);
        self.open.push((n, id, function));
        let values = [
            Some(id),
            parent_id,
            Some(self.open.len() as i64),
            Some(self.thread_of[n as usize]),
            Some(function),
            Some(i64_of(tree.calls(n))),
            Some(i64_of(tree.self_time(n))),
            Some(i64_of(tree.total(n))),
        ];
        for (column, v) in self.rows.ints.iter_mut().zip(values) {
            column.append_option(v);
        }
        let paths = self.rows.paths.get_or_insert_with(paths);
        paths
            .values()
            .extend(self.open.iter().map(|&(_, _, f)| Some(f)));
        paths.append(true);
        self.rows.len += 1;
        self.rows.frames += self.open.len();
    }

    /// The rows gathered as a batch, and a fresh start.
    fn batch(&mut self) -> RecordBatch {
        let mut rows = std::mem::take(&mut self.rows);
        let mut run = StringBuilder::new();
        (0..rows.len).for_each(|_| run.append_value(self.run.id));
        let mut columns: Vec<ArrayRef> = vec![Arc::new(run.finish())];
        columns.extend(
            rows.ints
                .iter_mut()
                .map(|c| Arc::new(c.finish()) as ArrayRef),
        );
        let mut paths = rows.paths.take().unwrap_or_else(paths);
        columns.push(Arc::new(paths.finish()));
        RecordBatch::try_new(schema(), columns).expect("columns match the schema")
    }
}

/// A builder for the `path` column.
fn paths() -> ListBuilder<Int64Builder> {
    ListBuilder::new(Int64Builder::new()).with_field(Arc::new(Field::new(
        "element",
        DataType::Int64,
        false,
    )))
}

impl Iterator for Batches<'_, '_> {
    type Item = RecordBatch;

    fn next(&mut self) -> Option<RecordBatch> {
        let len = self.t.tree.len();
        if self.next > len {
            return None;
        }
        while self.next < len && self.rows.len < ROWS && self.rows.frames < FRAMES {
            self.add(self.next as NodeId);
            self.next += 1;
        }
        if self.next == len {
            // The last batch; an empty tree's still gives the file its schema.
            self.next += 1;
        }
        Some(self.batch())
    }
}
