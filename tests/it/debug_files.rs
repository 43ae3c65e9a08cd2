//! Debug information outside the program: each way a program is shipped
//! (debug file by `.gnu_debuglink` beside it or in `.debug/`, by build-id
//! under `--debug-dir`, strip-all with a debuglink, the debug file as
//! BINARY, a `dwz` supplementary file, split DWARF with its `.dwo` files
//! moved or packed in a `.dwp`, compressed sections) names every traced
//! function, with its file and line, exactly as the plain `-g` build
//! does; a layout whose file is missing gets one warning saying which.
//! A C program with a same-named static in each of its two files, and
//! the C++ one of `testdata/cpp`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::{calltrace, compile, fresh_dir, root, tool};

const A_C: &str = r#"
#include <stdio.h>
int b_entry(int x);
static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }
int main(void) {
    int r = twice(3) + square(4) + b_entry(5);
    printf("%d\n", r);
    return 0;
}
"#;

const B_C: &str = r#"
static int twice(int x) { return x + x + 1; }
int b_entry(int x) { return twice(x) + twice(x + 1); }
"#;

/// One traced function's name, file and line.
type Row = (String, Option<String>, Option<u64>);

/// A program's sources in `dir/build`, compiled there.
struct Program {
    build: PathBuf,
    compiler: &'static str,
    sources: Vec<&'static str>,
}

impl Program {
    fn c(dir: &Path) -> Program {
        let build = dir.join("build");
        std::fs::create_dir_all(&build).unwrap();
        std::fs::write(build.join("a.c"), A_C).unwrap();
        std::fs::write(build.join("b.c"), B_C).unwrap();
        Program {
            build,
            compiler: "gcc",
            sources: vec!["a.c", "b.c"],
        }
    }

    fn cpp(dir: &Path) -> Program {
        let build = dir.join("build");
        std::fs::create_dir_all(&build).unwrap();
        std::fs::copy(
            root().join("testdata/cpp/names.cpp"),
            build.join("names.cpp"),
        )
        .unwrap();
        Program {
            build,
            compiler: "g++",
            sources: vec!["names.cpp"],
        }
    }

    /// Compiles `build/NAME` with `flags`, sources named relative to the
    /// build directory (its `DW_AT_comp_dir`).
    fn compile(&self, name: &str, flags: &[&str]) -> PathBuf {
        let exe = self.build.join(name);
        compile(
            Command::new(self.compiler)
                .current_dir(&self.build)
                .args(["-finstrument-functions"])
                .args(flags)
                .args(&self.sources)
                .arg(root().join("runtime/calltrace.c"))
                .arg("-o")
                .arg(&exe),
        );
        exe
    }
}

