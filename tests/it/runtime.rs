//! The tracing runtime itself, on small real programs compiled here: the
//! loaded objects it records (`# map` lines and binary map records), and
//! what survives damage in a binary trace.

use std::path::{Path, PathBuf};
use std::process::Command;

use calltrace::ingest::{
    BinaryFormat, Event, EventSink, FuncKey, FuncTable, Input, Mapping, NodeRecord, NodeSink,
    ParseOptions, TraceFormat, TraceMeta,
};
use object::Object;

use super::util::{build_traced, compile, fresh_dir, output_within, root};

/// A fresh directory for one test's programs and traces.
fn work(name: &str) -> PathBuf {
    fresh_dir("runtime", name)
}

/// Compiles `source` (C) with the runtime into `dir/name`, plus `extra` gcc arguments.
fn build(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    build_traced(dir, name, source, "-O1", extra)
}

/// Every event and the meta of a binary trace, read with the library.
struct Read {
    events: Vec<Event>,
    meta: TraceMeta,
    funcs: FuncTable,
}

#[derive(Default)]
struct Collect(Vec<Event>);

impl EventSink for Collect {
    fn events(&mut self, e: &[Event]) {
        self.0.extend_from_slice(e);
    }
}

impl NodeSink for Collect {
    fn node(&mut self, _: NodeRecord) {}
}

fn read_binary(bytes: Vec<u8>, lenient: bool) -> calltrace::Result<Read> {
    let input = Input::from_bytes("trace.bin", bytes);
    let opts = ParseOptions {
        lenient,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = Collect::default();
    let meta = BinaryFormat.parse(&input, &opts, &mut funcs, &mut sink)?;
    Ok(Read {
        events: sink.0,
        meta,
        funcs,
    })
}

/// The `# map` lines of a text trace.
fn text_maps(trace: &str) -> Vec<Mapping> {
    trace
        .lines()
        .filter_map(|l| l.strip_prefix("# map "))
        .map(|l| {
            let mut f = l.splitn(5, ' ');
            let mut hex = || u64::from_str_radix(&f.next().unwrap()[2..], 16).unwrap();
            let (start, end, offset) = (hex(), hex(), hex());
            let id = f.next().unwrap();
            Mapping {
                start,
                end,
                offset,
                build_id: (id != "-").then(|| id.to_string()),
                path: f.next().unwrap().to_string(),
            }
        })
        .collect()
}

/// The GNU build-id of an ELF file, as lower-case hex.
fn build_id(path: &Path) -> Option<String> {
    let data = std::fs::read(path).expect("read ELF");
    let file = object::File::parse(&*data).expect("parse ELF");
    let id = file.build_id().expect("read notes")?;
    Some(id.iter().map(|b| format!("{b:02x}")).collect())
}

const DLOPEN_LIB: &str = "int lib_square(int x) { return x * x; }\n";
const DLOPEN_APP: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
static int before(int x) { return x + 1; }
int main(int argc, char **argv) {
    int r = before(argc);
    void *h = dlopen(argv[1], RTLD_NOW);
    int (*sq)(int) = h ? (int (*)(int))dlsym(h, "lib_square") : 0;
    printf("%d\n", r + (sq ? sq(3) : -100));
    return 0;
}
"#;

#[test]
fn the_executable_and_dlopened_libraries_are_recorded_with_build_ids() {
    let dir = work("maps");
    let lib = dir.join("lib sq.so"); // a space: the path is the rest of the line
    std::fs::write(dir.join("lib.c"), DLOPEN_LIB).unwrap();
    compile(
        Command::new("gcc")
            .args([
                "-g",
                "-shared",
                "-fPIC",
                "-finstrument-functions",
                "-Wl,--build-id",
            ])
            .arg(dir.join("lib.c"))
            .arg("-o")
            .arg(&lib),
    );
    let exe = build(&dir, "app", DLOPEN_APP, &["-Wl,--build-id", "-ldl"]);
    let mut cmd_env = vec![("CALLTRACE_OUT", "trace.txt")];
    let arg = "./lib sq.so";
    let run_with = |env: &[(&str, &str)]| {
        let out = Command::new(&exe)
            .arg(arg)
            .current_dir(&dir)
            .env_remove("CALLTRACE_CLOCK")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "12\n");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    };
    run_with(&cmd_env);
    let text = std::fs::read_to_string(dir.join("trace.txt")).unwrap();
    assert!(text.starts_with("# calltrace 1 text\n# base 0x"), "{text}");
    let maps = text_maps(&text);
    let exe_path = std::fs::canonicalize(&exe).unwrap();
    let lib_path = std::fs::canonicalize(&lib).unwrap();
    let find = |maps: &[Mapping], p: &Path| -> Mapping {
        let p = p.to_str().unwrap();
        let found: Vec<_> = maps.iter().filter(|m| m.path == p).cloned().collect();
        assert_eq!(found.len(), 1, "one executable mapping of {p} in {maps:?}");
        found[0].clone()
    };
    let m_exe = find(&maps, &exe_path);
    let m_lib = find(&maps, &lib_path);
    assert_eq!(m_exe.build_id, build_id(&exe_path));
    assert_eq!(m_lib.build_id, build_id(&lib_path));
    assert!(m_exe.build_id.is_some() && m_lib.build_id.is_some());
    assert!(maps.iter().any(|m| m.path.contains("libc.so")), "{maps:?}");
    // The lib's map comes before the events inside it; every entry falls
    // in a mapping.
    let lines: Vec<&str> = text.lines().collect();
    let lib_line = lines
        .iter()
        .position(|l| l.ends_with("/lib sq.so"))
        .unwrap();
    let mut in_lib = 0;
    for (i, l) in lines.iter().enumerate() {
        let Some(rest) = l.strip_prefix("E0x") else {
            continue;
        };
        let addr = u64::from_str_radix(rest.split(' ').next().unwrap(), 16).unwrap();
        let holder = maps.iter().find(|m| m.start <= addr && addr < m.end);
        assert!(holder.is_some(), "entry {l} outside every mapping");
        if holder.unwrap().path == m_lib.path {
            assert!(i > lib_line, "the lib's map precedes its events");
            in_lib += 1;
        }
    }
    assert_eq!(in_lib, 1, "lib_square entered once");

    cmd_env = vec![
        ("CALLTRACE_OUT", "trace.bin"),
        ("CALLTRACE_FORMAT", "binary"),
    ];
    run_with(&cmd_env);
    let read = read_binary(std::fs::read(dir.join("trace.bin")).unwrap(), false).unwrap();
    let bmaps = &read.meta.maps;
    assert_eq!(find(bmaps, &exe_path).build_id, m_exe.build_id);
    assert_eq!(find(bmaps, &lib_path).build_id, m_lib.build_id);
    assert_eq!(
        bmaps.iter().map(|m| &m.path).collect::<Vec<_>>(),
        maps.iter().map(|m| &m.path).collect::<Vec<_>>(),
        "text and binary record the same objects in the same order"
    );
    let lib_entries = read
        .events
        .iter()
        .filter(|e| match read.funcs.key(e.func) {
            FuncKey::Addr(a) => {
                let m = find(bmaps, &lib_path);
                m.start <= *a && *a < m.end
            }
            _ => false,
        })
        .count();
    assert_eq!(lib_entries, 2, "lib_square's entry and exit");
}

