//! `calltrace export --to parquet -o DIR`: one run as a directory of
//! Parquet tables, for DuckDB and Spark to query a whole dataset of runs
//! (`sql/` holds the recipes, `docs/scale.md` the contract and the
//! map/reduce steps). `runs.parquet` has one row about the run,
//! `functions.parquet` one per function, `contexts.parquet` one per
//! calling context per thread.
//!
//! Every integer is signed 64-bit, times are in the run's `unit`, strings
//! are dictionary-encoded and every file is zstd-compressed. Function and
//! context ids are stable hashes ([`ids`]), so the same function or path
//! has the same id in every run. Each file is staged beside its target and
//! renamed into place only when all of them were written.

mod calls;
mod contexts;
mod dataset;
mod ids;

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::{DatasetExporter, Exported, Exporter, Run};
use crate::calltree::NodeId;
use crate::emit::output::{Staged, stage_with};
use crate::error::{Error, Result};
use crate::ingest::{FuncId, FuncKey};

/// `schema_version` of the files written: raised when a column changes
/// meaning; new columns are added by name and keep it.
pub(super) const SCHEMA_VERSION: i64 = 1;

/// The Parquet dataset exporter.
pub(super) struct Parquet;

impl Exporter for Parquet {
    fn name(&self) -> &'static str {
        "parquet"
    }
    fn about(&self) -> &'static str {
        "Parquet tables of runs, functions and calling contexts in directory -o DIR (DuckDB, Spark)"
    }
}

impl DatasetExporter for Parquet {
    fn files(&self) -> &'static [&'static str] {
        &[
            "runs.parquet",
            "functions.parquet",
            "contexts.parquet",
            CALLS,
        ]
    }
    fn check(&self, t: &Exported<'_>) -> Result<Option<String>> {
        super::check_frames(t, "the contexts' path column")?;
        Ok(None)
    }
    fn write_dir(&self, t: &Exported<'_>, run: &Run<'_>, dir: &Path) -> Result<Vec<String>> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        for name in self.files() {
            check_replaceable(&dir.join(name))?;
        }
        let tables = Tables::new(t, run);
        let mut staged = vec![
            stage(dir, "runs.parquet", runs(t, run))?,
            stage(dir, "functions.parquet", functions(t, run, &tables))?,
            stage_with(&dir.join("contexts.parquet"), |out| {
                contexts::write(out, t, run, &tables)
            })?,
        ];
        match run.replay {
            Some(replay) => staged.push(stage_calls(t, run, dir, replay)?),
            // Calls of an earlier export would not be this run's.
            None => remove_stale(&dir.join(CALLS))?,
        }
        staged.into_iter().try_for_each(Staged::commit)?;
        Ok(dataset::shared_id_warning(dir, run.id)
            .into_iter()
            .collect())
    }
}

/// The file of `--view calls`.
const CALLS: &str = "calls.parquet";

/// Writes `calls.parquet` to a temporary file from a second pass over the
/// trace's events.
fn stage_calls(
    t: &Exported<'_>,
    run: &Run<'_>,
    dir: &Path,
    replay: &super::Replay<'_>,
) -> Result<Staged> {
    let function_ids: Vec<i64> = (0..t.funcs.len() as FuncId)
        .map(|f| ids::function_id(linkage(t, run, f), t.names[f as usize].file.as_deref()))
        .collect();
    let (threads, timed) = (&run.meta.threads, run.meta.timed);
    let mut failed = None;
    stage_with(&dir.join(CALLS), |out| {
        let mut sink = calls::CallsSink::new(run.id, &function_ids, t.funcs, threads, timed, out)?;
        if let Err(e) = replay(&mut sink) {
            failed = Some(e);
            return Err(io::Error::other("the trace changed while it was read"));
        }
        sink.finish()
    })
    .map_err(|e| failed.take().unwrap_or(e))
}

/// Refuses a dataset file that cannot simply be replaced: one the run
/// read (the program may be named `calls.parquet`: removing a stale call
/// table must not delete it), or one that is not a regular file. A symlink
/// would otherwise be written through, replacing a file outside the
/// dataset; a FIFO or device would be written in place.
fn check_replaceable(path: &Path) -> Result<()> {
    if let Some(input) = crate::ingest::opened::input_at(path) {
        return Err(Error::Input(format!(
            "{} is the same file as the input {}; refusing to overwrite an input",
            path.display(),
            input.display()
        )));
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => Err(Error::Input(format!(
            "{}: is {}, not a regular file; a dataset's files are replaced, never written through: remove it or choose another -o DIR",
            path.display(),
            match m.file_type().is_symlink() {
                true => "a symbolic link",
                false => "not a plain file",
            }
        ))),
        _ => Ok(()),
    }
}