/// Runs `exe` once, writing its trace beside it.
fn trace(exe: &Path) -> PathBuf {
    let path = exe.with_extension("trace");
    let out = Command::new(exe)
        .env("CALLTRACE_OUT", &path)
        .env_remove("CALLTRACE_FORMAT")
        .output()
        .expect("run the program");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// The names, files and lines of the call tree of `trace` named through
/// `binary` (with `extra` flags), in tree order, and calltrace's stderr.
fn rows(trace: &Path, binary: &Path, extra: &[&str]) -> (Vec<Row>, String) {
    let out = calltrace(["export", "--to", "json", "-o", "-", "--trace"])
        .args([trace, binary])
        .args(extra)
        .run()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut rows = Vec::new();
    walk(&json, &mut rows);
    (rows, out.stderr)
}

fn walk(node: &serde_json::Value, rows: &mut Vec<Row>) {
    for child in node["children"].as_array().expect("children") {
        rows.push((
            child["name"].as_str().expect("name").to_string(),
            child["file"].as_str().map(str::to_string),
            child["line"].as_u64(),
        ));
        walk(child, rows);
    }
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn objcopy(args: &[&std::ffi::OsStr]) {
    run(Command::new("objcopy").args(args));
}

/// `exe` copied to `dir/app`, its debug information moved to `debug`
/// (`objcopy --only-keep-debug`), stripped with `strip_flag`, with a
/// `.gnu_debuglink` to `debug` when `link`.
fn split_off(exe: &Path, dir: &Path, debug: &Path, strip_flag: &str, link: bool) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let app = dir.join("app");
    std::fs::copy(exe, &app).unwrap();
    objcopy(&[
        "--only-keep-debug".as_ref(),
        app.as_os_str(),
        debug.as_os_str(),
    ]);
    run(Command::new("strip").arg(strip_flag).arg(&app));
    if link {
        let flag = format!("--add-gnu-debuglink={}", debug.display());
        objcopy(&[flag.as_ref(), app.as_os_str()]);
    }
    app
}

/// The build-id of `exe` as hex, from `readelf -n`.
fn build_id(exe: &Path) -> String {
    let out = Command::new("readelf").arg("-n").arg(exe).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Build ID: "))
        .expect("a build-id");
    line.trim().to_string()
}

fn tools(names: &[&str]) -> bool {
    names.iter().all(|n| tool(n).is_some())
}

/// Asserts that `got` names every function as `want` does, with no warning.
#[track_caller]
fn same(layout: &str, want: &[Row], got: (Vec<Row>, String)) {
    assert_eq!(got.0, want, "{layout}: names, files and lines");
    assert!(!got.1.contains("warning"), "{layout}: {}", got.1);
}

/// Every layout built from one program's plain `-g` build and its trace.
fn layouts_name_like_the_plain_build(program: &Program, dir: &Path) {
    let plain = program.compile("app", &["-g"]);
    let t = trace(&plain);
    let (want, stderr) = rows(&t, &plain, &[]);
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(want.len() > 3, "{want:?}");
    assert!(
        want.iter().all(|r| r.1.is_some() && r.2.is_some()),
        "{want:?}"
    );

    // Debuglink beside the program, and in `.debug/` beside it.
    let beside = dir.join("beside");
    let app = split_off(
        &plain,
        &beside,
        &beside.join("app.debug"),
        "--strip-debug",
        true,
    );
    same("debuglink beside", &want, rows(&t, &app, &[]));
    std::fs::create_dir_all(beside.join(".debug")).unwrap();
    std::fs::rename(beside.join("app.debug"), beside.join(".debug/app.debug")).unwrap();
    same("debuglink in .debug/", &want, rows(&t, &app, &[]));

    // Strip-all: names too come from the debug file's symbol table.
    let all = dir.join("all");
    let app = split_off(&plain, &all, &all.join("app.debug"), "--strip-all", true);
    same("strip-all + debuglink", &want, rows(&t, &app, &[]));
    let coverage = |binary: &Path| {
        let out = calltrace(["coverage"]).args([binary, &t]).run().success();
        out.text()
    };
    assert_eq!(coverage(&app), coverage(&plain), "strip-all: coverage");
    // The debug file itself as BINARY.
    same(
        "debug file as BINARY",
        &want,
        rows(&t, &all.join("app.debug"), &[]),
    );

    // By build-id, in a debug directory.
    let ids = dir.join("debug-root");
    let id = build_id(&plain);
    let debug = ids
        .join(".build-id")
        .join(&id[..2])
        .join(format!("{}.debug", &id[2..]));
    std::fs::create_dir_all(debug.parent().unwrap()).unwrap();
    let app = split_off(&plain, &dir.join("by-id"), &debug, "--strip-all", false);
    let flag = ["--debug-dir", ids.to_str().unwrap()];
    same("build-id under --debug-dir", &want, rows(&t, &app, &flag));
    let covered = calltrace(["coverage"]).args(flag).args([&app, &t]).run();
    assert_eq!(
        covered.success().text(),
        coverage(&plain),
        "build-id under --debug-dir: coverage"
    );
    let (names, stderr) = rows(&t, &app, &[]);
    assert!(names.iter().all(|r| r.1.is_none()), "{names:?}");
    assert_eq!(stderr.matches("warning: ").count(), 2, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "(no debug file by build-id either: /usr/lib/debug/.build-id/{}/",
            &id[..2]
        )),
        "{stderr}"
    );

    // The debug file missing, then of another build.
    std::fs::remove_file(all.join("app.debug")).unwrap();
    let (_, stderr) = rows(&t, &all.join("app"), &[]);
    let missing = format!(
        "warning: {} has a .gnu_debuglink to app.debug, not found in: ",
        all.join("app").display(),
    );
    assert_eq!(stderr.matches(&missing).count(), 1, "{stderr}");
    assert!(stderr.contains("pass --debug-dir DIR"), "{stderr}");
    std::fs::copy(&plain, all.join("app.debug")).unwrap();
    let (_, stderr) = rows(&t, &all.join("app"), &[]);
    assert_eq!(
        stderr.matches("but its CRC does not match").count(),
        1,
        "{stderr}"
    );
}

