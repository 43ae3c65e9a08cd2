//! `calltrace export --to parquet` read by the real engines: the 19
//! printer patterns exported as a dataset, then queried with DuckDB (the
//! PyPI `duckdb` package) and Spark in local mode (PyPI `pyspark` and a
//! Java runtime) through `scripts/sql-run.py`. Their answers must equal
//! what calltrace's own commands say about the same traces: `graph --csv`,
//! `tree --view contexts`, `compare`'s features.csv and `diff --by context`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

fn traces() -> PathBuf {
    root().join("testdata/printer/traces")
}

fn printer() -> PathBuf {
    traces().join("printer")
}

/// The printer patterns: (name, trace).
fn patterns() -> Vec<(String, PathBuf)> {
    let mut v: Vec<_> = std::fs::read_dir(traces())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    v.sort();
    v
}

/// The printer dataset: one directory per pattern, exported once.
fn dataset() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = fresh_dir("parquet", "printer");
        for (name, trace) in patterns() {
            calltrace(["export".as_ref(), printer().as_os_str(), "--trace".as_ref()])
                .args([trace.as_os_str()])
                .args(["--to", "parquet", "-q", "-o"])
                .args([dir.join(&name)])
                .run()
                .success();
        }
        dir
    })
}

/// `python3` when it can import `module`. When it cannot, a note and None
/// (the test skips), unless `CALLTRACE_REQUIRE_TOOLS=1` makes it a failure.
#[track_caller]
fn python_with(module: &str) -> Option<PathBuf> {
    let py = tool("python3")?;
    let ok = Command::new(&py)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CALLTRACE_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "python module `{module}` is required (CALLTRACE_REQUIRE_TOOLS=1) but not installed"
        );
        eprintln!("skipped: python module `{module}` is not installed");
        return None;
    }
    Some(py)
}

/// Runs `recipes` on the dataset with `engine`; the CSV rows of each, by
/// recipe name (header first).
fn query(
    py: &Path,
    engine: &str,
    recipes: &[PathBuf],
    pair: (&str, &str),
) -> BTreeMap<String, Vec<Vec<String>>> {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(py);
    cmd.arg(root().join("scripts/sql-run.py"))
        .args(["--engine", engine, "--dataset"])
        .arg(dataset())
        .args(["--base", pair.0, "--new", pair.1, "--out"])
        .arg(out.path())
        .args(recipes);
    let done = output_within(&mut cmd, 900);
    assert!(
        done.status.success(),
        "sql-run.py --engine {engine} failed:\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    recipes
        .iter()
        .map(|r| {
            let name = r.file_stem().unwrap().to_string_lossy().into_owned();
            (
                name.clone(),
                read_csv(&out.path().join(format!("{name}.csv"))),
            )
        })
        .collect()
}

fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    r.records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect()
}

/// A query of the tests' own, written to a file named `name.sql`.
fn own(dir: &Path, name: &str, sql: &str) -> PathBuf {
    let path = dir.join(format!("{name}.sql"));
    std::fs::write(&path, sql).unwrap();
    path
}

fn recipe(name: &str) -> PathBuf {
    root().join("sql").join(format!("{name}.sql"))
}

/// Function names by id, over the whole dataset.
const NAMES: &str = "SELECT DISTINCT function_id, name FROM functions ORDER BY function_id";