/// Removes `path` if it exists (checked by [`check_replaceable`]).
fn remove_stale(path: &Path) -> Result<()> {
    check_replaceable(path)?;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// Writes `batch` to a temporary file beside `dir/name`.
fn stage(dir: &Path, name: &str, batch: RecordBatch) -> Result<Staged> {
    stage_with(&dir.join(name), |out| {
        write_batches(out, batch.schema(), [batch])
    })
}

/// Writer settings: zstd, dictionary-encoded columns.
fn properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_dictionary_enabled(true)
        .build()
}

/// Writes `batches` as one Parquet file to `out`. The Parquet writer wants
/// a `Send` sink: it writes into a buffer that is moved to `out` after
/// every batch, so memory holds one row group, not the file.
pub(crate) fn write_batches(
    out: &mut dyn Write,
    schema: Arc<Schema>,
    batches: impl IntoIterator<Item = RecordBatch>,
) -> io::Result<()> {
    let mut w = ArrowWriter::try_new(Vec::new(), schema, Some(properties())).map_err(io_err)?;
    for b in batches {
        w.write(&b).map_err(io_err)?;
        w.flush().map_err(io_err)?;
        out.write_all(&std::mem::take(w.inner_mut()))?;
    }
    let rest = w.into_inner().map_err(io_err)?;
    out.write_all(&rest)?;
    out.flush()
}

fn io_err(e: parquet::errors::ParquetError) -> io::Error {
    io::Error::other(e)
}

/// Ids computed once for all tables.
struct Tables {
    /// The stable id of every function, by function id; None for synthetic ones.
    function_ids: Vec<Option<i64>>,
    /// The functions in order of first appearance in the tree.
    order: Vec<FuncId>,
}

impl Tables {
    fn new(t: &Exported<'_>, run: &Run<'_>) -> Tables {
        let mut function_ids = vec![None; t.funcs.len()];
        let mut order = Vec::new();
        for n in 1..t.tree.len() as NodeId {
            let f = t.tree.func(n);
            if t.funcs.is_synthetic(f) || function_ids[f as usize].is_some() {
                continue;
            }
            let info = &t.names[f as usize];
            let id = ids::function_id(linkage(t, run, f), info.file.as_deref());
            function_ids[f as usize] = Some(id);
            order.push(f);
        }
        Tables {
            function_ids,
            order,
        }
    }
}

/// The linkage (mangled) name of `f`: its name under `--demangle none`.
fn linkage<'a>(t: &'a Exported<'_>, run: &'a Run<'_>, f: FuncId) -> &'a str {
    let info = run.linkage.get(f as usize).unwrap_or(&t.names[f as usize]);
    &info.name
}

fn field(name: &str, ty: DataType, nullable: bool) -> Field {
    Field::new(name, ty, nullable)
}

fn batch(columns: Vec<(Field, ArrayRef)>) -> RecordBatch {
    let (fields, arrays): (Vec<_>, Vec<_>) = columns.into_iter().unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).expect("columns match their fields")
}

fn strings<S: AsRef<str>>(values: impl IntoIterator<Item = Option<S>>) -> ArrayRef {
    let mut b = StringBuilder::new();
    values.into_iter().for_each(|v| b.append_option(v));
    Arc::new(b.finish())
}

fn ints(values: impl IntoIterator<Item = Option<i64>>) -> ArrayRef {
    let mut b = Int64Builder::new();
    values.into_iter().for_each(|v| b.append_option(v));
    Arc::new(b.finish())
}