/// A `dwz -m` supplementary file shared by two copies of the program
/// (`.gnu_debugaltlink`, or DWARF 5's `.debug_sup` with `--dwarf-5`)
/// resolves; missing, it is named; in a search directory, it is found.
fn dwz_supplementary(program: &Program, dir: &Path, dwarf5: bool) {
    let plain = program.build.join("app");
    let t = plain.with_extension("trace");
    let (want, _) = rows(&t, &plain, &[]);
    let name = if dwarf5 { "dwz5" } else { "dwz" };
    let (d, elsewhere) = (dir.join(name), dir.join(format!("{name}-moved")));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::copy(&plain, d.join("app")).unwrap();
    std::fs::copy(&plain, d.join("app2")).unwrap();
    let mut dwz = Command::new("dwz");
    dwz.current_dir(&d);
    if dwarf5 {
        dwz.arg("--dwarf-5");
    }
    run(dwz.args(["-m", "common.debug", "app", "app2"]));
    same(name, &want, rows(&t, &d.join("app"), &[]));
    std::fs::rename(d.join("common.debug"), elsewhere.join("common.debug")).unwrap();
    let (_, stderr) = rows(&t, &d.join("app"), &[]);
    let warning = "dwz supplementary file common.debug not found (looked in: ";
    assert_eq!(stderr.matches(warning).count(), 1, "{name}: {stderr}");
    let flag = ["--search-path", elsewhere.to_str().unwrap()];
    same(name, &want, rows(&t, &d.join("app"), &flag));
}

/// Builds that differ in the compiler's flags, each traced: compressed
/// sections, split DWARF whose build directory moved, and a `.dwp`.
fn compiled_layouts(program: &Program, dir: &Path, want: &[Row]) {
    let gz = program.compile("app-gz", &["-g", "-gz=zlib"]);
    same("-gz=zlib", want, rows(&trace(&gz), &gz, &[]));

    let split = program.compile("app-split", &["-g", "-gsplit-dwarf"]);
    let t = trace(&split);
    // The build directory's outputs moved elsewhere: DW_AT_comp_dir is stale.
    let moved = dir.join("moved");
    std::fs::create_dir_all(&moved).unwrap();
    let mut dwos = Vec::new();
    for e in std::fs::read_dir(&program.build).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "dwo") {
            let to = moved.join(p.file_name().unwrap());
            std::fs::rename(&p, &to).unwrap();
            dwos.push(to);
        }
    }
    assert!(!dwos.is_empty(), "gcc -gsplit-dwarf wrote .dwo files");
    let app = moved.join("app-split");
    std::fs::rename(&split, &app).unwrap();
    same(".dwo beside the moved program", want, rows(&t, &app, &[]));
    let elsewhere = dir.join("dwo");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for d in &dwos {
        std::fs::rename(d, elsewhere.join(d.file_name().unwrap())).unwrap();
    }
    let (got, stderr) = rows(&t, &app, &[]);
    assert_eq!(stderr.matches("split DWARF file").count(), 1, "{stderr}");
    assert_eq!(got.len(), want.len());
    let flag = ["--search-path", elsewhere.to_str().unwrap()];
    same(".dwo by --search-path", want, rows(&t, &app, &flag));
    // binutils' `dwp` packs DWARF 4 split units (its DWARF 5 package has
    // no units, and llvm-dwp 14 hangs on gcc 12's DWARF 5 .dwo files).
    if tools(&["dwp"]) {
        let split = program.compile("app-split4", &["-gdwarf-4", "-gsplit-dwarf"]);
        let t = trace(&split);
        run(Command::new("dwp")
            .current_dir(&program.build)
            .arg("-e")
            .arg(&split)
            .arg("-o")
            .arg(moved.join("app-split4.dwp")));
        let app = moved.join("app-split4");
        std::fs::rename(&split, &app).unwrap();
        for e in std::fs::read_dir(&program.build).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "dwo") {
                std::fs::remove_file(p).unwrap();
            }
        }
        same(".dwp package", want, rows(&t, &app, &[]));
    }
}

