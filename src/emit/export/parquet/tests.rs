//! The Parquet tables read back with the parquet crate's own reader.

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::reader::{FileReader, SerializedFileReader};

use super::*;
use crate::calltree::View;
use crate::emit::export::testing::{TRACE, built};
use crate::ingest::TraceMeta;

/// Exports `text` (contexts view) as run `id` into `dir`.
fn export(text: &str, id: &str, dir: &Path) {
    let (b, names) = built(text, View::Contexts);
    let t = crate::emit::export::testing::exported(&b, &names, "t.trace");
    let meta = TraceMeta::default();
    let run = Run {
        id,
        meta: &meta,
        linkage: &[],
        build_id: Some("abc"),
        replay: None,
    };
    Parquet.write_dir(&t, &run, dir).unwrap();
}

fn read(path: &Path) -> RecordBatch {
    let file = File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.map(Result::unwrap).collect();
    arrow_select_concat(&batches)
}

/// The one batch of a small file.
fn arrow_select_concat(batches: &[RecordBatch]) -> RecordBatch {
    assert_eq!(batches.len(), 1, "a small table is one batch");
    batches[0].clone()
}

fn int(b: &RecordBatch, col: &str) -> Vec<Option<i64>> {
    let a = b.column_by_name(col).unwrap().as_primitive::<Int64Type>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i)))
        .collect()
}

fn string(b: &RecordBatch, col: &str) -> Vec<String> {
    let a = b.column_by_name(col).unwrap().as_string::<i32>();
    (0..a.len()).map(|i| a.value(i).to_string()).collect()
}

#[test]
fn the_three_tables_have_the_contract_columns_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    export(TRACE, "t", dir.path());
    let runs = read(&dir.path().join("runs.parquet"));
    let names: Vec<_> = runs
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(
        names,
        [
            "run_id",
            "program",
            "build_id",
            "unit",
            "events",
            "total",
            "threads",
            "schema_version",
            "calltrace_version"
        ]
    );
    assert_eq!(string(&runs, "run_id"), ["t"]);
    assert_eq!(string(&runs, "unit"), ["ns"]);
    assert_eq!(int(&runs, "total"), [Some(40)]);
    assert_eq!(int(&runs, "events"), [Some(12)]);
    assert_eq!(int(&runs, "schema_version"), [Some(1)]);

    let funcs = read(&dir.path().join("functions.parquet"));
    assert_eq!(string(&funcs, "name"), ["main", "f", "g"]);
    assert_eq!(string(&funcs, "linkage_name"), ["main", "f", "g"]);

    let c = read(&dir.path().join("contexts.parquet"));
    // main, main;f, main;f;g, main;g
    assert_eq!(int(&c, "depth"), [Some(1), Some(2), Some(3), Some(2)]);
    assert_eq!(int(&c, "calls"), [Some(1), Some(2), Some(2), Some(1)]);
    assert_eq!(int(&c, "total"), [Some(40), Some(18), Some(4), Some(3)]);
    assert_eq!(int(&c, "self"), [Some(19), Some(14), Some(4), Some(3)]);
    let ids = int(&c, "context_id");
    assert_eq!(int(&c, "parent_id"), [None, ids[0], ids[1], ids[0]]);
}

#[test]
fn paths_run_from_the_root_to_the_context_and_end_at_its_function() {
    let dir = tempfile::tempdir().unwrap();
    export(TRACE, "t", dir.path());
    let c = read(&dir.path().join("contexts.parquet"));
    let f = read(&dir.path().join("functions.parquet"));
    let fids = int(&f, "function_id");
    let paths = c.column_by_name("path").unwrap().as_list::<i32>();
    let path = |i: usize| -> Vec<Option<i64>> {
        let v = paths.value(i);
        let v = v.as_primitive::<Int64Type>();
        (0..v.len()).map(|j| Some(v.value(j))).collect()
    };
    assert_eq!(path(2), [fids[0], fids[1], fids[2]]);
    assert_eq!(path(3), [fids[0], fids[2]]);
    assert_eq!(int(&c, "function_id")[3], fids[2]);
}

#[test]
fn integers_are_signed_64_bit_strings_dictionary_encoded_and_all_zstd_compressed() {
    let dir = tempfile::tempdir().unwrap();
    export(TRACE, "t", dir.path());
    for name in Parquet.files() {
        let path = dir.path().join(name);
        if !path.exists() {
            continue; // calls.parquet: --view calls only
        }
        for field in read(&path).schema().fields() {
            let ok = matches!(field.data_type(), DataType::Int64 | DataType::Utf8)
                || matches!(field.data_type(), DataType::List(e) if e.data_type() == &DataType::Int64);
            assert!(ok, "{name}: {} is {}", field.name(), field.data_type());
        }
        let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        for rg in reader.metadata().row_groups() {
            for col in rg.columns() {
                assert!(matches!(col.compression(), Compression::ZSTD(_)), "{name}");
                if col.column_type() == parquet::basic::Type::BYTE_ARRAY {
                    let dict = col
                        .encodings()
                        .any(|e| e == parquet::basic::Encoding::RLE_DICTIONARY);
                    assert!(dict, "{name}: {} is dictionary-encoded", col.column_path());
                }
            }
        }
    }
}

#[test]
fn the_same_function_and_path_get_the_same_ids_in_runs_exported_separately() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    export(TRACE, "one", a.path());
    // Another run meeting g first: other function table order, other tree.
    export(
        "E g 0\nX g 1\nE main 2\nE f 3\nE g 4\nX g 5\nX f 6\nX main 9\n",
        "two",
        b.path(),
    );
    let ids = |dir: &Path| {
        let f = read(&dir.join("functions.parquet"));
        let mut v: Vec<_> = string(&f, "name")
            .into_iter()
            .zip(int(&f, "function_id"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids(a.path()), ids(b.path()));
    let contexts = |dir: &Path| {
        let c = read(&dir.join("contexts.parquet"));
        int(&c, "context_id")
    };
    let (one, two) = (contexts(a.path()), contexts(b.path()));
    // main;f;g is the third context of one and the fourth of two.
    assert_eq!(one[2], two[3]);
    assert_ne!(one[0], two[0]);
    assert_eq!(
        string(&read(&b.path().join("contexts.parquet")), "run_id")[0],
        "two"
    );
}