/// A count or time as a signed 64-bit value (saturating, never wrapping).
fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// `runs.parquet`: one row.
fn runs(t: &Exported<'_>, run: &Run<'_>) -> RecordBatch {
    let (tree, utf8, int) = (t.tree, DataType::Utf8, DataType::Int64);
    let calls: u64 = (1..tree.len() as NodeId)
        .filter(|&n| !t.funcs.is_synthetic(tree.func(n)))
        .map(|n| tree.calls(n))
        .sum();
    let threads = t
        .funcs
        .keys()
        .iter()
        .filter(|k| matches!(k, FuncKey::Thread(_)))
        .count()
        .max(1);
    batch(vec![
        (
            field("run_id", utf8.clone(), false),
            strings([Some(run.id)]),
        ),
        (
            field("program", utf8.clone(), false),
            strings([Some(t.command)]),
        ),
        (
            field("build_id", utf8.clone(), true),
            strings([run.build_id]),
        ),
        (
            field("unit", utf8.clone(), false),
            strings([Some(tree.unit.suffix())]),
        ),
        (
            field("events", int.clone(), false),
            ints([Some(i64_of(2 * calls))]),
        ),
        (
            field("total", int.clone(), false),
            ints([Some(i64_of(tree.total(0)))]),
        ),
        (
            field("threads", int.clone(), false),
            ints([Some(threads as i64)]),
        ),
        (
            field("schema_version", int.clone(), false),
            ints([Some(SCHEMA_VERSION)]),
        ),
        (
            field("calltrace_version", utf8, false),
            strings([Some(env!("CARGO_PKG_VERSION"))]),
        ),
    ])
}

/// `functions.parquet`: one row per function of the tree.
fn functions(t: &Exported<'_>, run: &Run<'_>, tables: &Tables) -> RecordBatch {
    let (utf8, int) = (DataType::Utf8, DataType::Int64);
    let mut seen = std::collections::HashSet::new();
    let rows: Vec<FuncId> = tables
        .order
        .iter()
        .copied()
        .filter(|&f| seen.insert(tables.function_ids[f as usize]))
        .collect();
    let info = |f: FuncId| &t.names[f as usize];
    let object = |f: FuncId| object_of(t, run, f);
    batch(vec![
        (
            field("function_id", int.clone(), false),
            ints(rows.iter().map(|&f| tables.function_ids[f as usize])),
        ),
        (
            field("name", utf8.clone(), false),
            strings(rows.iter().map(|&f| Some(&info(f).name))),
        ),
        (
            field("linkage_name", utf8.clone(), false),
            strings(rows.iter().map(|&f| Some(linkage(t, run, f)))),
        ),
        (
            field("file", utf8.clone(), true),
            strings(rows.iter().map(|&f| info(f).file.as_deref())),
        ),
        (
            field("line", int, true),
            ints(rows.iter().map(|&f| info(f).line.map(i64::from))),
        ),
        (
            field("module", utf8.clone(), true),
            strings(rows.iter().map(|&f| module_of(info(f).file.as_deref()))),
        ),
        (
            field("object", utf8.clone(), true),
            strings(rows.iter().map(|&f| object(f))),
        ),
        (
            field("build_id", utf8, true),
            strings(rows.iter().map(|&f| build_id_of(t, run, f))),
        ),
    ])
}

/// A function's module: the directory of its source file.
fn module_of(file: Option<&str>) -> Option<&str> {
    file.and_then(|f| f.rsplit_once('/')).map(|(dir, _)| dir)
}

/// The mapping holding `f`'s address, if the trace recorded mappings.
fn mapping_of<'a>(
    run: &'a Run<'_>,
    t: &Exported<'_>,
    f: FuncId,
) -> Option<&'a crate::ingest::Mapping> {
    let FuncKey::Addr(addr) = t.funcs.key(f) else {
        return None;
    };
    run.meta
        .maps
        .iter()
        .rev()
        .find(|m| (m.start..m.end).contains(addr))
}

/// The object (executable or library) `f` is in: its mapping's path, else
/// the program for an address trace without mappings; None for names.
fn object_of<'a>(t: &'a Exported<'_>, run: &'a Run<'_>, f: FuncId) -> Option<&'a str> {
    match mapping_of(run, t, f) {
        Some(m) => Some(&m.path),
        None => matches!(t.funcs.key(f), FuncKey::Addr(_)).then_some(t.command),
    }
}

/// The build-id of the object `f` is in, when known.
fn build_id_of<'a>(t: &'a Exported<'_>, run: &'a Run<'_>, f: FuncId) -> Option<&'a str> {
    match mapping_of(run, t, f) {
        Some(m) => m.build_id.as_deref(),
        None => matches!(t.funcs.key(f), FuncKey::Addr(_))
            .then_some(run.build_id)
            .flatten(),
    }
}

#[cfg(test)]
mod tests;