fn all_layouts(program: Program, dir: &Path) {
    layouts_name_like_the_plain_build(&program, dir);
    let plain = program.build.join("app");
    let (want, _) = rows(&plain.with_extension("trace"), &plain, &[]);
    if tools(&["dwz"]) {
        dwz_supplementary(&program, dir, false);
        dwz_supplementary(&program, dir, true);
    }
    compiled_layouts(&program, dir, &want);
}

#[test]
fn every_debug_file_layout_names_a_c_program_like_its_plain_build() {
    if !tools(&["objcopy", "strip", "readelf"]) {
        return;
    }
    let dir = fresh_dir("debug_files", "c");
    all_layouts(Program::c(&dir), &dir);
}

#[test]
fn every_debug_file_layout_names_a_cpp_program_like_its_plain_build() {
    if !tools(&["objcopy", "strip", "readelf"]) {
        return;
    }
    let dir = fresh_dir("debug_files", "cpp");
    all_layouts(Program::cpp(&dir), &dir);
}

#[test]
fn same_named_statics_stay_apart_when_names_come_from_a_debug_file() {
    if !tools(&["objcopy", "strip"]) {
        return;
    }
    let dir = fresh_dir("debug_files", "statics");
    let program = Program::c(&dir);
    let plain = program.compile("app", &["-g"]);
    let t = trace(&plain);
    let all = dir.join("all");
    let app = split_off(&plain, &all, &all.join("app.debug"), "--strip-all", true);
    let (names, _) = rows(&t, &app, &[]);
    let twice: Vec<&str> = names
        .iter()
        .map(|r| r.0.as_str())
        .filter(|n| n.starts_with("twice"))
        .collect();
    assert_eq!(twice, ["twice [a.c]", "twice [b.c]"], "{names:?}");
}

