//! The dataset a run is exported into: in the documented layout
//! (`DATASET/RUN/`, one directory per run) the other runs are the
//! directories beside `-o DIR`. Two runs with one `run_id` mix their rows
//! in every query (`sql/diff.sql` answered with its header only), so the
//! export warns when a run beside it has its id. Files that cannot be
//! read are not this export's business and are passed over.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::Array;
use arrow_array::cast::AsArray;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// The warning about the runs beside `dir` whose `runs.parquet` has the
/// run id `id`, if any.
pub(super) fn shared_id_warning(dir: &Path, id: &str) -> Option<String> {
    let others = runs_with_id(dir, id);
    let first = others.first()?;
    Some(format!(
        "{} has run id `{id}` too{}: the dataset's queries mix the rows of runs that share an id; give each run its own -o directory (its name is the run id) or --run-id",
        first.display(),
        match others.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        }
    ))
}

/// The directories beside `dir` holding a run whose id is `id`, sorted.
fn runs_with_id(dir: &Path, id: &str) -> Vec<PathBuf> {
    let Ok(dir) = dir.canonicalize() else {
        return Vec::new();
    };
    let Some(Ok(entries)) = dir.parent().map(std::fs::read_dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| *p != dir && p.is_dir())
        .filter(|p| run_id_of(&p.join("runs.parquet")).as_deref() == Some(id))
        .collect();
    found.sort();
    found
}

/// The `run_id` of a `runs.parquet`, when it reads as one.
fn run_id_of(path: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).ok()?;
    let column = builder
        .parquet_schema()
        .columns()
        .iter()
        .position(|c| c.name() == "run_id")?;
    let mask = ProjectionMask::leaves(builder.parquet_schema(), [column]);
    let batch = builder.with_projection(mask).build().ok()?.next()?.ok()?;
    let ids = batch.column(0).as_string_opt::<i32>()?;
    (!ids.is_empty() && ids.is_valid(0)).then(|| ids.value(0).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_beside_with_the_same_id_is_found_and_others_are_not() {
        let ds = tempfile::tempdir().unwrap();
        for (dir, id) in [("a", "r2"), ("b", "r2"), ("c", "c")] {
            let (b, names) = crate::emit::export::testing::built(
                crate::emit::export::testing::TRACE,
                crate::calltree::View::Contexts,
            );
            let t = crate::emit::export::testing::exported(&b, &names, "t");
            let run = super::super::Run {
                id,
                meta: &b.meta,
                linkage: &[],
                build_id: None,
                replay: None,
            };
            use super::super::DatasetExporter;
            super::super::Parquet
                .write_dir(&t, &run, &ds.path().join(dir))
                .unwrap();
        }
        std::fs::create_dir(ds.path().join("empty")).unwrap();
        std::fs::write(ds.path().join("empty/runs.parquet"), "not parquet").unwrap();
        let a = ds.path().join("a");
        assert_eq!(
            runs_with_id(&a, "r2"),
            [ds.path().join("b").canonicalize().unwrap()]
        );
        assert!(runs_with_id(&a, "a").is_empty());
        let w = shared_id_warning(&a, "r2").unwrap();
        assert!(w.contains("has run id `r2` too"), "{w}");
        assert!(shared_id_warning(&ds.path().join("c"), "c").is_none());
    }
}
