//! The files of a uftrace recording as the reader meets them on disk: a
//! FIFO where a file should be (it would wait for a writer forever), a
//! recording of more threads than the open-file limit allows files, and
//! the writer of synthetic recordings that these tests and the scaling
//! tests (`DLOP` lines) use. The recordings are written here rather than
//! recorded by uftrace, so that their size is exact and the tests need no
//! tool; `uftrace_data.rs` checks the reader against real recordings.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use super::util::{BIN, fresh_dir, output_within};

/// The `info` file: uftrace's header (version 4, `.sym` addresses relative
/// to their object), then the executable's name.
fn info() -> Vec<u8> {
    let mut b = b"Ftrace!\0".to_vec();
    b.extend(4u32.to_le_bytes());
    b.extend(40u16.to_le_bytes());
    b.extend([1, 2]);
    b.extend((1u64 << 5).to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend([0; 8]);
    b.extend(b"exename:/nonexistent/app\n");
    b
}

/// A 16-byte record: an entry (`exit` false) or exit at `addr`.
fn record(out: &mut Vec<u8>, time: u64, exit: bool, addr: u64) {
    let word = u64::from(exit) | 5 << 3 | addr << 16;
    out.extend(time.to_le_bytes());
    out.extend(word.to_le_bytes());
}

/// Where the app is mapped, and its functions (named by PLT entries of
/// its `.sym` file, so no ELF file is needed).
const APP: u64 = 0x10000;
const MAIN: u64 = APP + 0x1100;
const WORK: u64 = APP + 0x1200;
/// The address of the n-th library loaded with dlopen, and its function.
fn lib_base(i: usize) -> u64 {
    0x1_0000_0000 + i as u64 * 0x10000
}
const PLUG: u64 = 0x100;

/// Writes a recording into `dir` (created): `threads` threads (ids 1000
/// on), each calling `main` and, inside it, `work` `calls` times; thread
/// 1000 also loads `dlopens` libraries with dlopen (one `DLOP` line each,
/// three library files in turn) and calls `plug` in each right after.
pub(super) fn write_recording(dir: &Path, threads: usize, calls: usize, dlopens: usize) {
    std::fs::create_dir_all(dir).expect("create the recording");
    let file = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).expect(name);
    file("info", &info());
    let mut tasks =
        String::from("SESS timestamp=0.000000001 pid=1000 sid=00ab exename=\"/nonexistent/app\"\n");
    for t in 0..threads {
        writeln!(
            tasks,
            "TASK timestamp=0.000000002 tid={} pid=1000",
            1000 + t
        )
        .unwrap();
    }
    for i in 0..dlopens {
        let (time, lib) = (10 * i as u64 + 5, dir.join(format!("lib{}.so", i % 3)));
        writeln!(
            tasks,
            "DLOP timestamp={}.{:09} tid=1000 sid=00ab base={:x} libname=\"{}\"",
            time / 1_000_000_000,
            time % 1_000_000_000,
            lib_base(i),
            lib.display()
        )
        .unwrap();
    }
    file("task.txt", tasks.as_bytes());
    let map = format!(
        "{APP:08x}-{:08x} r-xp 00000000 08:01 12 /nonexistent/app\n",
        APP + 0x5000
    );
    file("sid-00ab.map", map.as_bytes());
    file(
        "app.sym",
        b"0000000000001100 P main\n0000000000001200 P work\n",
    );
    for lib in 0..3 {
        // 4 KiB long, so the libraries' ranges do not overlap.
        file(&format!("lib{lib}.so"), &[0; 4096]);
        file(
            &format!("lib{lib}.so.sym"),
            format!("{PLUG:016x} P plug\n").as_bytes(),
        );
    }
    let end = 10 * (calls.max(dlopens) as u64) + 10;
    for t in 0..threads {
        let mut dat = Vec::new();
        record(&mut dat, 1, false, MAIN);
        for c in 0..calls as u64 {
            record(&mut dat, 10 * c + 7, false, WORK);
            record(&mut dat, 10 * c + 8, true, WORK);
        }
        if t == 0 {
            for i in 0..dlopens {
                let (time, plug) = (10 * i as u64 + 6, lib_base(i) + PLUG);
                record(&mut dat, time, false, plug);
                record(&mut dat, time + 3, true, plug);
            }
            // (the dlopen calls interleave with the work calls in time)
            sort_records(&mut dat);
        }
        record(&mut dat, end, true, MAIN);
        file(&format!("{}.dat", 1000 + t), &dat);
    }
}

