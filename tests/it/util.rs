//! Shared helpers: running the `calltrace` binary, building and tracing the
//! test programs of `testdata/` once per test run, reading CSV edges and
//! tree shapes, and comparing golden files.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_calltrace");

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------------------
// Running calltrace

/// What a finished `calltrace` run printed.
#[derive(Debug)]
pub struct Output {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Raw standard output.
    pub stdout: Vec<u8>,
    /// Standard error as text.
    pub stderr: String,
}

impl Output {
    /// Standard output as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// Asserts exit code 0.
    #[track_caller]
    pub fn success(self) -> Self {
        assert_eq!(self.code, 0, "calltrace failed:\n{}", self.stderr);
        self
    }

    /// Asserts exit code 2 (bad usage or input) with one error line and no
    /// output; returns the message after `calltrace: error: `.
    #[track_caller]
    pub fn failure(self) -> String {
        assert_eq!(
            self.code, 2,
            "expected exit code 2, stderr:\n{}",
            self.stderr
        );
        assert!(self.stdout.is_empty(), "no output on error");
        let msg = self
            .stderr
            .lines()
            .find_map(|l| l.strip_prefix("calltrace: error: "))
            .unwrap_or_else(|| panic!("no error line in:\n{}", self.stderr));
        msg.to_string()
    }
}

/// A `calltrace` command line about to run.
pub struct Calltrace {
    cmd: Command,
    stdin: Vec<u8>,
}

/// Prepares `calltrace ARGS...`.
pub fn calltrace<I, S>(args: I) -> Calltrace
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    Calltrace {
        cmd,
        stdin: Vec::new(),
    }
}

impl Calltrace {
    /// Runs in `dir` instead of the test's working directory.
    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// Feeds `bytes` on standard input.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = bytes.into();
        self
    }

    /// Runs to completion. Whatever the input, calltrace must not panic.
    #[track_caller]
    pub fn run(mut self) -> Output {
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start calltrace");
        let mut pipe = child.stdin.take().expect("stdin");
        let input = std::mem::take(&mut self.stdin);
        // A thread, so a large input cannot deadlock against a full stdout pipe;
        // calltrace may exit without reading stdin, hence the ignored error.
        let feeder = std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
        let out = child.wait_with_output().expect("wait for calltrace");
        feeder.join().expect("stdin feeder");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            !stderr.contains("panicked") && out.status.code() != Some(101),
            "calltrace panicked:\n{stderr}"
        );
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: out.stdout,
            stderr,
        }
    }
}

/// Runs `cmd` to completion like `Command::output`, but kills it and fails
/// the test if it takes longer than `secs`: a traced program that hangs
/// must fail its test, not stall the whole run.
#[track_caller]
pub fn output_within(cmd: &mut Command, secs: u64) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the program");
    // Drain both pipes in threads, so a chatty program cannot block on them.
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut v);
        v
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the program") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    std::process::Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

// ---------------------------------------------------------------------------
// The test programs, built and traced once per test run

/// A compiled test program.
pub struct Program {
    /// The executable.
    pub exe: PathBuf,
    /// What it prints on stdout; checked on every run.
    expected_stdout: &'static str,
    text: OnceLock<Trace>,
    binary: OnceLock<Trace>,
}

/// One recorded run of a program.
pub struct Trace {
    /// The trace file.
    pub path: PathBuf,
    /// Process id of the run (the tid of its main thread).
    pub pid: u32,
}

impl Trace {
    /// The trace as text (text-format traces only).
    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.path).expect("read trace")
    }
}