/// Many short calls: several 32768-event blocks per trace.
const MANY_CALLS: &str = r#"
#include <stdio.h>
static volatile unsigned sink;
static void leaf(unsigned i) { sink += i; }
static void mid(unsigned i) { leaf(i); leaf(i + 1); }
int main(void) {
    for (unsigned i = 0; i < 60000; i++)
        mid(i);
    printf("%u\n", sink);
    return 0;
}
"#;

/// (offset, nevents, kind, payload length) of every record of a version-2
/// trace, by following the record lengths from the header.
fn records(bytes: &[u8]) -> Vec<(usize, u32, u8, usize)> {
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let mut pos = 28 + u32_at(24) as usize;
    let mut out = Vec::new();
    while pos < bytes.len() {
        assert_eq!(&bytes[pos..pos + 4], b"CTR\x1a", "record marker at {pos}");
        out.push((
            pos,
            u32_at(pos + 20),
            bytes[pos + 8],
            u32_at(pos + 24) as usize,
        ));
        pos += 28 + u32_at(pos + 24) as usize;
    }
    assert_eq!(pos, bytes.len());
    out
}

#[test]
fn a_damaged_block_of_a_real_trace_loses_only_its_own_events() {
    let dir = work("damaged");
    let exe = build(&dir, "many", MANY_CALLS, &[]);
    let out = Command::new(&exe)
        .current_dir(&dir)
        .env("CALLTRACE_OUT", "trace.bin")
        .env("CALLTRACE_FORMAT", "binary")
        .output()
        .unwrap();
    assert!(out.status.success());
    let good = std::fs::read(dir.join("trace.bin")).unwrap();
    let blocks: Vec<_> = records(&good).into_iter().filter(|r| r.2 == b'B').collect();
    assert!(blocks.len() >= 6, "{} blocks", blocks.len());
    let all = read_binary(good.clone(), false).unwrap();
    assert_eq!(
        all.events.len(),
        60000 * 6 + 2,
        "main, 60000 x (mid, 2 leaf)"
    );
    assert_eq!(
        all.events.len() as u64,
        blocks.iter().map(|b| b.1 as u64).sum::<u64>()
    );

    // Damage one block a third of the way in, in the middle of its payload.
    // Block sizes follow the writer thread's timing, so a block may be
    // small: the flipped byte must stay inside the chosen one.
    let (at, lost, _, len) = blocks[blocks.len() / 3..]
        .iter()
        .copied()
        .find(|b| b.3 >= 16)
        .expect("a block with a payload");
    let mut bad = good.clone();
    bad[at + 28 + len / 2] ^= 0xff;
    let err = read_binary(bad.clone(), false)
        .err()
        .expect("strict read fails");
    assert!(
        err.to_string().starts_with(&format!(
            "trace.bin: byte {at}: expected a record whose checksum"
        )),
        "{err}"
    );
    let read = read_binary(bad, true).unwrap();
    assert_eq!(read.events.len(), all.events.len() - lost as usize);
    assert_eq!(read.meta.skipped_lines, 1);
    assert_eq!(read.meta.maps, all.meta.maps);
    // Every event after the damaged block survives, in order.
    let key = |r: &Read, e: &Event| (format!("{:?}", r.funcs.key(e.func)), e.kind, e.time);
    let after: Vec<_> = read.events[read.events.len() - 1000..]
        .iter()
        .map(|e| key(&read, e))
        .collect();
    let expect: Vec<_> = all.events[all.events.len() - 1000..]
        .iter()
        .map(|e| key(&all, e))
        .collect();
    assert_eq!(after, expect);
}

#[test]
fn dev_zero_read_as_a_binary_trace_fails_at_once() {
    let start = std::time::Instant::now();
    let out = super::util::calltrace([
        "tree",
        "--format",
        "binary",
        "--trace",
        "/dev/zero",
        "-o",
        "-",
    ])
    .run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        // Devices are refused when opened, before any format reads them.
        out.stderr
            .contains("/dev/zero: is a device, not a trace file"),
        "{}",
        out.stderr
    );
    assert!(start.elapsed().as_secs() < 10);
}

/// Forks a child that calls `child_work`, then forks one that execs this
/// program again (which calls `leaf` once).
const FORKS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static int leaf(int x) { return x * 2; }
static int child_work(void) { return leaf(1) + leaf(2); }
static int spawn(char *self) {
    pid_t p = fork();
    if (p == 0) {
        if (self) { execl(self, self, "again", (char *)0); _exit(9); }
        exit(child_work() == 6 ? 0 : 1);
    }
    int st;
    waitpid(p, &st, 0);
    return WEXITSTATUS(st);
}
int main(int argc, char **argv) {
    if (argc > 1)
        return leaf(3) == 6 ? 0 : 1;
    int r = spawn(0) + spawn(argv[0]);
    printf("%d %d\n", r, leaf(5));
    return 0;
}
"#;

#[test]
fn forked_and_started_processes_write_their_own_trace_files() {
    let dir = work("forks");
    let exe = build(&dir, "forks", FORKS, &[]);
    for (format, ext) in [("text", "txt"), ("binary", "bin")] {
        let out = Command::new(&exe)
            .current_dir(&dir)
            .env("CALLTRACE_OUT", format!("trace.{ext}"))
            .env("CALLTRACE_FORMAT", format)
            .env_remove("CALLTRACE_OUT_TAKEN")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "0 10\n");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        let files = trace_files(&dir, ext);
        assert_eq!(files.len(), 3, "{files:?}");
        assert_eq!(files[2], format!("trace.{ext}"), "{files:?}");
        // Each file is one process: its thread id is the pid in its name,
        // and the calls are that process's own.
        let mut trees = Vec::new();
        for name in &files {
            let path = dir.join(name);
            let tree = super::util::tree(exe.to_str().unwrap(), &path, &["-o", "-"]);
            let pid = name
                .strip_prefix("trace.")
                .and_then(|n| n.strip_suffix(&format!(".{ext}")))
                .filter(|p| p.chars().all(|c| c.is_ascii_digit()));
            if let (Some(pid), "binary") = (pid, format) {
                let read = read_binary(std::fs::read(&path).unwrap(), false).unwrap();
                assert_eq!(read.meta.threads, vec![pid.parse::<u64>().unwrap()]);
            }
            trees.push(super::util::shape(&tree));
        }
        let main = &trees[2];
        assert!(
            main.contains("spawn") && !main.contains("child_work"),
            "{main}"
        );
        assert_eq!(main, "main\n  spawn\n  spawn\n  leaf\n");
        // The forked child starts with the frames it inherited; the program
        // it execs starts afresh.
        let child = "main\n  spawn\n    child_work\n      leaf\n      leaf\n";
        assert!(trees[..2].iter().any(|t| t == child), "{trees:?}");
        assert!(
            trees[..2].iter().any(|t| t == "main\n  leaf\n"),
            "{trees:?}"
        );
        for f in files {
            std::fs::remove_file(dir.join(f)).unwrap();
        }
    }
}