fn names_by_id(rows: &[Vec<String>]) -> BTreeMap<String, String> {
    rows[1..]
        .iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

/// `a;b;c` of function ids as `name_a;name_b;name_c`.
fn named_path(ids: &str, names: &BTreeMap<String, String>) -> String {
    ids.split(';')
        .map(|id| names[id].as_str())
        .collect::<Vec<_>>()
        .join(";")
}

#[test]
fn duckdb_call_sums_per_function_equal_graph_csv() {
    let Some(py) = python_with("duckdb") else {
        return;
    };
    let q = tempfile::tempdir().unwrap();
    let sums = own(
        q.path(),
        "sums",
        "SELECT c.run_id, f.name, SUM(c.calls) AS calls FROM contexts c \
         JOIN (SELECT DISTINCT function_id, name FROM functions) f ON f.function_id = c.function_id \
         WHERE c.parent_id IS NOT NULL GROUP BY c.run_id, f.name ORDER BY c.run_id, f.name",
    );
    let got = query(&py, "duckdb", &[sums], ("", ""));
    let got: BTreeSet<_> = got["sums"][1..]
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect();
    let mut want = BTreeSet::new();
    for (name, trace) in patterns() {
        let csv = tempfile::tempdir().unwrap();
        let out = csv.path().join("g.csv");
        calltrace([
            "graph".as_ref(),
            printer().as_os_str(),
            "--trace".as_ref(),
            trace.as_os_str(),
        ])
        .args(["-q", "-o", "-", "--csv"])
        .args([&out])
        .run()
        .success();
        let mut per_callee: BTreeMap<String, u64> = BTreeMap::new();
        for row in &read_csv(&out)[1..] {
            *per_callee.entry(row[1].clone()).or_default() += row[2].parse::<u64>().unwrap();
        }
        want.extend(
            per_callee
                .into_iter()
                .map(|(f, n)| (name.clone(), f, n.to_string())),
        );
    }
    assert!(want.len() > 19 * 5, "the graphs have edges");
    assert_eq!(got, want);
}

/// One line of `tree --view contexts --time-unit ns`: (path, calls, self, total).
fn tree_rows(text: &str) -> Vec<(String, String, String, String)> {
    let mut stack: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        let depth = (line.len() - line.trim_start().len()) / 2;
        let (body, calls) = match line.trim_start().rsplit_once(' ') {
            Some((b, n)) if n.starts_with('x') && n[1..].parse::<u64>().is_ok() => {
                (b, n[1..].to_string())
            }
            _ => (line.trim_start(), "1".to_string()),
        };
        let (name, weights) = body.rsplit_once(" (").unwrap();
        let weights = weights.trim_end_matches(')').replace(" ns", "");
        let (self_ns, total_ns) = weights.split_once(" / ").unwrap();
        stack.truncate(depth);
        stack.push(name.to_string());
        rows.push((
            stack.join(";"),
            calls,
            self_ns.to_string(),
            total_ns.to_string(),
        ));
    }
    rows
}

#[test]
fn duckdb_context_rows_equal_tree_view_contexts() {
    let Some(py) = python_with("duckdb") else {
        return;
    };
    let q = tempfile::tempdir().unwrap();
    let rows = own(
        q.path(),
        "rows",
        "SELECT run_id, path, calls, self, total FROM contexts ORDER BY run_id, context_id",
    );
    let names = own(q.path(), "names", NAMES);
    let got = query(&py, "duckdb", &[rows, names], ("", ""));
    let names = names_by_id(&got["names"]);
    let mut by_run: BTreeMap<String, BTreeSet<_>> = BTreeMap::new();
    for r in &got["rows"][1..] {
        let row = (
            named_path(&r[1], &names),
            r[2].clone(),
            r[3].clone(),
            r[4].clone(),
        );
        by_run.entry(r[0].clone()).or_default().insert(row);
    }
    assert_eq!(by_run.len(), 19);
    for (name, trace) in patterns() {
        let text = tree(
            printer().to_str().unwrap(),
            &trace,
            &["--view", "contexts", "--time-unit", "ns", "-q"],
        );
        let want: BTreeSet<_> = tree_rows(&text).into_iter().collect();
        assert_eq!(by_run[&name], want, "{name}");
    }
}

#[test]
fn duckdb_features_recipe_equals_compare_features_csv() {
    let Some(py) = python_with("duckdb") else {
        return;
    };
    let got = query(&py, "duckdb", &[recipe("features")], ("", ""));
    let got: BTreeSet<_> = got["features"][1..]
        .iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    let out = tempfile::tempdir().unwrap();
    calltrace([
        "compare".as_ref(),
        printer().as_os_str(),
        traces().as_os_str(),
    ])
    .args(["-q", "--out-dir"])
    .args([out.path()])
    .run()
    .success();
    let want: BTreeSet<_> = read_csv(&out.path().join("features.csv"))[1..]
        .iter()
        .filter(|r| r[2] == "before")
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert!(want.len() > 5, "the printer patterns have features");
    assert_eq!(got, want);
}

