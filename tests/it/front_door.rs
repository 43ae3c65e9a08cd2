//! Every command reads a trace through the pipeline's one front door
//! (BINARY checked, trace opened, format picked, then one read function):
//! so every command, and every path of a command (a tree, a tree through
//! the filters, a streamed export, a dataset's calls), says the same
//! things about the same trace. The commands are taken from
//! `calltrace help`, so a new command must be listed here, as a reader
//! of traces or as one that reads none.

use super::util::*;

/// A trace whose last line the program was cut off in.
const CUT: &str = "E main 1 1\nE f 2 1\nX f 3 1\nX mai";

/// What the front door adds to the error at a cut-off last line.
const HINT: &str = "the program was cut off while writing it (--lenient skips it)";

/// How each command that reads traces reads `cut.txt` (beside `ok.txt`
/// and a `p/` directory holding `cut.txt`), in each of its paths.
const READERS: &[(&str, &[&[&str]])] = &[
    (
        "graph",
        &[
            &["--trace", "cut.txt", "-o", "o.dot"],
            &["--trace", "cut.txt", "--tid", "1", "-o", "o.dot"],
        ],
    ),
    (
        "tree",
        &[
            &["--trace", "cut.txt"],
            &["--trace", "cut.txt", "--function", "f"],
        ],
    ),
    ("abstract", &[&["--trace", "cut.txt", "-o", "a.dot"]]),
    (
        "export",
        &[
            &["--trace", "cut.txt", "--to", "json", "-o", "e.json"],
            &["--trace", "cut.txt", "--to", "chrome", "-o", "c.json"],
            &[
                "--trace", "cut.txt", "--to", "chrome", "--tid", "1", "-o", "c.json",
            ],
            &[
                "--trace",
                "cut.txt",
                "--to",
                "tlv",
                "--threshold",
                "0.1",
                "-o",
                "t.log",
            ],
            &["--trace", "cut.txt", "--to", "parquet", "-o", "pq"],
            &[
                "--trace", "cut.txt", "--to", "parquet", "--view", "calls", "-o", "pq",
            ],
        ],
    ),
    ("compare", &[&["cut.txt", "ok.txt"], &["p"]]),
    ("coverage", &[&["cut.txt"], &["ok.txt", "cut.txt"]]),
    ("diff", &[&["ok.txt", "cut.txt"], &["cut.txt", "ok.txt"]]),
    (
        "stats",
        &[
            &["--trace", "cut.txt"],
            &["--trace", "cut.txt", "--tid", "1"],
        ],
    ),
    ("view", &[&["--trace", "cut.txt", "-o", "v.html"]]),
    (
        "info",
        &[
            &["--trace", "cut.txt"],
            &["--trace", "cut.txt", "--tid", "1", "--json"],
        ],
    ),
];

/// Commands that read no finished trace: they print something, or (`live`)
/// follow a trace still being written, whose last line is not yet complete.
const NOT_READERS: &[&str] = &["runtime", "live", "completions", "man", "help"];

#[test]
fn every_command_is_listed_as_a_reader_of_traces_or_not() {
    let commands = commands();
    assert!(commands.len() >= 10, "{commands:?}");
    for c in &commands {
        let known = READERS.iter().any(|(r, _)| r == c) || NOT_READERS.contains(&c.as_str());
        assert!(
            known,
            "`calltrace {c}` is new: add how it reads a trace to READERS (or to NOT_READERS)"
        );
    }
}

#[test]
fn every_path_of_every_command_says_a_cut_off_last_line_is_one() {
    let (dir, _) = temp_file("cut.txt", CUT);
    std::fs::write(dir.path().join("ok.txt"), "E main 1 1\nX main 2 1\n").unwrap();
    std::fs::create_dir(dir.path().join("p")).unwrap();
    std::fs::write(dir.path().join("p/cut.txt"), CUT).unwrap();
    let before = listing(dir.path());
    for (command, paths) in READERS {
        for args in *paths {
            let msg = calltrace([command])
                .args(*args)
                .current_dir(dir.path())
                .run()
                .failure();
            assert!(
                msg.contains("cut.txt:4: ") && msg.ends_with(HINT),
                "calltrace {command} {args:?}: {msg}"
            );
            assert_eq!(listing(dir.path()), before, "{command} {args:?} wrote");
        }
    }
}

/// Telling BINARY from TRACE looks at a file's first bytes only when it is
/// a regular file: `coverage` opened its first argument to read them, so
/// a trace in a FIFO lost its first bytes to that look and the read after
/// waited for a writer forever.
#[test]
fn coverage_reads_a_trace_from_a_fifo_given_first() {
    let program = hello_pie();
    let text = std::fs::read(&program.text_trace().path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("t");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let writer = std::thread::spawn({
        let fifo = fifo.clone();
        // Blocks until calltrace opens the FIFO to read it.
        move || std::fs::write(fifo, text)
    });
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(["coverage", "t"]).current_dir(dir.path());
    let out = output_within(&mut cmd, 60);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    writer.join().unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("main"), "{stdout}");
}