impl Program {
    fn build(
        name: &str,
        compiler: &str,
        sources: &[&str],
        flags: &[&str],
        stdout: &'static str,
    ) -> Self {
        let exe = work_dir().join(name);
        let mut cmd = Command::new(compiler);
        cmd.args(["-g", "-finstrument-functions"]);
        for s in sources {
            cmd.arg(root().join(s));
        }
        cmd.arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe)
            .args(flags);
        let out = cmd.output().unwrap_or_else(|e| {
            panic!("cannot run {compiler} (these tests need gcc and g++): {e}")
        });
        assert!(
            out.status.success(),
            "{compiler} failed to build {name}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Program {
            exe,
            expected_stdout: stdout,
            text: OnceLock::new(),
            binary: OnceLock::new(),
        }
    }

    /// The executable's path as a command-line argument.
    pub fn exe(&self) -> &str {
        self.exe.to_str().expect("UTF-8 path")
    }

    /// A run recorded in the text format (the default).
    pub fn text_trace(&self) -> &Trace {
        self.text.get_or_init(|| self.record("text", "txt"))
    }

    /// A run recorded with `CALLTRACE_FORMAT=binary`.
    pub fn binary_trace(&self) -> &Trace {
        self.binary.get_or_init(|| self.record("binary", "bin"))
    }

    /// Runs the program once more, in `dir`, with the runtime's defaults.
    pub fn run_in(&self, dir: &Path) {
        let out = Command::new(&self.exe)
            .current_dir(dir)
            .env_remove("CALLTRACE_OUT")
            .env_remove("CALLTRACE_FORMAT")
            .output()
            .expect("run test program");
        self.check_run(&out);
    }

    fn record(&self, format: &str, ext: &str) -> Trace {
        let path = self.exe.with_extension(ext);
        let child = Command::new(&self.exe)
            .current_dir(work_dir())
            .env("CALLTRACE_OUT", &path)
            .env("CALLTRACE_FORMAT", format)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start test program");
        let pid = child.id();
        let out = child.wait_with_output().expect("run test program");
        self.check_run(&out);
        Trace { path, pid }
    }

    fn check_run(&self, out: &std::process::Output) {
        assert!(
            out.status.success(),
            "{} failed: {}",
            self.exe.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), self.expected_stdout);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "runtime complained"
        );
    }
}

/// The names of the files in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read the directory")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

/// A fresh, empty directory `TOPIC/NAME` under cargo's directory for test
/// files, for one test's programs and traces (left behind for inspection).
pub fn fresh_dir(topic: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(topic)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create work dir");
    dir
}

/// Runs a compiler command; fails the test with the compiler's messages.
#[track_caller]
pub fn compile(cmd: &mut Command) {
    let out = cmd
        .output()
        .expect("run the compiler (these tests need gcc and g++)");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles C `source` with the runtime into `dir/NAME`, with
/// `gcc -g OPT -finstrument-functions` in `dir`; `extra` comes after the
/// sources, so libraries can follow.
#[track_caller]
pub fn build_traced(dir: &Path, name: &str, source: &str, opt: &str, extra: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).expect("write source");
    let exe = dir.join(name);
    compile(
        Command::new("gcc")
            .current_dir(dir)
            .args(["-g", opt, "-finstrument-functions"])
            .arg(&src)
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe)
            .args(extra),
    );
    exe
}

/// Where the programs and their traces go: `target/tmp/programs`, emptied
/// at the start of each run and left behind for inspection after it.
fn work_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("programs");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create target/tmp/programs");
        dir
    })
}

const HELLO: &[&str] = &[
    "testdata/hello/main.c",
    "testdata/hello/shapes.c",
    "testdata/hello/util.c",
];
const HELLO_OUT: &str = "hello      1\narea       31\n4!         24\nsum        55\n";

/// testdata/hello built as a PIE (the default, made explicit).
pub fn hello_pie() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| Program::build("hello-pie", "gcc", HELLO, &["-fPIE", "-pie"], HELLO_OUT))
}

/// testdata/hello built with `-no-pie`.
pub fn hello_no_pie() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| Program::build("hello-no-pie", "gcc", HELLO, &["-no-pie"], HELLO_OUT))
}

/// testdata/threads: main plus two worker threads.
pub fn threads() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| {
        Program::build(
            "threads",
            "gcc",
            &["testdata/threads/threads.c"],
            &["-pthread"],
            "a=12 b=30 m=20\n",
        )
    })
}

/// testdata/longjmp: `c` longjmps back into `run`.
pub fn longjmp() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| {
        Program::build(
            "longjmp",
            "gcc",
            &["testdata/longjmp/longjmp.c"],
            &[],
            "run: jumped back with 42\nd=5\ne=6\n",
        )
    })
}