/// A trace that reaches the file size limit (`ulimit -f`) stops with a
/// message; the program goes on. SIGXFSZ used to kill it (exit 153) when
/// a traced thread wrote, or grew a binary trace for a thread's buffer.
#[test]
fn a_trace_over_the_file_size_limit_stops_and_the_program_goes_on() {
    let dir = work("file-size-limit");
    let exe = build(&dir, "waits", WAITS, &[]);
    for (format, writer) in [
        ("text", "0"),
        ("text", "1"),
        ("binary", "0"),
        ("binary", "1"),
    ] {
        let out = output_within(
            Command::new("sh")
                .arg("-c")
                .arg("ulimit -f 200 && exec \"$0\"")
                .arg(&exe)
                .current_dir(&dir)
                .env("CALLTRACE_OUT", format!("t-{format}-{writer}"))
                .env("CALLTRACE_FORMAT", format)
                .env("CALLTRACE_WRITER", writer),
            60,
        );
        assert!(out.status.success(), "{format}, writer {writer}: {out:?}");
        assert_eq!(out.stdout, b"200000\n");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("tracing stopped: File too large"),
            "{format}, writer {writer}: {stderr}"
        );
    }
}

/// `%%` in `CALLTRACE_OUT` is a `%`: `t%%p.txt` is the file `t%p.txt`,
/// not a name per process, so a forked child still gets a file of its own
/// (it used to be taken for `%p`: the child found the parent's file
/// locked and went untraced, or wrote into it).
#[test]
fn an_escaped_percent_p_names_one_file_and_children_get_their_own() {
    let dir = work("escaped-pid");
    let exe = build(&dir, "forks", FORKS, &[]);
    let out = Command::new(&exe)
        .current_dir(&dir)
        .env("CALLTRACE_OUT", "t%%p.txt")
        .env_remove("CALLTRACE_OUT_TAKEN")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0 10\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let files = files_of(&dir, "t%p", "txt");
    assert_eq!(files.len(), 3, "{files:?}");
    assert_eq!(files[2], "t%p.txt", "{files:?}");
    assert!(
        files[..2].iter().all(|f| f.starts_with("t%p.")),
        "{files:?}"
    );
    let main = super::util::tree(exe.to_str().unwrap(), &dir.join("t%p.txt"), &["-o", "-"]);
    assert_eq!(
        super::util::shape(&main),
        "main\n  spawn\n  spawn\n  leaf\n"
    );
}

/// `main -> a -> b -> fork()`, ten times, while a thread recurses; the
/// parent goes deep right after each fork.
const FORKS_DEEP: &str = r#"
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
volatile long sink;
__attribute__((noinline)) void rec(int d) { sink++; if (d > 0) rec(d - 1); sink++; }
__attribute__((noinline)) void c(void) { sink++; }
__attribute__((noinline)) pid_t b(void) { return fork(); }
__attribute__((noinline)) pid_t a(void) { return b(); }
static volatile int stop;
void *spin(void *x) { (void)x; while (!stop) rec(20); return 0; }
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, spin, 0);
    for (int i = 0; i < 10; i++) {
        pid_t p = a();
        if (p == 0) { c(); exit(0); }
        for (int k = 0; k < 2000; k++) rec(40);
        waitpid(p, 0, 0);
    }
    stop = 1;
    pthread_join(t, 0);
    return 0;
}
"#;

/// A binary trace's thread states are shared mappings of the parent's
/// file, which the parent goes on changing after fork(): the child used
/// to read its open frames from there (and start from `main` or from the
/// parent's later recursion) and to follow links of states that threads
/// of the parent had freed meanwhile (a crash). Every child's trace now
/// starts with the frames open at fork().
#[test]
fn a_forked_child_of_a_binary_trace_starts_with_the_frames_open_at_fork() {
    let dir = work("fork-binary-frames");
    let exe = build(&dir, "forkdeep", FORKS_DEEP, &["-pthread"]);
    let out = output_within(
        Command::new(&exe)
            .current_dir(&dir)
            .env("CALLTRACE_OUT", "t.bin")
            .env("CALLTRACE_FORMAT", "binary")
            .env_remove("CALLTRACE_OUT_TAKEN"),
        60,
    );
    assert!(out.status.success(), "{out:?}");
    let children: Vec<String> = files_of(&dir, "t", "bin")
        .into_iter()
        .filter(|n| n != "t.bin")
        .collect();
    assert_eq!(children.len(), 10, "{children:?}");
    for child in &children {
        let tree = super::util::tree(exe.to_str().unwrap(), &dir.join(child), &["-o", "-"]);
        assert_eq!(
            super::util::shape(&tree),
            "main\n  a\n    b\n  c\n",
            "{child}: {tree}"
        );
    }
}

/// A forked child that cannot open a file of its own (its name,
/// `NAME.<pid>.EXT`, is too long where the parent's is not) goes
/// untraced: it used to go on writing into the parent's file, so the
/// parent's trace held the child's calls.
#[test]
fn a_forked_child_without_a_file_of_its_own_leaves_the_parents_trace_alone() {
    let dir = work("fork-no-file");
    let exe = build(&dir, "forks", FORKS, &[]);
    for (format, ext) in [("text", "txt"), ("binary", "bin")] {
        // 254 bytes: NAME.<pid>.EXT passes the 255 a file name may have,
        // whatever the pid.
        let name = format!("{}.{ext}", "t".repeat(254 - ext.len() - 1));
        let out = Command::new(&exe)
            .current_dir(&dir)
            .env("CALLTRACE_OUT", &name)
            .env("CALLTRACE_FORMAT", format)
            .env_remove("CALLTRACE_OUT_TAKEN")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "0 10\n");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("cannot open trace file, tracing disabled"),
            "{format}: {stderr}"
        );
        let tree = super::util::tree(exe.to_str().unwrap(), &dir.join(&name), &["-o", "-"]);
        assert_eq!(
            super::util::shape(&tree),
            "main\n  spawn\n  spawn\n  leaf\n",
            "{format}: {tree}"
        );
        std::fs::remove_file(dir.join(&name)).unwrap();
    }
}