/// `calltrace diff BASE NEW --by context`'s added and removed paths.
fn calltrace_diff(base: &str, new: &str) -> BTreeSet<(String, String)> {
    let out = tempfile::tempdir().unwrap();
    let csv = out.path().join("d.csv");
    let trace = |n: &str| traces().join(format!("{n}.trace"));
    calltrace([
        "diff".as_ref(),
        trace(base).as_os_str(),
        trace(new).as_os_str(),
    ])
    .args(["--search-path".as_ref(), traces().as_os_str()])
    .args(["--by", "context", "-q", "--csv"])
    .args([&csv])
    .run();
    let rows = read_csv(&csv);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (change, path) = (col("change"), col("path"));
    rows[1..]
        .iter()
        .filter(|r| r[change] == "added" || r[change] == "removed")
        .map(|r| (r[change].clone(), r[path].clone()))
        .collect()
}

#[test]
fn duckdb_diff_recipe_adds_and_removes_the_contexts_calltrace_diff_does() {
    let Some(py) = python_with("duckdb") else {
        return;
    };
    for (base, new) in [("copy", "fax"), ("mono-1page", "color-1page")] {
        // The recipe names the functions of each path itself.
        let got = query(&py, "duckdb", &[recipe("diff")], (base, new));
        let got: BTreeSet<_> = got["diff"][1..]
            .iter()
            .filter(|r| r[0] != "changed")
            .map(|r| (r[0].clone(), r[2].clone()))
            .collect();
        let want = calltrace_diff(base, new);
        assert!(want.iter().any(|(c, _)| c == "added"), "{base} -> {new}");
        assert_eq!(got, want, "{base} -> {new}");
    }
}

#[test]
fn spark_answers_every_recipe_as_duckdb_does() {
    let Some(py) = python_with("duckdb") else {
        return;
    };
    if python_with("pyspark").is_none() || tool("java").is_none() {
        return;
    }
    let recipes: Vec<_> = ["top_functions", "coverage", "features", "diff"]
        .map(recipe)
        .into();
    let duck = query(&py, "duckdb", &recipes, ("copy", "fax"));
    let spark = query(&py, "spark", &recipes, ("copy", "fax"));
    for (name, rows) in &duck {
        assert!(rows.len() > 2, "{name} has rows");
        assert_eq!(&spark[name], rows, "{name}");
    }
}

#[test]
fn parquet_needs_a_directory_and_never_writes_over_its_trace() {
    let out = calltrace(["export", "--trace"])
        .args([traces().join("copy.trace")])
        .args(["--to", "parquet", "-o", "-"])
        .run()
        .failure();
    assert!(out.contains("--to parquet writes a directory"), "{out}");
    // A trace named like one of the tables, in the output directory.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("contexts.parquet");
    std::fs::copy(traces().join("copy.trace"), &trace).unwrap();
    let out = calltrace(["export", "--trace"])
        .args([&trace])
        .args(["--to", "parquet", "-o"])
        .args([dir.path()])
        .run()
        .failure();
    assert!(out.contains("refusing to overwrite an input"), "{out}");
    assert_eq!(
        std::fs::read(&trace).unwrap(),
        std::fs::read(traces().join("copy.trace")).unwrap()
    );
}

#[test]
fn an_output_directory_that_is_a_file_is_an_error_naming_it() {
    let (_d, file) = temp_file("taken", "not a directory\n");
    let out = calltrace(["export", "--trace"])
        .args([traces().join("copy.trace")])
        .args(["--to", "parquet", "-o"])
        .args([&file])
        .run()
        .failure();
    assert!(out.contains(&file.display().to_string()), "{out}");
}

/// Rows of a Parquet file as maps from column to value (Int64 and Utf8
/// columns), read with the parquet crate.
fn parquet_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_schema::DataType;
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        for i in 0..batch.num_rows() {
            let mut row = BTreeMap::new();
            for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
                let v = match field.data_type() {
                    DataType::Int64 if col.is_valid(i) => {
                        col.as_primitive::<Int64Type>().value(i).to_string()
                    }
                    DataType::Utf8 if col.is_valid(i) => {
                        col.as_string::<i32>().value(i).to_string()
                    }
                    _ => continue,
                };
                row.insert(field.name().clone(), v);
            }
            rows.push(row);
        }
    }
    rows
}