/// testdata/cpp: C++ names full of `<>":,`.
pub fn cpp() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| {
        Program::build(
            "names",
            "g++",
            &["testdata/cpp/names.cpp"],
            &[],
            "r = (4, 6)\nti=42 td=3.0 ps=2.5 n2=52 same=0 sq=1764 colons=4 helper=21 km=3000\n",
        )
    })
}

// ---------------------------------------------------------------------------
// Trace and output transformations

/// The trace without its timestamp and thread columns, like
/// `cut -d' ' -f1`: untimed, so weights are call counts. `#` lines are kept.
pub fn untimed(trace: &str) -> String {
    let mut out = String::new();
    for line in trace.lines() {
        match line.starts_with('#') {
            true => out.push_str(line),
            false => out.push_str(line.split(' ').next().unwrap_or("")),
        }
        out.push('\n');
    }
    out
}

/// [`untimed`] without the `#` lines: no load base, so the bias is inferred.
pub fn headerless(trace: &str) -> String {
    untimed(trace)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A caller -> callee edge with its number of calls.
pub type Edge = (String, String, u64);

/// The rows of `calltrace graph --csv` after its header, in file order.
#[track_caller]
pub fn csv_rows(csv: &[u8]) -> Vec<[String; 4]> {
    let mut r = csv::Reader::from_reader(csv);
    let header = r.headers().expect("CSV header").clone();
    assert_eq!(
        header.iter().take(3).collect::<Vec<_>>(),
        ["caller", "callee", "calls"]
    );
    assert!(
        ["total_ns", "total_calls", "total_units", "total_cycles"].contains(&&header[3]),
        "the total's column names its unit: {header:?}"
    );
    r.records()
        .map(|rec| {
            let rec = rec.expect("CSV record");
            assert_eq!(rec.len(), 4, "{rec:?}");
            std::array::from_fn(|i| rec[i].to_string())
        })
        .collect()
}

/// The unit in the name of the total's column of `calltrace graph --csv`.
#[track_caller]
pub fn csv_total_unit(csv: &[u8]) -> String {
    let mut r = csv::Reader::from_reader(csv);
    let header = r.headers().expect("CSV header");
    header[3].trim_start_matches("total_").to_string()
}

/// The edges of `calltrace graph --csv`, sorted.
#[track_caller]
pub fn csv_edges(csv: &[u8]) -> Vec<Edge> {
    let mut edges: Vec<Edge> = csv_rows(csv)
        .into_iter()
        .map(|[a, b, n, _]| (a, b, n.parse().expect("calls is a number")))
        .collect();
    edges.sort();
    edges
}

/// An expected edge list, sorted like [`csv_edges`].
pub fn edges(list: &[(&str, &str, u64)]) -> Vec<Edge> {
    let mut v: Vec<Edge> = list
        .iter()
        .map(|&(a, b, n)| (a.to_string(), b.to_string(), n))
        .collect();
    v.sort();
    v
}

/// What `calltrace graph [BINARY] --trace TRACE -o FILE --csv FILE` wrote.
pub struct Graph {
    /// The DOT file.
    pub dot: String,
    /// The CSV file.
    pub csv: Vec<u8>,
    /// Warnings and notes.
    pub stderr: String,
}

impl Graph {
    /// The CSV's edges, sorted.
    #[track_caller]
    pub fn edges(&self) -> Vec<Edge> {
        csv_edges(&self.csv)
    }
}

/// Runs `calltrace graph` on `trace`, with `binary` unless it is empty,
/// with nothing pruned (`--min-total 0 --min-edge 0`).
#[track_caller]
pub fn graph(binary: &str, trace: &Path) -> Graph {
    let dir = tempfile::tempdir().expect("temp dir");
    let (dot, csv) = (dir.path().join("graph.dot"), dir.path().join("graph.csv"));
    let mut args: Vec<&OsStr> = vec!["graph".as_ref()];
    if !binary.is_empty() {
        args.push(binary.as_ref());
    }
    args.extend::<[&OsStr; 10]>([
        "--min-total".as_ref(),
        "0".as_ref(),
        "--min-edge".as_ref(),
        "0".as_ref(),
        "--trace".as_ref(),
        trace.as_ref(),
        "-o".as_ref(),
        dot.as_ref(),
        "--csv".as_ref(),
        csv.as_ref(),
    ]);
    let out = calltrace(args).run().success();
    Graph {
        dot: std::fs::read_to_string(&dot).expect("read DOT"),
        csv: std::fs::read(&csv).expect("read CSV"),
        stderr: out.stderr,
    }
}

/// Writes `text` to a file in a new temporary directory (kept alive by the guard).
pub fn temp_file(name: &str, text: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write temp file");
    (dir, path)
}

/// Runs `calltrace tree [BINARY] --trace TRACE EXTRA...` and returns its stdout.
#[track_caller]
pub fn tree(binary: &str, trace: &Path, extra: &[&str]) -> String {
    let mut args: Vec<&OsStr> = vec!["tree".as_ref()];
    if !binary.is_empty() {
        args.push(binary.as_ref());
    }
    args.push("--trace".as_ref());
    args.push(trace.as_ref());
    args.extend(extra.iter().map(OsStr::new));
    calltrace(args).run().success().text()
}

/// A tree printed by `calltrace tree` without its `(self / total)` weights:
/// names, indentation and `xN` call counts only.
pub fn shape(tree: &str) -> String {
    let mut out = String::new();
    for line in tree.lines() {
        let (body, calls) = match line.rsplit_once(' ') {
            Some((b, n)) if n.starts_with('x') && n[1..].parse::<u64>().is_ok() => (b, Some(n)),
            _ => (line, None),
        };
        let open = body
            .rfind(" (")
            .unwrap_or_else(|| panic!("no weights in `{line}`"));
        out.push_str(&body[..open]);
        if let Some(n) = calls {
            out.push(' ');
            out.push_str(n);
        }
        out.push('\n');
    }
    out
}

/// Replaces the repository path (absolute in DWARF) by `<repo>`.
pub fn normalise_paths(text: &str) -> String {
    text.replace(root().to_str().expect("UTF-8 path"), "<repo>")
}

// ---------------------------------------------------------------------------
// Golden files

/// A file under `tests/data/`.
pub fn data(case: &str, file: &str) -> PathBuf {
    root().join("tests/data").join(case).join(file)
}

/// Compares `actual` with `tests/data/CASE/FILE`; with `CALLTRACE_BLESS=1`
/// writes it instead.
#[track_caller]
pub fn assert_golden(case: &str, file: &str, actual: &str) {
    let path = data(case, file);
    if std::env::var_os("CALLTRACE_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).expect("create golden dir");
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read golden {}: {e}\nset CALLTRACE_BLESS=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "output differs from {} (- expected, + actual):\n{}\nset CALLTRACE_BLESS=1 to update",
            path.display(),
            diff(&expected, actual)
        );
    }
}