/// Run with `hold`, it calls `holder`, says so on stdout and keeps its
/// trace open until its stdin ends; run without, it calls `newcomer`.
const HOLDS: &str = r#"
#include <stdio.h>
#include <string.h>
static int holder(int x) { return x + 1; }
static int newcomer(int x) { return x * 2; }
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "hold") == 0) {
        printf("%d\n", holder(1));
        fflush(stdout);
        while (getchar() != EOF)
            ;
        return holder(2) == 3 ? 0 : 1;
    }
    printf("%d\n", newcomer(3));
    return 0;
}
"#;

/// Starts `exe hold` writing `trace` in `dir`; returns once it traces.
fn start_holder(exe: &Path, dir: &Path, trace: &str, format: &str) -> std::process::Child {
    use std::io::BufRead;
    let mut child = Command::new(exe)
        .arg("hold")
        .current_dir(dir)
        .env("CALLTRACE_OUT", trace)
        .env("CALLTRACE_FORMAT", format)
        .env_remove("CALLTRACE_OUT_TAKEN")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start the program");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "2\n");
    child
}

/// Runs `exe` (the newcomer) writing `trace` in `dir`; returns its pid.
fn run_newcomer(exe: &Path, dir: &Path, trace: &str, format: &str) -> u32 {
    let child = Command::new(exe)
        .current_dir(dir)
        .env("CALLTRACE_OUT", trace)
        .env("CALLTRACE_FORMAT", format)
        .env_remove("CALLTRACE_OUT_TAKEN")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the program");
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, b"6\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    pid
}

/// The `trace.*` files of `dir` with extension `ext`, sorted.
fn trace_files(dir: &Path, ext: &str) -> Vec<String> {
    files_of(dir, "trace", ext)
}

/// The files `STEM.EXT` and `STEM.<anything>.EXT` in `dir`, sorted.
fn files_of(dir: &Path, stem: &str, ext: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(&format!("{stem}.")) && n.ends_with(&format!(".{ext}")))
        .collect();
    files.sort();
    files
}

/// Two unrelated traced programs running at the same time with the same
/// output name (`./a | ./b`) used to write into one file, each from its own
/// offset: a damaged binary trace, mixed text lines.
#[test]
fn two_programs_running_at_once_with_one_output_name_write_separate_traces() {
    let dir = work("same-name-at-once");
    let exe = build(&dir, "holds", HOLDS, &[]);
    for (format, ext) in [("text", "txt"), ("binary", "bin")] {
        let trace = format!("trace.{ext}");
        let mut holder = start_holder(&exe, &dir, &trace, format);
        let pid = run_newcomer(&exe, &dir, &trace, format);
        drop(holder.stdin.take());
        assert!(holder.wait().unwrap().success());
        let own = format!("trace.{pid}.{ext}");
        assert_eq!(trace_files(&dir, ext), [own.as_str(), trace.as_str()]);
        for (name, mine, other) in [(&trace, "holder", "newcomer"), (&own, "newcomer", "holder")] {
            let tree = super::util::tree(exe.to_str().unwrap(), &dir.join(name), &["-o", "-"]);
            assert!(
                tree.contains(mine) && !tree.contains(other),
                "{format} {name}:\n{tree}"
            );
        }
        for f in trace_files(&dir, ext) {
            std::fs::remove_file(dir.join(f)).unwrap();
        }
    }
}

/// The file of an earlier run, here one whose program was killed while it
/// wrote (a lock dies with its process), is taken over in place: same file,
/// old content gone, no `NAME.<pid>.EXT`.
#[test]
fn a_trace_left_by_an_earlier_killed_run_is_overwritten_in_place() {
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;
    let dir = work("stale-trace");
    let exe = build(&dir, "holds", HOLDS, &[]);
    for (format, ext) in [("text", "txt"), ("binary", "bin")] {
        let trace = format!("trace.{ext}");
        let path = dir.join(&trace);
        let mut killed = start_holder(&exe, &dir, &trace, format);
        killed.kill().unwrap();
        killed.wait().unwrap();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&b"stale junk\n".repeat(100_000)).unwrap();
        drop(f);
        let inode = std::fs::metadata(&path).unwrap().ino();
        run_newcomer(&exe, &dir, &trace, format);
        assert_eq!(trace_files(&dir, ext), [trace.as_str()]);
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
        let bytes = std::fs::read(&path).unwrap();
        assert!(!bytes.windows(10).any(|w| w == b"stale junk"), "{format}");
        let tree = super::util::tree(exe.to_str().unwrap(), &path, &["-o", "-"]);
        assert!(
            tree.contains("newcomer") && !tree.contains("holder"),
            "{format}:\n{tree}"
        );
        std::fs::remove_file(&path).unwrap();
    }
}

/// Its first traced call comes from `.preinit_array`, before libc has set
/// up the environment.
const PREINIT: &str = r#"
#include <stdio.h>
static int early_leaf(int x) { return x + 1; }
static void early(int argc, char **argv, char **envp) {
    (void)argc; (void)argv; (void)envp;
    early_leaf(1);
}
__attribute__((section(".preinit_array"), used)) static void (*pre)(int, char **, char **) = early;
__attribute__((constructor(102))) static void ctor(void) { early_leaf(2); }
int main(void) { printf("%d\n", early_leaf(3)); return 0; }
"#;

#[test]
fn settings_are_read_when_the_first_call_comes_from_preinit_array() {
    let dir = work("preinit");
    for (name, flags) in [("dynamic", &[][..]), ("static", &["-static"][..])] {
        let exe = build(&dir, name, PREINIT, flags);
        let out = Command::new(&exe)
            .current_dir(&dir)
            .env("CALLTRACE_OUT", format!("{name}.bin"))
            .env("CALLTRACE_FORMAT", "binary")
            .env("CALLTRACE_CLOCK", "none")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "4\n");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        assert!(
            !dir.join("trace.txt").exists(),
            "{name}: the default name was used"
        );
        let read = read_binary(
            std::fs::read(dir.join(format!("{name}.bin"))).unwrap(),
            false,
        )
        .unwrap();
        assert!(!read.meta.timed, "{name}: CALLTRACE_CLOCK=none was seen");
        assert_eq!(
            read.events.len(),
            12,
            "{name}: early, ctor, main and 3 leaves, entered and left"
        );
    }
}

