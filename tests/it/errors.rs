//! Bad input: a clear error naming the file, the line and what was
//! expected, exit code 2, no output file, never a panic; `--lenient` skips
//! bad lines and says how many.

use super::util::*;

/// Runs `calltrace graph --trace trace.txt -o out.dot` on `text` and
/// returns the error; also checks that no output file was left behind.
#[track_caller]
fn graph_error(text: &[u8], extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("trace.txt"), text).unwrap();
    let out = calltrace(["graph", "--trace", "trace.txt", "-o", "out.dot"])
        .args(extra)
        .current_dir(dir.path())
        .run();
    assert_eq!(
        out.stderr.lines().count(),
        1,
        "one error line:\n{}",
        out.stderr
    );
    let msg = out.failure();
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["trace.txt"], "nothing written on error");
    msg
}

#[test]
fn bad_lines_name_the_file_the_line_and_what_was_expected() {
    let cases: &[(&str, &str)] = &[
        (
            "E0x10\nE0x20\nQ0x30\n",
            "trace.txt:3: expected an event line like `E0x401136` or `X0x401136`, found `Q0x30`",
        ),
        (
            // A bad line among the first lines used to guess the format.
            "E0x10\nQ0x20\nX0x10\n",
            "trace.txt:2: expected an event line like `E0x401136` or `X0x401136`, found `Q0x20`",
        ),
        (
            "E0x10\nX0xZZ\n",
            "trace.txt:2: expected a hex address after E/X, found `X0xZZ`",
        ),
        (
            "E0x10\nE0x20\nE0x30\nE0x40\nE main\n",
            "trace.txt:5: expected an address after E/X (use --format symbolic for traces of function names), found `E main`",
        ),
        (
            "E0x10 5 1\nX0x10 6\n",
            "trace.txt:2: expected a timestamp and a thread id after the function, as on line 1, found `X0x10 6`",
        ),
        (
            "E0x10 5\nX0x10 six\n",
            "trace.txt:2: expected a decimal timestamp, found `X0x10 six`",
        ),
        (
            "E0x10 5 1\nX0x10 6 one\n",
            "trace.txt:2: expected a decimal thread id, found `X0x10 6 one`",
        ),
        (
            "E0x10 1 2 3\n",
            "trace.txt:1: expected at most two columns after the function (timestamp, thread id), found `E0x10 1 2 3`",
        ),
        (
            "# base zz\nE0x10\nX0x10\n",
            "trace.txt:1: expected `# base 0xADDR [path]` with a hex address, found `# base zz`",
        ),
        (
            "\r\n# comment\nE main 1\nE f 2\r\nX f 3\n%%\nX main 4\n",
            "trace.txt:6: expected an event line like `E0x401136` or `X0x401136`, found `%%`",
        ),
        (
            "main (1 / 2)\n  f (1 / x)\n",
            "trace.txt:2: expected `name (self / total)`, found `f (1 / x)`",
        ),
        (
            "main (1 / 10)\n    f (1 / 1)\n  g (1 / 1)\n",
            "trace.txt:3: expected an indentation of an enclosing line, found 2 columns",
        ),
        (
            "main (1 / 2)\n  f (0.0000000001 / 1)\n",
            "trace.txt:2: expected at most 9 decimal places, found `0.0000000001 / 1`",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(
            &graph_error(text.as_bytes(), &[]),
            expected,
            "input:\n{text}"
        );
    }
}

#[test]
fn lenient_skips_bad_lines_and_reports_how_many() {
    let p = hello_pie();
    let clean = untimed(&p.text_trace().text());
    let mut lines: Vec<&str> = clean.lines().collect();
    lines.insert(10, "E0xnothex");
    lines.insert(20, "garbage");
    lines.insert(30, "X0x1 2 3 4");
    let dirty = lines.join("\n") + "\n";
    let (_d1, clean_path) = temp_file("clean.txt", &clean);
    let (_d2, dirty_path) = temp_file("trace.txt", &dirty);

    let msg = graph_error(dirty.as_bytes(), &[]);
    assert!(
        msg.starts_with("trace.txt:11: expected a hex address"),
        "{msg}"
    );

    let strict = graph(p.exe(), &clean_path);
    let out = calltrace(["graph", p.exe(), "--lenient", "-o", "-", "--trace"])
        .args([&dirty_path])
        .run()
        .success();
    assert_eq!(
        out.text(),
        strict.dot,
        "the bad lines are skipped, nothing else"
    );
    let warning = format!(
        "calltrace: warning: skipped 3 malformed line(s) (--lenient); first: {}:11: expected a hex address after E/X, found `E0xnothex`\n",
        dirty_path.display()
    );
    assert_eq!(out.stderr, warning);

    let tree_out = calltrace(["tree", p.exe(), "--lenient", "--trace"])
        .args([&dirty_path])
        .run()
        .success();
    assert_eq!(tree_out.text(), tree(p.exe(), &clean_path, &[]));
    assert!(tree_out.stderr.contains("skipped 3 malformed line(s)"));
}

#[test]
fn lenient_keeps_the_complete_events_of_a_torn_binary_trace() {
    // One block per thread; main's is written last, at process exit.
    let p = threads();
    let bytes = std::fs::read(&p.binary_trace().path).unwrap();
    let torn = &bytes[..bytes.len() - 3];
    let msg = graph_error(torn, &[]);
    assert!(msg.starts_with("trace.txt: byte "), "{msg}");
    assert!(msg.contains(": expected "), "{msg}");

    let (_d, path) = temp_file("torn.bin", torn);
    let out = calltrace([
        "tree",
        p.exe(),
        "--lenient",
        "--view",
        "contexts",
        "--trace",
    ])
    .args([&path])
    .run()
    .success();
    assert!(
        out.stderr.contains("skipped 1 malformed record(s)"),
        "{}",
        out.stderr
    );
    let text = out.text();
    assert!(
        text.contains("    leaf_a (") && text.contains("    leaf_b ("),
        "{text}"
    );
    assert!(
        text.starts_with("[thread ") && text.contains("\n  main ("),
        "main's torn block keeps its complete events: {text}"
    );
}

#[test]
fn a_trace_of_another_program_does_not_match_the_binary() {
    let (hello, other) = (hello_pie(), longjmp());
    let text = hello.text_trace().text();
    let base = text
        .lines()
        .find_map(|l| l.strip_prefix("# base "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_string();
    let without_maps: String = text
        .lines()
        .filter(|l| !l.starts_with("# map "))
        .map(|l| format!("{l}\n"))
        .collect();
    for (trace, how) in [
        (text.clone(), String::new()),
        (
            without_maps,
            format!("with the load base {base} from the trace header, "),
        ),
        (headerless(&text), String::new()),
    ] {
        let (_d, path) = temp_file("trace.txt", &trace);
        let out = calltrace(["graph", other.exe(), "-o", "-", "--trace"])
            .args([&path])
            .run();
        let expected = format!(
            "trace does not match binary {}: {how}none of its addresses falls on the binary's function starts",
            other.exe()
        );
        let msg = out.failure();
        assert!(msg.starts_with(&expected), "{msg}");
        if trace.contains("# base") {
            let recorded = format!("the trace was recorded from {}", hello.exe());
            assert!(msg.ends_with(&recorded), "{msg}");
        }
    }
}

#[test]
fn unusable_inputs_are_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| calltrace(args).current_dir(dir.path()).run().failure();
    assert!(
        run(&["graph"]).starts_with("trace.txt: No such file or directory"),
        "the default trace is named"
    );
    std::fs::write(dir.path().join("empty.txt"), "# nothing\n\n").unwrap();
    assert_eq!(
        run(&["tree", "--trace", "empty.txt"]),
        "empty.txt: the trace is empty (no events)"
    );
    std::fs::write(dir.path().join("prose.txt"), "hello world\n").unwrap();
    assert!(run(&["tree", "--trace", "prose.txt"]).starts_with(
        "prose.txt: cannot tell the trace format from `hello world`; expected E/X lines"
    ));
    std::fs::write(dir.path().join("t.txt"), "E0x10\nX0x10\n").unwrap();
    assert!(run(&["tree", "nosuch", "--trace", "t.txt"]).starts_with("nosuch: No such file"));
    assert_eq!(
        run(&["tree", "t.txt", "--trace", "t.txt"]),
        "t.txt is a trace; did you mean `--trace t.txt`?"
    );
    assert_eq!(
        run(&["tree", "--trace", "t.txt", "--format", "binary"]),
        "t.txt: byte 0: expected the magic `CALLTRC\\0` of a binary calltrace trace"
    );
    assert!(
        run(&["tree", "--trace", "t.txt", "--format", "indented"])
            .starts_with("t.txt:1: expected `name (self / total)`, found `E0x10`")
    );
    let out = calltrace(["tree", "--format", "xml"]).run();
    assert_eq!(out.code, 2, "clap rejects unknown formats");
    assert!(out.stderr.contains("xml"), "{}", out.stderr);
}

/// A small deterministic generator, so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn mangled_traces_never_panic() {
    let seeds: Vec<Vec<u8>> = vec![
        std::fs::read(data("symbolic", "trace.txt")).unwrap(),
        std::fs::read(data("fig1", "trace.txt")).unwrap(),
        b"E0x10 1 7\nE0x20 2 7\nE0x30 3 8\nX0x30 4 8\nX0x20 5 7\nX0x10 6 7\n".to_vec(),
        std::fs::read(&hello_pie().binary_trace().path).unwrap(),
    ];
    let mut rng = Lcg(0x5eed);
    for round in 0..160 {
        let seed = &seeds[round % seeds.len()];
        let mut bytes = seed.clone();
        for _ in 0..1 + rng.next(3) {
            let at = rng.next(bytes.len());
            match rng.next(4) {
                0 => {
                    let alphabet = b"EX0x \n(/)9#\t[";
                    bytes[at] = alphabet[rng.next(alphabet.len())];
                }
                1 => bytes.truncate(at),
                2 => bytes[at] ^= 1 << rng.next(8),
                _ => {
                    let len = rng.next(bytes.len() - at + 1).min(40);
                    let piece = bytes[at..at + len].to_vec();
                    bytes.splice(at..at, piece);
                }
            }
            if bytes.is_empty() {
                bytes.push(b'E');
            }
        }
        let lenient = round % 2 == 0;
        let mut args = vec!["graph", "--trace", "-", "-o", "-"];
        if lenient {
            args.push("--lenient");
        }
        let out = calltrace(&args).stdin(bytes.clone()).run();
        assert!(
            out.code == 0 || (out.code == 2 && out.stderr.starts_with("calltrace: error: ")),
            "round {round}: exit {} for {:?}:\n{}",
            out.code,
            String::from_utf8_lossy(&bytes),
            out.stderr
        );
        let out = calltrace(["tree", "--trace", "-", "--view", "contexts"])
            .stdin(bytes)
            .run();
        assert!(
            out.code == 0 || out.code == 2,
            "round {round}: exit {}",
            out.code
        );
    }
}

#[test]
fn broken_quoting_in_a_module_table_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.txt"), "E main\nE f\nX f\nX main\n").unwrap();
    std::fs::write(dir.path().join("m.csv"), "main,app\n\"f,io\ng,io\nh,io\n").unwrap();
    let msg = calltrace(["abstract", "--trace", "t.txt", "--modules", "m.csv"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert!(
        msg.starts_with("m.csv:2: ") && msg.contains("unterminated quote"),
        "{msg}"
    );
}

/// A text trace whose program was killed while writing its last line ends
/// without a line end: the error says so and points at --lenient, which
/// reads the lines before it. A bad line elsewhere gets no such note.
#[test]
fn a_cut_off_last_line_is_said_to_be_one() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| calltrace(args).current_dir(dir.path()).run();
    std::fs::write(
        dir.path().join("cut.txt"),
        "E0x10 1 1\nE0x20 2 1\nX0x20 3 1\nX0x1",
    )
    .unwrap();
    let msg = run(&["tree", "--trace", "cut.txt"]).failure();
    assert_eq!(
        msg,
        "cut.txt:4: expected a timestamp and a thread id after the function, as on line 1, \
         found `X0x1`; this is the trace's last line and it has no line end: the program was \
         cut off while writing it (--lenient skips it)"
    );
    let lenient = run(&["tree", "--lenient", "--trace", "cut.txt"]).success();
    assert_eq!(lenient.text(), "0x10 (1 ns / 2 ns)\n  0x20 (1 ns / 1 ns)\n");
    std::fs::write(dir.path().join("bad.txt"), "E0x10 1 1\nE0x2\nX0x10 3 1").unwrap();
    let msg = run(&["tree", "--trace", "bad.txt"]).failure();
    assert!(
        msg.starts_with("bad.txt:2: ") && !msg.contains("cut off"),
        "{msg}"
    );
}

/// Mistakes a user makes on the command line get a message that names the
/// file or flag and what was expected, with exit code 2.
#[test]
fn command_line_mistakes_name_the_file_or_flag() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| calltrace(args).current_dir(dir.path()).run();
    std::fs::write(
        dir.path().join("t.txt"),
        "E main 1\nE f 2\nX f 3\nX main 4\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    // A BINARY that is not there fails whatever the trace, not only
    // traces without mappings.
    assert_eq!(
        run(&["tree", "adir", "--trace", "t.txt"]).failure(),
        "adir: is a directory; expected the traced executable"
    );
    assert!(
        run(&["graph", "nosuch", "--trace", "t.txt"])
            .failure()
            .starts_with("nosuch: No such file")
    );
    // An output in a directory that does not exist names the output, not a
    // hidden temporary file.
    assert_eq!(
        run(&["tree", "--trace", "t.txt", "-o", "nodir/x.txt"]).failure(),
        "nodir/x.txt: the directory nodir does not exist"
    );
    assert!(
        run(&["abstract", "--trace", "t.txt", "--modules", "nosuch.csv"])
            .failure()
            .starts_with("--modules: nosuch.csv: No such file or directory")
    );
    // A negative number is a value the flag refuses, not an unknown flag.
    let out = run(&["abstract", "--trace", "t.txt", "--threshold", "-0.5"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("invalid value '-0.5' for '--threshold <T>'"),
        "{}",
        out.stderr
    );
    // A module table none of whose functions is in the trace says so.
    std::fs::write(dir.path().join("m.csv"), "function,module\nother,core\n").unwrap();
    let out = run(&[
        "abstract",
        "--trace",
        "t.txt",
        "--modules",
        "m.csv",
        "--tree-out",
        "-",
    ])
    .success();
    assert!(
        out.stderr
            .contains("warning: --modules m.csv: no function of the trace is in the table"),
        "{}",
        out.stderr
    );
    // So does a --keep that matches nothing.
    let out = run(&[
        "abstract",
        "--trace",
        "t.txt",
        "--keep",
        "nosuch*",
        "--tree-out",
        "-",
    ])
    .success();
    assert!(
        out.stderr
            .contains("calltrace: warning: --keep nosuch*: no function matches"),
        "{}",
        out.stderr
    );
}