/// A stripped program carrying MiniDebugInfo (built as Fedora builds it:
/// the function symbols in an xz-compressed ELF file in
/// `.gnu_debugdata`) has its functions' names, same-named statics still
/// apart (by address: the table has no `FILE` symbols), and one warning
/// that files and lines are missing.
#[test]
fn mini_debug_info_names_a_stripped_program() {
    if !tools(&["objcopy", "strip", "nm", "xz"]) {
        return;
    }
    let dir = fresh_dir("debug_files", "minidebuginfo");
    let program = Program::c(&dir);
    let plain = program.compile("app", &["-g"]);
    let t = trace(&plain);
    let (want, _) = rows(&t, &plain, &[]);
    let d = dir.join("mini");
    std::fs::create_dir_all(&d).unwrap();
    let app = d.join("app");
    std::fs::copy(&plain, &app).unwrap();
    let nm = Command::new("nm")
        .args(["--format=posix", "--defined-only"])
        .arg(&app)
        .output()
        .unwrap();
    let funcs: Vec<String> = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split(' ');
            let (name, kind) = (f.next()?, f.next()?);
            matches!(kind, "T" | "t").then(|| name.to_string())
        })
        .collect();
    std::fs::write(d.join("funcs"), funcs.join("\n")).unwrap();
    let (full, mini) = (d.join("full.debug"), d.join("mini"));
    objcopy(&[
        "--only-keep-debug".as_ref(),
        app.as_os_str(),
        full.as_os_str(),
    ]);
    let keep = format!("--keep-symbols={}", d.join("funcs").display());
    objcopy(&[
        "-S".as_ref(),
        keep.as_ref(),
        full.as_os_str(),
        mini.as_os_str(),
    ]);
    run(Command::new("xz").arg(&mini));
    run(Command::new("strip").arg("--strip-all").arg(&app));
    let section = format!(".gnu_debugdata={}.xz", mini.display());
    objcopy(&["--add-section".as_ref(), section.as_ref(), app.as_os_str()]);
    let (got, stderr) = rows(&t, &app, &[]);
    let bare = |n: &str| n.split(" [").next().unwrap_or(n).to_string();
    let names = |rows: &[Row]| rows.iter().map(|r| bare(&r.0)).collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want), "{got:?}");
    assert!(got.iter().all(|r| r.1.is_none()), "{got:?}");
    let twice: Vec<&str> = got
        .iter()
        .map(|r| r.0.as_str())
        .filter(|n| n.starts_with("twice"))
        .collect();
    assert_eq!(twice.len(), 2);
    assert_ne!(twice[0], twice[1], "same-named statics stay apart");
    assert_eq!(stderr.matches("warning: ").count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "names come from its MiniDebugInfo (.gnu_debugdata), without source files and lines"
        ),
        "{stderr}"
    );
}

/// A debuginfod server (elfutils' `debuginfod -F` over a directory of
/// built programs), killed when dropped.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port nothing listens on (bound, then released).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Whether the server at `port` serves `path` yet.
fn serves(port: u16, path: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = write!(s, "GET {path} HTTP/1.0\r\n\r\n");
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.ends_with(b"200")
}