/// A line diff (longest common subsequence), changed lines with one line of context.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut lines = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            lines.push(('-', a[i]));
            i += 1;
        } else {
            lines.push(('+', b[j]));
            j += 1;
        }
    }
    let near_change =
        |k: usize| (k.saturating_sub(1)..=(k + 1).min(lines.len() - 1)).any(|m| lines[m].0 != ' ');
    let mut out = String::new();
    for (k, (mark, line)) in lines.iter().enumerate() {
        if near_change(k) {
            out.push_str(&format!("{mark} {line}\n"));
        }
    }
    if expected.ends_with('\n') != actual.ends_with('\n') {
        out.push_str("(the final newline differs)\n");
    }
    out
}

/// The path of external program `name` when it is installed. When it is
/// missing, the test is skipped ([`skip`]) and this returns None, unless
/// `CALLTRACE_REQUIRE_TOOLS=1` (CI), which makes a missing tool a failure.
#[track_caller]
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        skip(&format!("`{name}` is not installed"));
    }
    found
}

/// The tests skipped so far: (test name, why).
static SKIPPED: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());

/// Skips the running test because something it needs is missing (`why`):
/// a failure under `CALLTRACE_REQUIRE_TOOLS=1` (CI), else a `SKIP` line in
/// the test's output and a line in the list of skipped tests that the test
/// binary prints on stderr when it ends, after libtest's summary (which
/// counts a skipped test as passed). The caller returns after this.
#[track_caller]
pub fn skip(why: &str) {
    assert!(
        std::env::var("CALLTRACE_REQUIRE_TOOLS").as_deref() != Ok("1"),
        "{why}, and CALLTRACE_REQUIRE_TOOLS=1 requires it"
    );
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    eprintln!("SKIP {test}: {why}");
    let mut skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    if skipped.is_empty() {
        // SAFETY: `report_skipped` is a plain `extern "C" fn()` that only
        // locks a mutex and writes to stderr.
        unsafe { libc::atexit(report_skipped) };
    }
    skipped.push((test, why.to_string()));
}