/// 100000 calls of `leaf` (more than one buffer's worth of events), then
/// the process ends the way argv[1] says.
const DIES: &str = r#"
#include <assert.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int leaf(int x) { return x + 1; }
static void work(const char *how) {
    for (int i = 0; i < 100000; i++)
        leaf(i);
    if (!strcmp(how, "_exit")) _exit(3);
    if (!strcmp(how, "_Exit")) _Exit(3);
    if (!strcmp(how, "abort")) abort();
    if (!strcmp(how, "assert")) assert(!"dies");
    if (!strcmp(how, "kill")) kill(getpid(), SIGKILL);
    if (!strcmp(how, "segv")) *(volatile int *)0 = 1;
}
int main(int argc, char **argv) { work(argc > 1 ? argv[1] : ""); return 0; }
"#;

#[test]
fn events_recorded_before_exit_abort_sigkill_or_a_crash_survive() {
    let dir = work("dies");
    let exe = build(&dir, "dies", DIES, &[]);
    let ways = [
        ("_exit", Some(3)),
        ("_Exit", Some(3)),
        ("abort", None),
        ("assert", None),
        ("kill", None),
        ("segv", None),
    ];
    for (how, code) in ways {
        // Untimed binary rings hold 8-byte events, timed ones 16.
        for (format, clock, ext) in [
            ("binary", "auto", "bin"),
            ("binary", "none", "untimed.bin"),
            ("text", "auto", "txt"),
        ] {
            if format == "text" && matches!(how, "assert" | "kill" | "segv") {
                continue; // only binary traces keep their buffers in the file
            }
            let trace = dir.join(format!("{how}.{ext}"));
            let out = Command::new(&exe)
                .arg(how)
                .current_dir(&dir)
                .env("CALLTRACE_OUT", &trace)
                .env("CALLTRACE_FORMAT", format)
                .env("CALLTRACE_CLOCK", clock)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), code, "{how}");
            let entries = if format == "binary" {
                let read = read_binary(std::fs::read(&trace).unwrap(), false)
                    .unwrap_or_else(|e| panic!("{how}: {e}"));
                read.events
                    .iter()
                    .filter(|e| e.kind == calltrace::ingest::EventKind::Enter)
                    .count()
            } else {
                let text = std::fs::read_to_string(&trace).unwrap();
                text.lines().filter(|l| l.starts_with('E')).count()
            };
            assert_eq!(
                entries, 100002,
                "{how}, {format}, clock {clock}: main, work and every leaf"
            );
        }
    }
}

/// Calls `a` forever, `b` from every third `a` and `c` from every seventh:
/// a pattern that a lost or repeated stretch of events cannot keep.  It
/// says when it is well under way.
const FOREVER: &str = r#"
#include <stdio.h>
__attribute__((noinline)) static void b(void) { __asm__ volatile(""); }
__attribute__((noinline)) static void c(void) { __asm__ volatile(""); }
__attribute__((noinline)) static void a(unsigned long i) {
    if (i % 3 == 0) b();
    if (i % 7 == 0) c();
}
int main(void) {
    for (unsigned long i = 0;; i++) {
        a(i);
        if (i == 300000) { puts("going"); fflush(stdout); }
    }
}
"#;

/// Checks that `events` are FOREVER's: main's entry, then a prefix of its
/// calls of a, b and c, each event once.  Returns how many `a` calls began.
fn forever_prefix(events: &[Event], what: &str) -> u64 {
    use calltrace::ingest::EventKind::{Enter, Exit};
    let mut calls = std::collections::HashMap::<_, u64>::new();
    for e in events.iter().filter(|e| e.kind == Enter) {
        *calls.entry(e.func).or_default() += 1;
    }
    let mut by_count: Vec<_> = calls.iter().map(|(f, n)| (*n, *f)).collect();
    by_count.sort();
    let [(1, main), (_, c), (_, b), (_, a)] = by_count[..] else {
        panic!("{what}: main, c, b and a, found {by_count:?}")
    };
    assert_eq!((events[0].kind, events[0].func), (Enter, main), "{what}");
    let mut expect = Vec::new();
    let mut at = 1;
    for i in 0u64.. {
        expect.clear();
        expect.push((Enter, a));
        if i % 3 == 0 {
            expect.extend([(Enter, b), (Exit, b)]);
        }
        if i % 7 == 0 {
            expect.extend([(Enter, c), (Exit, c)]);
        }
        expect.push((Exit, a));
        for &want in &expect {
            let Some(e) = events.get(at) else {
                return i + 1;
            };
            assert_eq!((e.kind, e.func), want, "{what}: event {at} (call {i} of a)");
            at += 1;
        }
    }
    unreachable!()
}

#[test]
fn a_process_killed_at_any_moment_leaves_every_event_once() {
    use std::io::BufRead;
    let dir = work("killed");
    let exe = build(&dir, "forever", FOREVER, &[]);
    // The writer thread writes its blocks some at a time: a kill can come
    // with blocks staged, half written, or written but not yet noted in
    // the rings that the file keeps.
    for (clock, wait_ms) in [
        ("none", 0),
        ("none", 9),
        ("none", 31),
        ("auto", 4),
        ("auto", 17),
    ] {
        let what = format!("clock {clock}, killed {wait_ms} ms after");
        let trace = dir.join(format!("killed-{clock}-{wait_ms}.bin"));
        let mut child = Command::new(&exe)
            .env("CALLTRACE_OUT", &trace)
            .env("CALLTRACE_FORMAT", "binary")
            .env("CALLTRACE_CLOCK", clock)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "going\n");
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let read = read_binary(std::fs::read(&trace).unwrap(), false)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let calls = forever_prefix(&read.events, &what);
        assert!(calls > 300_000, "{what}: {calls} calls of a");
    }
}

/// Threads that call `f` in a loop while a 20 us timer of their own runs a
/// signal handler (`on_sig`, which calls `h`) on them, until and while
/// they exit; the program counts the handler's runs.
const TICKS: &str = r#"
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
static volatile long handled;
__attribute__((noinline)) static void h(void) { __asm__ volatile(""); }
static void on_sig(int s) { (void)s; h(); __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED); }
__attribute__((noinline)) static int f(int x) { __asm__ volatile(""); return x + 1; }
static void *run(void *arg) {
    sigset_t u; sigemptyset(&u); sigaddset(&u, SIGUSR1); pthread_sigmask(SIG_UNBLOCK, &u, 0);
    long n = (long)arg; int s = 0;
    struct sigevent sev = {0};
    timer_t tm;
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGUSR1;
    sev._sigev_un._tid = syscall(SYS_gettid);
    timer_create(CLOCK_MONOTONIC, &sev, &tm);
    struct itimerspec its = {{0, 20000}, {0, 20000}};
    timer_settime(tm, 0, &its, 0);
    for (long i = 0; i < n; i++) s += f(i);
    return (void *)tm;  /* still armed as the thread exits */
}
int main(int argc, char **argv) {
    int waves = atoi(argv[1]), width = atoi(argv[2]); long calls = atol(argv[3]);
    struct sigaction sa = {0};
    sa.sa_handler = on_sig; sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, 0);
    sigset_t set; sigemptyset(&set); sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, 0);  /* main does not take them */
    for (int w = 0; w < waves; w++) {
        pthread_t t[64]; void *tm[64];
        for (int i = 0; i < width; i++) { pthread_create(&t[i], 0, (void*(*)(void*))run, (void*)calls); }
        for (int i = 0; i < width; i++) { pthread_join(t[i], &tm[i]); timer_delete((timer_t)tm[i]); }
    }
    fprintf(stderr, "handled %ld\n", handled);
    return 0;
}
"#;

