//! `coverage` names functions as every other output does, says where they
//! are without 150 columns of path, and a gate that measured nothing
//! fails. The program: `helper.h` defines `static int helper(void)`, and
//! `a.c` and `b.c` both include it (two copies with one name, one file and
//! one line, as xz's `mf_ptr` in `lz_encoder.h`); only `a.c`'s copy runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

struct Built {
    dir: PathBuf,
    exe: PathBuf,
    trace: PathBuf,
}

fn built() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| {
        let dir = fresh_dir("coverage_names", "helpers");
        let files = [
            ("helper.h", "static int helper(void) { return 1; }\n"),
            (
                "a.c",
                "#include \"helper.h\"\nint a_entry(void) { return helper(); }\n",
            ),
            (
                "b.c",
                "#include \"helper.h\"\nint b_entry(int x) { return x ? helper() : 0; }\n",
            ),
            (
                "main.c",
                "int a_entry(void);\nint b_entry(int);\nint main(void) { return a_entry() + b_entry(0) - 1; }\n",
            ),
        ];
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let exe = dir.join("prog");
        compile(
            Command::new("gcc")
                .current_dir(&dir)
                .args(["-g", "-O0", "-finstrument-functions", "main.c", "a.c", "b.c"])
                .arg(root().join("runtime/calltrace.c"))
                .arg("-o")
                .arg(&exe),
        );
        let trace = dir.join("trace.txt");
        let out = output_within(Command::new(&exe).env("CALLTRACE_OUT", &trace), 60);
        assert!(out.status.success());
        Built { dir, exe, trace }
    })
}

fn coverage<S: AsRef<std::ffi::OsStr>>(b: &Built, exe: &Path, extra: &[S]) -> Output {
    calltrace(["coverage".as_ref(), exe.as_os_str()])
        .args(["--trace".as_ref(), b.trace.as_os_str()])
        .args(extra)
        .run()
}

/// Each CSV's `function` column and, per function, its other cells.
fn by_function(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().clone();
    let mut out = BTreeMap::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        let row: BTreeMap<String, String> = header
            .iter()
            .map(String::from)
            .zip(rec.iter().map(String::from))
            .collect();
        assert!(
            out.insert(row["function"].clone(), row).is_none(),
            "one row per name in {}",
            path.display()
        );
    }
    out
}

/// Regression (issue 39): the copies of a header's static function got
/// one name, `helper`, in the CSV, the matrix and the lcov file, while
/// `tree` and every other output said `helper [a.c]` and `helper [b.c]`;
/// genhtml merged them, and the never-called copy disappeared from its
/// count (4 of 4 functions instead of 4 of 5).
#[test]
fn same_named_statics_keep_the_names_every_other_output_gives_them() {
    let b = built();
    let tree = tree(b.exe.to_str().unwrap(), &b.trace, &[]);
    assert!(tree.contains("helper [a.c]"), "{tree}");
    let (csv, matrix, lcov) = (
        b.dir.join("c.csv"),
        b.dir.join("m.csv"),
        b.dir.join("l.info"),
    );
    let outputs = [
        "--csv".as_ref(),
        csv.as_os_str(),
        "--matrix".as_ref(),
        matrix.as_os_str(),
        "--lcov".as_ref(),
        lcov.as_os_str(),
    ];
    coverage(b, &b.exe, &outputs).success();
    let rows = by_function(&csv);
    assert_eq!(rows["helper [a.c]"]["status"], "called");
    assert_eq!(rows["helper [b.c]"]["status"], "never called");
    let matrix = by_function(&matrix);
    assert_eq!(matrix["helper [a.c]"]["trace"], "1");
    assert_eq!(matrix["helper [b.c]"]["trace"], "0");
    let lcov_text = std::fs::read_to_string(&lcov).unwrap();
    for record in ["FNDA:1,helper [a.c]", "FNDA:0,helper [b.c]"] {
        assert!(lcov_text.contains(record), "{lcov_text}");
    }
    let Some(genhtml) = tool("genhtml") else {
        return;
    };
    let out = Command::new(genhtml)
        .arg(&lcov)
        .arg("-o")
        .arg(b.dir.join("html"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("(4 of 5 functions)"),
        "genhtml counts both copies: {text}"
    );
}

/// Regression: `--fail-under 50%` on a stripped copy (same build-id)
/// found no instrumented function, counted that as 100% and passed. A
/// gate that measured nothing now fails with exit 2, saying why.
#[test]
fn a_gate_that_measured_nothing_fails_with_the_reason() {
    let b = built();
    let stripped = b.dir.join("prog.stripped");
    let status = Command::new("objcopy")
        .arg("--strip-all")
        .arg(&b.exe)
        .arg(&stripped)
        .status()
        .expect("objcopy (binutils)");
    assert!(status.success());
    let msg = coverage(b, &stripped, &["--fail-under", "50%"]).failure();
    assert!(
        msg.starts_with("--fail-under: the gate measured nothing"),
        "{msg}"
    );
    assert!(
        msg.contains("stripped") && msg.contains("unstripped build"),
        "{msg}"
    );
    // Without the gate, the list is still shown.
    coverage::<&str>(b, &stripped, &[]).success();
    // The unstripped program passes the same gate (4 of 5 called).
    coverage(b, &b.exe, &["--fail-under", "50%"]).success();
}

/// Regression (issue 39): the summary printed absolute source paths and a
/// `(no source file)` row first.
#[test]
fn the_summary_shortens_paths_and_puts_no_source_file_last() {
    let b = built();
    let out = coverage::<&str>(b, &b.exe, &[]).success().text();
    let mut files: Vec<&str> = out
        .lines()
        .skip(2)
        .map(|l| l.split("  ").next().unwrap())
        .collect();
    assert_eq!(files.split_off(5), ["(no source file)", "all"], "{out}");
    // In path order, which depends on where the build directory is.
    files.sort_unstable();
    assert_eq!(
        files,
        [
            ".../a.c",
            ".../b.c",
            ".../calltrace.c",
            ".../helper.h",
            ".../main.c"
        ],
        "{out}"
    );
    assert!(!out.contains(b.dir.to_str().unwrap()), "{out}");
}