/// Sorts 16-byte records by time, entries before exits at one time.
fn sort_records(dat: &mut Vec<u8>) {
    let mut recs: Vec<[u8; 16]> = dat.chunks(16).map(|r| r.try_into().unwrap()).collect();
    let key = |r: &[u8; 16]| (u64::from_le_bytes(r[..8].try_into().unwrap()), r[8] & 1);
    recs.sort_by_key(key);
    *dat = recs.concat();
}

/// `calltrace ARGS` within 60 s: a reader that blocks fails the test.
fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    output_within(Command::new(BIN).args(args), 60)
}

/// `calltrace graph --csv` of the recording at `data`, as (caller,
/// callee, calls) edges, with its standard error.
fn graph_edges(data: &Path) -> (Vec<String>, String) {
    let args = ["graph", "-o", "/dev/null", "--csv", "-", "--trace"];
    let mut args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    args.push(data.as_os_str());
    let out = run(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    (text.lines().skip(1).map(str::to_string).collect(), stderr)
}

/// Replaces `file` in `data` by a FIFO.
fn fifo_in_place_of(data: &Path, file: &str) {
    let path = data.join(file);
    let _ = std::fs::remove_file(&path);
    let made = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
    assert!(made.success());
}

#[test]
fn a_fifo_in_place_of_a_required_file_is_refused_naming_it() {
    for (file, what) in [
        ("task.txt", "uftrace's list of sessions and tasks"),
        (
            "sid-00ab.map",
            "the session's memory map as uftrace saved it",
        ),
        ("1001.dat", "a thread's records as uftrace wrote them"),
    ] {
        let data = fresh_dir("uftrace_files", &format!("fifo-{file}"));
        write_recording(&data, 2, 3, 0);
        fifo_in_place_of(&data, file);
        let out = run(&["tree".as_ref(), "--trace".as_ref(), data.as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        let want = format!(
            "{}: expected {what} (a regular file), found a FIFO",
            data.join(file).display()
        );
        assert!(stderr.contains(&want), "{file}: {stderr}");
    }
}

/// The `info` file tells a recording from another directory: a FIFO
/// there is not read, and the directory is no trace.
#[test]
fn a_fifo_in_place_of_the_info_file_is_not_waited_on() {
    let data = fresh_dir("uftrace_files", "fifo-info");
    write_recording(&data, 1, 1, 0);
    fifo_in_place_of(&data, "info");
    let out = run(&["tree".as_ref(), "--trace".as_ref(), data.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let want = format!("{}: is a directory; expected a trace file", data.display());
    assert!(stderr.contains(&want), "{stderr}");
}

#[test]
fn a_fifo_in_place_of_a_sym_file_is_left_out_with_a_warning() {
    let data = fresh_dir("uftrace_files", "fifo-sym");
    write_recording(&data, 1, 2, 0);
    let (named, _) = graph_edges(&data);
    assert!(named.iter().any(|e| e.contains("main,work,")), "{named:?}");
    fifo_in_place_of(&data, "app.sym");
    let (edges, stderr) = graph_edges(&data);
    let want = format!(
        "{}: expected uftrace's symbol list of an object (a regular file), found a FIFO",
        data.join("app.sym").display()
    );
    assert!(stderr.contains(&want), "{stderr}");
    // The calls are all there, under the names the ELF file would give
    // (none here: the app is not on disk).
    assert_eq!(edges.len(), named.len(), "{edges:?}");
    assert!(!edges.iter().any(|e| e.contains("work")), "{edges:?}");
}

/// The case: 1,500 threads, one `.dat` file each, read under an
/// open-file limit of 256 (all were opened at once: "Too many open files").
#[test]
fn a_recording_of_1500_threads_reads_under_an_open_file_limit_of_256() {
    let data = fresh_dir("uftrace_files", "threads-1500");
    // 1,100 calls a thread: two chunks of each file are read.
    write_recording(&data, 1500, 1100, 0);
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -n 256 && exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(["graph", "-o", "/dev/null", "--csv", "-", "--trace"])
        .arg(&data);
    let out = output_within(&mut cmd, 120);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let csv = String::from_utf8(out.stdout).expect("UTF-8");
    let count = |caller: &str, callee: &str| {
        csv.lines()
            .find_map(|l| l.strip_prefix(&format!("{caller},{callee},")))
            .and_then(|rest| rest.split(',').next())
            .unwrap_or_else(|| panic!("no edge {caller} -> {callee} in:\n{csv}"))
            .parse::<u64>()
            .expect("a call count")
    };
    assert_eq!(count("main", "work"), 1500 * 1100, "{csv}");
}