/// Two threads, recursion, and a call left open at the end.
const THREADED: &str = "E main 0 1\nE f 1 1\nE f 2 1\nX f 5 1\nX f 9 1\nE work 3 2\nE f 4 2\nX f 6 2\nX work 8 2\nE g 10 1\nX g 12 1\nE f 13 1\nX f 20 1\nX main 30 1\nE work 31 2\nE g 32 2\n";

#[test]
fn view_calls_adds_a_call_table_that_sums_to_the_contexts() {
    let (dir, trace) = temp_file("threads.trace", THREADED);
    let out = dir.path().join("run");
    calltrace(["export", "--trace"])
        .args([&trace])
        .args(["--to", "parquet", "--view", "calls", "-q", "-o"])
        .args([&out])
        .run()
        .success();
    let calls = parquet_rows(&out.join("calls.parquet"));
    assert_eq!(calls.len(), 9, "every call is a row");
    let mut sums: BTreeMap<(String, String), [i64; 3]> = BTreeMap::new();
    for c in &calls {
        assert_eq!(c["run_id"], "run", "the -o directory's name");
        let s = sums
            .entry((c["thread"].clone(), c["context_id"].clone()))
            .or_default();
        s[0] += 1;
        s[1] += c["self"].parse::<i64>().unwrap();
        s[2] += c["duration"].parse::<i64>().unwrap();
    }
    let contexts = parquet_rows(&out.join("contexts.parquet"));
    let want: BTreeMap<_, _> = contexts
        .iter()
        .map(|c| {
            let n = |k: &str| c[k].parse::<i64>().unwrap();
            (
                (c["thread"].clone(), c["context_id"].clone()),
                [n("calls"), n("self"), n("total")],
            )
        })
        .collect();
    assert_eq!(sums, want);
    // (thread, seq) names each call once; seq counts a thread's entries.
    let mut keys: Vec<_> = calls
        .iter()
        .map(|c| (c["thread"].clone(), c["seq"].parse::<u64>().unwrap()))
        .collect();
    keys.sort();
    let thread1: Vec<_> = keys.iter().filter(|k| k.0 == "1").map(|k| k.1).collect();
    assert_eq!(thread1, [0, 1, 2, 3, 4]);
}

#[test]
fn an_export_without_view_calls_leaves_no_call_table_of_an_earlier_one() {
    let (dir, trace) = temp_file("threads.trace", THREADED);
    let out = dir.path().join("run");
    let export = |extra: &[&str]| {
        calltrace(["export", "--trace"])
            .args([&trace])
            .args(["--to", "parquet", "-q", "-o"])
            .args([&out])
            .args(extra)
            .run()
            .success();
    };
    export(&["--view", "calls"]);
    assert!(out.join("calls.parquet").exists());
    export(&[]);
    assert_eq!(
        listing(&out),
        ["contexts.parquet", "functions.parquet", "runs.parquet"]
    );
}

#[test]
fn cpp_functions_keep_their_linkage_name_beside_the_shown_one() {
    let program = cpp();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let export = |demangle: &str| {
        calltrace([
            "export".as_ref(),
            program.exe.as_os_str(),
            "--trace".as_ref(),
        ])
        .args([&program.text_trace().path])
        .args(["--to", "parquet", "-q", "--demangle", demangle, "-o"])
        .args([&out])
        .run()
        .success();
        parquet_rows(&out.join("functions.parquet"))
    };
    let full = export("full");
    let mangled: Vec<_> = full
        .iter()
        .filter(|f| f["linkage_name"].starts_with("_Z"))
        .collect();
    assert!(!mangled.is_empty(), "C++ functions have mangled names");
    for f in &mangled {
        assert_ne!(f["name"], f["linkage_name"]);
        assert!(f["name"].contains('('), "{}", f["name"]);
    }
    // The shown names change with --demangle, the ids do not.
    let ids = |rows: &[BTreeMap<String, String>]| -> BTreeMap<String, String> {
        rows.iter()
            .map(|f| (f["linkage_name"].clone(), f["function_id"].clone()))
            .collect()
    };
    let none = export("none");
    assert!(none.iter().all(|f| f["name"] == f["linkage_name"]));
    assert_eq!(ids(&full), ids(&none));
}