/// Prints the skipped tests at exit, after libtest's `test result:` line.
extern "C" fn report_skipped() {
    let skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\nSKIPPED {} test(s), counted as passed above (CALLTRACE_REQUIRE_TOOLS=1 makes them fail):",
        skipped.len()
    );
    for (test, why) in skipped.iter() {
        let _ = writeln!(err, "  SKIP {test}: {why}");
    }
}

/// The directory of a third-party C source tree bundled in a Rust
/// package (`scripts/third-party.sh zlib|zstd|sqlite|lua|xz`).
#[track_caller]
pub fn third_party(name: &str) -> PathBuf {
    let out = Command::new(root().join("scripts/third-party.sh"))
        .arg(name)
        .output()
        .expect("run scripts/third-party.sh");
    assert!(
        out.status.success(),
        "scripts/third-party.sh {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).expect("a path").trim())
}

/// zlib built from its own sources at -O2 with `-finstrument-functions` and
/// the runtime, driving `testdata/zlib/zround.c`, run once: its directory
/// (in `fresh_dir(topic, "zlib")`), the program and its trace.
pub fn traced_zround(topic: &str) -> (PathBuf, PathBuf, PathBuf) {
    let zlib = third_party("zlib");
    let dir = fresh_dir(topic, "zlib");
    let exe = dir.join("zround");
    compile(
        Command::new("gcc")
            .args(["-O2", "-g", "-finstrument-functions", "-I"])
            .arg(&zlib)
            .args(ZLIB_FILES.iter().map(|f| zlib.join(f)))
            .arg(root().join("testdata/zlib/zround.c"))
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe),
    );
    let trace = dir.join("trace.txt");
    let out = output_within(Command::new(&exe).env("CALLTRACE_OUT", &trace), 120);
    assert!(out.status.success(), "zround failed");
    (dir, exe, trace)
}

/// zlib's library sources (without gz*.c, which need more of the system).
pub const ZLIB_FILES: &[&str] = &[
    "adler32.c",
    "compress.c",
    "crc32.c",
    "deflate.c",
    "infback.c",
    "inffast.c",
    "inflate.c",
    "inftrees.c",
    "trees.c",
    "uncompr.c",
    "zutil.c",
];

/// The commands `calltrace help` lists.
pub fn commands() -> Vec<String> {
    let help = calltrace(["help"]).run().success().text();
    let listed = help.split("Commands:\n").nth(1).expect("a command list");
    listed
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect()
}

/// The `export --to` formats `calltrace export --help` lists, with their
/// descriptions.
pub fn export_formats() -> Vec<(String, String)> {
    let help = calltrace(["export", "--help"]).run().success().text();
    let to = help
        .split("\n      --to <FORMAT>\n")
        .nth(1)
        .expect("--to in export --help");
    let values = to
        .split("Possible values:\n")
        .nth(1)
        .expect("the --to values");
    values
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("- "))
        .filter_map(|l| l[2..].split_once(':'))
        .map(|(name, about)| (name.trim().to_string(), about.trim().to_string()))
        .collect()
}