/// The `xN` call counts of the lines of `name` in a `tree --view contexts`.
fn calls_of(tree: &str, name: &str) -> u64 {
    tree.lines()
        .filter(|l| l.trim_start().starts_with(&format!("{name} (")))
        .map(|l| match l.rsplit_once(" x") {
            Some((_, n)) if n.bytes().all(|b| b.is_ascii_digit()) => n.parse::<u64>().unwrap(),
            _ => 1,
        })
        .sum()
}

#[test]
fn signal_handler_calls_while_threads_exit_are_traced_or_counted_as_dropped() {
    let dir = work("exit-signals");
    let exe = build(&dir, "ticks", TICKS, &["-lrt", "-lpthread"]);
    for format in ["binary", "text"] {
        let trace = dir.join(format!("ticks.{format}"));
        // Bounded in time and in output (`ulimit -f`, in 512- or 1024-byte
        // blocks): it once ran for minutes and wrote gigabytes.
        let out = output_within(
            Command::new("sh")
                .arg("-c")
                .arg("ulimit -f 262144 && exec \"$0\" \"$@\"")
                .arg(&exe)
                .args(["12", "4", "20000"])
                .env("CALLTRACE_OUT", &trace)
                .env("CALLTRACE_FORMAT", format),
            120,
        );
        assert!(out.status.success(), "{format}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let number_after = |what: &str| {
            stderr.split_once(what).map_or(0, |(_, rest)| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<u64>().unwrap()
            })
        };
        let handled = number_after("handled ");
        let dropped = number_after("interrupted the tracer): ");
        let tree = super::util::tree(exe.to_str().unwrap(), &trace, &["--view", "contexts"]);
        let (on_sig, h) = (calls_of(&tree, "on_sig"), calls_of(&tree, "h"));
        assert!(handled > 100, "{format}: {stderr}");
        // Each run of the handler is four events (on_sig and h, in and
        // out): in the trace, or counted in the warning. Handlers that ran
        // while a thread wrote its ring at exit were lost without a word.
        assert!(
            dropped * 10 <= 4 * handled,
            "{format}: {dropped} events dropped"
        );
        assert_eq!(
            4 * handled,
            2 * (on_sig + h) + dropped,
            "{format}: handled {handled}, traced on_sig {on_sig} and h {h}, dropped {dropped} events"
        );
    }
}

/// An "interpreter" reporting the calls of its own methods through
/// calltrace.h, on two threads.
const INTERP: &str = r#"
#include <pthread.h>
#include <stdio.h>
#include "calltrace.h"
static uint32_t m_main, m_fib, m_print;
static int fib(int n) {
    ct_enter(m_fib);
    int r = n < 2 ? n : fib(n - 1) + fib(n - 2);
    ct_exit(m_fib);
    return r;
}
static void *worker(void *a) {
    (void)a;
    ct_thread_name("worker");
    ct_enter(m_main);
    fib(2);
    ct_exit(m_main);
    ct_thread_end();
    return 0;
}
int main(void) {
    m_main = ct_method_register("main", "script.lua", 1);
    m_fib = ct_method_register("fib", "script.lua", 5);
    m_print = ct_method_register("print", NULL, 0);
    ct_enter(m_main);
    int r = fib(3);
    ct_enter(m_print);
    printf("%d\n", r);
    ct_exit(m_print);
    ct_exit(m_main);
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    return 0;
}
"#;

#[test]
fn interpreter_methods_registered_through_the_header_get_their_names() {
    let dir = work("interp");
    let header = super::util::calltrace(["runtime", "--header"])
        .run()
        .success();
    std::fs::write(dir.join("calltrace.h"), &header.stdout).unwrap();
    let exe = build(
        &dir,
        "interp",
        INTERP,
        &["-pthread", "-I", dir.to_str().unwrap()],
    );
    let out = Command::new(&exe)
        .current_dir(&dir)
        .env("CALLTRACE_OUT", "trace.bin")
        .env("CALLTRACE_FORMAT", "binary")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let tree = super::util::tree(exe.to_str().unwrap(), &dir.join("trace.bin"), &["-o", "-"]);
    let shape = super::util::shape(&tree);
    let threads: Vec<&str> = shape.split("\n[").collect();
    assert_eq!(threads.len(), 2, "{shape}");
    assert!(threads[0].starts_with("[thread "), "{shape}");
    assert!(
        threads[1].starts_with("worker]\n"),
        "ct_thread_name: {shape}"
    );
    let body = |t: &str| t.split_once('\n').unwrap().1.trim_end().to_string();
    // Methods nest among the (instrumented) C functions that run them.
    let (m, f) = ("main@script.lua:1", "fib@script.lua:5");
    let expect_main = [
        "main",
        "  M",
        "    fib",
        "      F",
        "        fib",
        "          F",
        "            fib",
        "              F",
        "            fib",
        "              F",
        "        fib",
        "          F",
        "    print",
    ];
    let expect_worker = [
        "worker",
        "  M",
        "    fib",
        "      F",
        "        fib",
        "          F",
        "        fib",
        "          F",
    ];
    let render = |lines: &[&str]| -> String {
        lines
            .iter()
            .map(|l| format!("  {}\n", l.replace('M', m).replace('F', f)))
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    assert_eq!(body(threads[0]), render(&expect_main));
    assert_eq!(body(threads[1]), render(&expect_worker));
}

/// Runs `exe run` with CALLTRACE_LOSSY=1 and a trace of `format` into a
/// FIFO that is read only once the program is done: the program fills the
/// pipe long before, and must not wait (any wait would never end, so the
/// program gets a deadline). Its output, and the bytes the FIFO held.
fn lossy_run(dir: &Path, exe: &Path, format: &str) -> (std::process::Output, Vec<u8>) {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let fifo = dir.join("trace.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(0o4000) // O_NONBLOCK: do not wait for a writer
        .open(&fifo)
        .unwrap();
    let out = output_within(
        Command::new(exe)
            .arg("run")
            .current_dir(dir)
            .env("CALLTRACE_OUT", &fifo)
            .env("CALLTRACE_FORMAT", format)
            .env("CALLTRACE_LOSSY", "1"),
        60,
    );
    assert!(out.status.success());
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).unwrap();
    (out, bytes)
}

#[test]
fn lossy_tracing_drops_events_instead_of_waiting_for_a_slow_reader_and_counts_them() {
    let dir = work("lossy");
    let exe = build(&dir, "dies", DIES, &[]);
    let (out, bytes) = lossy_run(&dir, &exe, "text");
    let text = String::from_utf8(bytes).unwrap();
    let events = text.lines().filter(|l| l.starts_with(['E', 'X'])).count() as u64;
    let dropped: u64 = text
        .lines()
        .filter_map(|l| l.strip_prefix("# dropped "))
        .map(|n| n.parse::<u64>().unwrap())
        .sum();
    assert!(
        events > 0 && events < 100_000,
        "the pipe (64 KiB to 1 MiB) holds part: {events}"
    );
    // Gaps are noted in the trace while it is writable; the total (the
    // final note may not fit) goes to stderr.
    assert!(events + dropped <= 200_004);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("(CALLTRACE_LOSSY=1): {}", 200_004 - events)),
        "{stderr}"
    );
}