/// `export --to json` of `trace` through `binary` with debuginfod's
/// variables `env`: names, files and lines, and stderr.
fn rows_with(trace: &Path, binary: &Path, env: &[(&str, &Path)]) -> (Vec<Row>, String) {
    let mut cmd = Command::new(super::util::BIN);
    cmd.args(["export", "--to", "json", "-o", "-", "--trace"])
        .args([trace, binary])
        .env_remove("DEBUGINFOD_URLS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut rows = Vec::new();
    walk(&json, &mut rows);
    (rows, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// With `DEBUGINFOD_URLS` set, a stripped program's debug file comes from
/// a real debuginfod server into elfutils' client cache, where the next
/// run finds it; a server that does not answer is named; without the
/// variable nothing is fetched.
#[test]
fn debuginfod_serves_the_debug_file_into_the_client_cache() {
    if !tools(&["objcopy", "strip", "readelf", "debuginfod"]) {
        return;
    }
    let dir = fresh_dir("debug_files", "debuginfod");
    let program = Program::c(&dir);
    let plain = program.compile("app", &["-g"]);
    let t = trace(&plain);
    let (want, _) = rows(&t, &plain, &[]);
    let served = dir.join("served");
    std::fs::create_dir_all(&served).unwrap();
    std::fs::copy(&plain, served.join("app")).unwrap();
    let shipped = dir.join("shipped");
    let gone = shipped.join("gone.debug");
    let app = split_off(&plain, &shipped, &gone, "--strip-all", false);
    std::fs::remove_file(&gone).unwrap();
    let id = build_id(&plain);

    let port = free_port();
    let log = std::fs::File::create(dir.join("server.log")).unwrap();
    let _server = Server(
        Command::new("debuginfod")
            .args(["-F", "-t", "0", "-g", "0", "-c", "1"])
            .arg(format!("--port={port}"))
            .arg(format!("--database={}", dir.join("db.sqlite").display()))
            .arg(&served)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start debuginfod"),
    );
    let path = format!("/buildid/{id}/debuginfo");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !serves(port, &path) {
        assert!(
            std::time::Instant::now() < deadline,
            "debuginfod never served {path}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }

    let cache = dir.join("cache");
    let url = format!("http://127.0.0.1:{port}");
    let env = [
        ("DEBUGINFOD_URLS", Path::new(&url)),
        ("DEBUGINFOD_CACHE_PATH", &cache),
    ];
    same("debuginfod", &want, rows_with(&t, &app, &env));
    let cached = cache.join(&id).join("debuginfo");
    assert!(cached.is_file(), "cached as elfutils caches");

    // The next run reads the cache, whatever the servers do.
    let dead = format!("http://127.0.0.1:{}", free_port());
    let env = [
        ("DEBUGINFOD_URLS", Path::new(&dead)),
        ("DEBUGINFOD_CACHE_PATH", &cache),
        ("DEBUGINFOD_TIMEOUT", Path::new("5")),
    ];
    same("debuginfod cache", &want, rows_with(&t, &app, &env));
    std::fs::remove_dir_all(&cache).unwrap();
    let (got, stderr) = rows_with(&t, &app, &env);
    assert!(got.iter().all(|r| r.1.is_none()), "{got:?}");
    assert!(
        stderr.contains(&format!("debuginfod: {dead} did not answer (")),
        "{stderr}"
    );
    assert!(!cache.join(&id).join("debuginfo").exists());

    // Without DEBUGINFOD_URLS, no server is asked.
    let (_, stderr) = rows_with(&t, &app, &[("DEBUGINFOD_CACHE_PATH", &cache)]);
    assert!(!stderr.contains("debuginfod: "), "{stderr}");
    assert!(!cache.exists(), "nothing fetched");
}

/// The debug file as BINARY when the traced program itself is gone: the
/// layout GNU ld gives the program is assumed, and names, files and
/// lines are still the plain build's.
#[test]
fn the_debug_file_alone_names_a_trace_whose_program_is_gone() {
    if !tools(&["objcopy"]) {
        return;
    }
    let dir = fresh_dir("debug_files", "gone");
    let program = Program::c(&dir);
    let plain = program.compile("app", &["-g"]);
    let t = trace(&plain);
    let (want, _) = rows(&t, &plain, &[]);
    let debug = dir.join("app.debug");
    objcopy(&[
        "--only-keep-debug".as_ref(),
        plain.as_os_str(),
        debug.as_os_str(),
    ]);
    std::fs::remove_file(&plain).unwrap();
    same("debug file alone", &want, rows(&t, &debug, &[]));
}

/// Debug files found on the way are inputs: `-o` naming one is refused
/// and the file is left as it was.
#[test]
fn an_output_never_overwrites_a_debug_file_that_was_read() {
    if !tools(&["objcopy", "strip"]) {
        return;
    }
    let dir = fresh_dir("debug_files", "inputs");
    let program = Program::c(&dir);
    let plain = program.compile("app", &["-g"]);
    let t = trace(&plain);
    let beside = dir.join("beside");
    let debug = beside.join("app.debug");
    let app = split_off(&plain, &beside, &debug, "--strip-all", true);
    let before = std::fs::read(&debug).unwrap();
    let msg = calltrace(["graph", "--trace"])
        .args([&t, &app])
        .args(["-o"])
        .args([&debug])
        .run()
        .failure();
    assert!(msg.contains("refusing to overwrite an input"), "{msg}");
    assert_eq!(
        std::fs::read(&debug).unwrap(),
        before,
        "debug file untouched"
    );
}