#[test]
fn lossy_binary_tracing_never_waits_and_its_trace_reads_back_with_the_gap_reported() {
    let dir = work("lossy-binary");
    // 2,000,000 calls: about 10 MB of binary trace, ten 1 MiB pipes.
    let exe = build(&dir, "dies", &DIES.replace("100000", "2000000"), &[]);
    let (out, bytes) = lossy_run(&dir, &exe, "binary");
    let trace = dir.join("trace.bin");
    std::fs::write(&trace, &bytes).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let dropped: u64 = stderr
        .split("(CALLTRACE_LOSSY=1): ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no dropped count: {stderr}"));
    assert!(dropped > 0 && dropped < 4_000_004, "{dropped}");
    let read = super::util::calltrace([
        "tree",
        "--trace",
        trace.to_str().unwrap(),
        exe.to_str().unwrap(),
        "-o",
        "-",
    ])
    .run()
    .success();
    // The pipe stayed full to the end, so the gap's note could not be
    // written: the reader closes the frames left open instead.
    assert!(
        read.stderr.contains("still open at the end"),
        "{}",
        read.stderr
    );
    let text = read.text();
    let leaves = text
        .lines()
        .filter(|l| l.trim_start().starts_with("leaf "))
        .count() as u64;
    // Each whole block that fit holds complete events; what fit plus what
    // was dropped is at most everything.
    assert!(leaves > 1000, "{leaves}");
    assert!(2 * leaves + dropped <= 4_000_004, "{leaves} + {dropped}");
}

/// Encodes events with the runtime's own text encoder: its timestamps
/// (steps of a few ns, jumps across multiples of 10^4 and 10^8, 0, the largest) and
/// addresses, as `addr tk` lines in `events.txt`; the text on stdout.
const TEXT_ENCODER: &str = r#"
#include "calltrace.c"
#include <stdio.h>
static struct ct_ev ev[300000];
static unsigned char out[1 << 24];
int main(void) {
    uint64_t x = 88172645463325252ull, t = 0, last = 0;
    uint64_t fixed[] = {0, 1, 9, 10, 9999, 10000, 10001, 19999, 99999999, 100000000, 100000001, 199999999, 200000000,
                        999999999999ull, 1000000000000ull, 12345678901234ull, 9223372036854775807ull, 5};
    uint32_t n = 0, used, i;
    char tidtxt[32];
    uint32_t tidlen = ct_tidtxt(tidtxt, 4242);
    FILE *f = fopen("events.txt", "w");
    for (i = 0; i < sizeof fixed / sizeof *fixed; i++, n++) {
        ev[n].addr = 0x401000 + 16 * i;
        ev[n].tk = fixed[i] | ((uint64_t)(i & 1) << 63);
    }
    for (t = 0; n < 300000; n++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        t += x % 5 == 0 ? x % 300000000 : x % 50;
        ev[n].addr = 0x55d4c3a2b000ull + (x >> 40) % 4096;
        ev[n].tk = t | ((x & 1) << 63);
    }
    for (i = 0; i < n; i++)
        fprintf(f, "%llx %llu\n", (unsigned long long)ev[i].addr, (unsigned long long)ev[i].tk);
    fclose(f);
    ct_binary = 0;
    ct_t0 = 0; /* times are ns since 0 */
    fwrite(out, 1, ct_encode(ev, n, 4242, tidtxt, tidlen, 0, &last, out, sizeof out, &used, NULL), stdout);
    return used == n ? 0 : 3;
}
"#;

#[test]
fn text_lines_are_formatted_like_printf_for_every_timestamp() {
    let dir = work("text-encoder");
    std::fs::write(dir.join("enc.c"), TEXT_ENCODER).unwrap();
    let exe = dir.join("enc");
    compile(
        Command::new("gcc")
            .args(["-O2", "-w", "-I"])
            .arg(root().join("runtime"))
            .arg(dir.join("enc.c"))
            .arg("-o")
            .arg(&exe),
    );
    let out = output_within(Command::new(&exe).current_dir(&dir), 60);
    assert!(out.status.success(), "{out:?}");
    // The same lines formatted here: times never decrease within a thread.
    let events = std::fs::read_to_string(dir.join("events.txt")).unwrap();
    let mut want = String::new();
    let mut prev = 0u64;
    for line in events.lines() {
        let (addr, tk) = line.split_once(' ').unwrap();
        let tk: u64 = tk.parse().unwrap();
        prev = prev.max(tk & (u64::MAX >> 1));
        let kind = if tk >> 63 == 1 { 'X' } else { 'E' };
        want.push_str(&format!("{kind}0x{addr} {prev} 4242\n"));
    }
    assert_eq!(events.lines().count(), 300_000);
    let got = String::from_utf8(out.stdout).unwrap();
    if got != want {
        let at = got.lines().zip(want.lines()).position(|(a, b)| a != b);
        panic!("first different line {at:?} of {}", want.lines().count());
    }
}

/// 200,000 calls of a trivial leaf: far more events than a ring holds.
const WAITS: &str = r#"
#include <stdio.h>
__attribute__((noinline)) static int leaf(int x) { return x + 1; }
int main(void) {
    int s = 0;
    for (int i = 0; i < 200000; i++)
        s = leaf(s);
    printf("%d\n", s);
    return 0;
}
"#;

/// Runs `exe` with its text trace going to a FIFO whose reader stops for
/// 400 ms after the first 64 KiB: the program waits in the runtime (its
/// ring full, the writer held up by the pipe). Returns main's total (ns)
/// in the trace.
fn main_total_with_a_stalled_reader(dir: &Path, exe: &Path, keep_waits: bool) -> u64 {
    use std::io::Read;
    let fifo = dir.join(format!("trace-{keep_waits}.fifo"));
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut cmd = Command::new(exe);
    cmd.env("CALLTRACE_OUT", &fifo)
        .stdout(std::process::Stdio::null());
    if keep_waits {
        cmd.env("CALLTRACE_WAITS", "keep");
    }
    let mut child = cmd.spawn().expect("run the program");
    let mut reader = std::fs::File::open(&fifo).unwrap();
    let mut bytes = vec![0; 64 << 10];
    reader.read_exact(&mut bytes).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    reader.read_to_end(&mut bytes).unwrap();
    assert!(child.wait().unwrap().success());
    let trace = dir.join(format!("trace-{keep_waits}.txt"));
    std::fs::write(&trace, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_calltrace"))
        .args(["tree", "--view", "contexts", "--time-unit", "ns", "--trace"])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let main = text
        .lines()
        .find(|l| l.starts_with("main ("))
        .expect("main");
    let total = main
        .split(" / ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .expect("main (self / total)");
    assert!(text.contains("  leaf ("), "{text}");
    total.parse().unwrap()
}

/// The time a thread waits in the runtime (here 400 ms for a stalled
/// reader of its trace) is not the program's: it is taken out of the
/// thread's event times, so no function's time holds it, unless
/// CALLTRACE_WAITS=keep.
#[test]
fn waits_in_the_runtime_are_taken_out_of_event_times() {
    let dir = work("waits");
    let exe = build(&dir, "waits", WAITS, &[]);
    let taken_out = main_total_with_a_stalled_reader(&dir, &exe, false);
    let kept = main_total_with_a_stalled_reader(&dir, &exe, true);
    assert!(kept > 350_000_000, "the wait is in main's time: {kept} ns");
    assert!(
        taken_out < 250_000_000,
        "the wait is taken out: {taken_out} ns"
    );
    eprintln!("main: {taken_out} ns, {kept} ns with the waits kept");
}

/// A reader of the trace's FIFO (`calltrace live`) that quits half way:
/// the program goes on untraced and ends by itself, with a note, instead
/// of waiting forever for room in a pipe it was itself a reader of (it
/// opened the FIFO read-write), or being killed by SIGPIPE.
#[test]
fn a_program_goes_on_when_the_reader_of_its_trace_fifo_quits() {
    use std::io::Read;
    let dir = work("fifo-reader-quits");
    let exe = build(&dir, "waits", WAITS, &[]);
    // Without the writer thread (which blocks every signal) the program's
    // own thread writes, and a reader that leaves in the middle of its
    // write raises SIGPIPE on it though the write returns what it wrote.
    for (format, writer) in [
        ("text", "1"),
        ("binary", "1"),
        ("text", "0"),
        ("binary", "0"),
    ] {
        let fifo = dir.join(format!("{format}-{writer}.fifo"));
        let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut f = std::fs::File::open(fifo).unwrap();
                let mut head = vec![0; 4096];
                f.read_exact(&mut head).unwrap();
                head // dropped: the reader is gone
            })
        };
        let out = output_within(
            Command::new(&exe)
                .env("CALLTRACE_OUT", &fifo)
                .env("CALLTRACE_FORMAT", format)
                .env("CALLTRACE_WRITER", writer),
            60,
        );
        let head = reader.join().unwrap();
        assert!(head.starts_with(b"# calltrace") || head.starts_with(b"CALLTRC"));
        assert!(out.status.success(), "{format}, writer {writer}: {out:?}");
        assert_eq!(out.stdout, b"200000\n");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("the trace's reader has gone"),
            "{format}: {stderr}"
        );
    }
}

/// 64 threads alive at once, each making 200 calls and a thread that makes
/// 300 000 (more than a ring holds).
const MANY_THREADS: &str = r#"
#include <pthread.h>
#include <stdio.h>
static pthread_barrier_t all_up;
__attribute__((noinline)) int f(int x) { return x + 1; }
__attribute__((noinline)) int g(int x) { return x ^ 1; }
static void *few(void *a) {
    long s = 0;
    for (int i = 0; i < 200; i++) s += f(i);
    pthread_barrier_wait(&all_up);
    return (void *)s;
}
static void *many(void *a) {
    long s = 0;
    for (int i = 0; i < 300000; i++) s += g(i);
    pthread_barrier_wait(&all_up);
    return (void *)s;
}
int main(void) {
    pthread_t t[65];
    pthread_barrier_init(&all_up, 0, 65);
    for (int i = 0; i < 64; i++) pthread_create(&t[i], 0, few, 0);
    pthread_create(&t[64], 0, many, 0);
    for (int i = 0; i < 65; i++) pthread_join(t[i], 0);
    puts("ok");
    return 0;
}
"#;

/// A binary trace keeps each thread's buffer in the file, and reserves its
/// blocks as the thread fills it: 64 threads of 200 calls took 154 MB of
/// disk when every buffer was reserved whole at once (2.4 MB each).
#[test]
fn threads_that_make_few_calls_take_little_disk_in_a_binary_trace() {
    use std::os::unix::fs::MetadataExt;
    let dir = work("many-threads");
    let exe = build(&dir, "threads", MANY_THREADS, &["-lpthread"]);
    for clock in ["auto", "none"] {
        let trace = dir.join(format!("threads-{clock}.bin"));
        let out = output_within(
            Command::new(&exe)
                .env("CALLTRACE_OUT", &trace)
                .env("CALLTRACE_FORMAT", "binary")
                .env("CALLTRACE_CLOCK", clock),
            60,
        );
        assert!(out.status.success(), "{clock}: {out:?}");
        assert_eq!(out.stdout, b"ok\n");
        let on_disk = std::fs::metadata(&trace).unwrap().blocks() * 512;
        assert!(
            on_disk < 65 * 512 * 1024,
            "{clock}: the trace takes {on_disk} bytes of disk"
        );
        let tree = super::util::tree(exe.to_str().unwrap(), &trace, &["--view", "contexts"]);
        assert_eq!(calls_of(&tree, "f"), 64 * 200, "{clock}:\n{tree}");
        assert_eq!(calls_of(&tree, "g"), 300_000, "{clock}");
        assert_eq!(calls_of(&tree, "few"), 64, "{clock}");
    }
}
