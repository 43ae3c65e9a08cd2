//! Hostile outputs and inputs: outputs that are not regular files
//! (`/dev/stdout` redirected to a log), outputs that are files the run
//! read (the program a trace names, a library its maps name), traces that
//! can be read only once (pipes), long headers, and function names built
//! to forge lines in every output format.

use std::io::Write;
use std::process::{Command, Stdio};

use super::util::{BIN, compile, temp_file};

const TRACE: &str = "E main 100 1\nE work 200 1\nX work 300 1\nX main 400 1\n";

/// Runs `calltrace ARGS` with its standard output on `out`; asserts success.
fn run_onto(args: &[&str], out: &std::fs::File) {
    let status = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{args:?}");
}

#[test]
fn dev_stdout_appended_to_a_log_keeps_the_log() {
    let (dir, trace) = temp_file("s.txt", TRACE);
    let log = dir.path().join("log");
    std::fs::write(&log, "old\n").unwrap();
    let appending = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let t = trace.to_str().unwrap();
    run_onto(&["tree", "--trace", t, "-o", "/dev/stdout"], &appending);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("old\nmain ("), "{text}");
}

#[test]
fn dev_stdout_twice_into_one_file_loses_nothing_written_between() {
    let (dir, trace) = temp_file("s.txt", TRACE);
    let f = dir.path().join("F");
    let mut out = std::fs::File::create(&f).unwrap();
    let t = trace.to_str().unwrap();
    run_onto(&["tree", "--trace", t, "-o", "/dev/stdout"], &out);
    out.write_all(b"x\n").unwrap();
    run_onto(&["tree", "--trace", t, "-o", "/proc/self/fd/1"], &out);
    let text = std::fs::read_to_string(&f).unwrap();
    let tree = "main (200 ns / 300 ns)\n  work (100 ns / 100 ns)\n";
    assert_eq!(text, format!("{tree}x\n{tree}"));
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// A program `app` calling into its own library `libl.so`, built with the
/// runtime and run once in a new directory: (directory, trace `app.txt`).
fn app_with_library() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("l.c"), "int lib_work(int x) { return x * 2 + 1; }\n").unwrap();
    std::fs::write(
        d.join("app.c"),
        "int lib_work(int x);\nstatic int local(int x) { return lib_work(x) + 1; }\n\
         int main(void) { return local(20) == 42 ? 0 : 1; }\n",
    )
    .unwrap();
    let runtime = super::util::root().join("runtime/calltrace.c");
    let gcc = |args: &[&str]| compile(Command::new("gcc").current_dir(d).args(args));
    gcc(&[
        "-g",
        "-finstrument-functions",
        "-fPIC",
        "-shared",
        "l.c",
        "-o",
        "libl.so",
    ]);
    let rt = runtime.to_str().unwrap();
    gcc(&[
        "-g",
        "-finstrument-functions",
        "app.c",
        rt,
        "-L.",
        "-ll",
        "-Wl,-rpath,$ORIGIN",
        "-lpthread",
        "-o",
        "app",
    ]);
    let trace = d.join("app.txt");
    let status = Command::new(d.join("app"))
        .current_dir(d)
        .env("CALLTRACE_OUT", &trace)
        .env_remove("CALLTRACE_FORMAT")
        .status()
        .unwrap();
    assert!(status.success());
    (dir, trace)
}

#[test]
fn files_found_through_the_trace_are_inputs_too() {
    let (dir, trace) = app_with_library();
    let d = dir.path();
    let sp = d.join("sp");
    std::fs::create_dir(&sp).unwrap();
    std::fs::copy(d.join("app"), sp.join("app")).unwrap();
    let t = trace.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&[], "app"),
        (&["--search-path", "sp"], "sp/app"),
        (&[], "libl.so"),
    ];
    for (extra, out) in cases {
        let before = std::fs::read(d.join(out)).unwrap();
        let args = [&["graph", "--trace", t][..], extra, &["-o", out]].concat();
        let msg = super::util::calltrace(&args).current_dir(d).run().failure();
        assert!(
            msg.contains(out) && msg.contains("refusing to overwrite an input"),
            "{out}: {msg}"
        );
        assert_eq!(std::fs::read(d.join(out)).unwrap(), before, "{out} kept");
    }
    let ok = super::util::calltrace(["graph", "--trace", t, "-o", "g.dot"])
        .current_dir(d)
        .run()
        .success();
    assert!(ok.stderr.contains("wrote g.dot"), "{}", ok.stderr);
    let dot = std::fs::read_to_string(d.join("g.dot")).unwrap();
    assert!(dot.contains("lib_work"), "the library was read: {dot}");
}

/// Opens the FIFO `path` for writing once its reader is there, giving up
/// after a while (the reader may have failed before opening it).
fn open_fifo_writer(path: &std::path::Path) -> std::fs::File {
    use std::os::unix::fs::OpenOptionsExt;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(f) => return f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                assert!(std::time::Instant::now() < deadline, "no reader");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn every_export_from_a_pipe_or_fifo_equals_the_export_from_a_file() {
    let (dir, _) = temp_file("s.txt", TRACE);
    let d = dir.path();
    // Every single-file format `export --help` lists (a dataset writes a
    // directory, which no pipe can take).
    let formats = super::util::export_formats();
    assert!(formats.len() >= 8, "{formats:?}");
    for (to, about) in formats
        .iter()
        .filter(|(_, about)| !about.contains("directory"))
    {
        let to = to.as_str();
        let args = |out: &str| ["export", "--to", to, "--trace", "t", "-o", out].map(String::from);
        std::fs::write(d.join("t"), TRACE).unwrap();
        super::util::calltrace(args("file.out"))
            .current_dir(d)
            .run()
            .success();
        let from_file = std::fs::read(d.join("file.out")).unwrap();
        std::fs::remove_file(d.join("t")).unwrap();
        let made = Command::new("mkfifo").arg(d.join("t")).status().unwrap();
        assert!(made.success());
        let child = Command::new(BIN)
            .args(args("fifo.out"))
            .current_dir(d)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut w = open_fifo_writer(&d.join("t"));
        w.write_all(TRACE.as_bytes()).unwrap();
        drop(w);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{to} from a FIFO: {err}");
        assert_eq!(
            std::fs::read(d.join("fifo.out")).unwrap(),
            from_file,
            "{to}"
        );
        std::fs::remove_file(d.join("t")).unwrap();
        // And from standard input: the same events (the title names `-`).
        let piped = super::util::calltrace(["export", "--to", to, "--trace", "-", "-o", "-"])
            .stdin(TRACE)
            .run()
            .success();
        if about.contains("gzipped") {
            continue;
        }
        let work = b"work";
        assert!(
            piped.stdout.windows(work.len()).any(|w| w == work),
            "{to} from stdin names the functions"
        );
    }
}

/// A text trace of a program with `libs` shared libraries: a `# map` line
/// each (about 128 bytes) before the first event.
fn many_libraries(libs: usize) -> String {
    let mut t = String::from("# calltrace 1 text\n");
    for i in 0..libs {
        t += &format!(
            "# map 0x7f{i:04x}00000000 0x7f{i:04x}00001000 0x0 {:040x} /usr/lib/x86_64-linux-gnu/libnumber{i}.so.1\n",
            i
        );
    }
    t + TRACE
}

#[test]
fn traces_of_programs_with_many_libraries_are_not_empty() {
    for libs in [80, 1000] {
        let trace = many_libraries(libs);
        assert!(trace.len() > libs * 100);
        let (_dir, path) = temp_file("many.txt", &trace);
        let from_file = super::util::calltrace(["tree", "--trace", path.to_str().unwrap()])
            .run()
            .success()
            .text();
        assert!(from_file.starts_with("main ("), "{libs}: {from_file}");
        let from_pipe = super::util::calltrace(["tree", "--trace", "-"])
            .stdin(trace)
            .run()
            .success()
            .text();
        assert_eq!(from_pipe, from_file, "{libs} libraries through a pipe");
    }
}

/// The hostile name set: line breaks, tab, NUL, `;`, `"`, `<`, `&`, `\`,
/// a final ` 123`, trailing spaces, with how the indented format writes
/// each. Invalid UTF-8 comes through a symbolic trace ([`INVALID_UTF8`]).
const HOSTILE: [(&str, &str); 10] = [
    ("evil\nmain;forged 999999", r"evil\x0amain;forged 999999"),
    ("cr\rret", r"cr\x0dret"),
    ("tab\there", r"tab\x09here"),
    ("nul\0byte", r"nul\x00byte"),
    ("q\"uote<lt>&amp;", "q\"uote<lt>&amp;"),
    ("back\\slash\\n", r"back\\slash\\n"),
    ("task 123", "task 123"),
    ("semi;colon", "semi;colon"),
    ("tail  ", r"tail \x20"),
    ("fn=(1) inj", "fn=(1) inj"),
];

/// A symbolic trace whose one callee's name is not UTF-8.
const INVALID_UTF8: &[u8] =
    b"E main 10 1\nE bad\xff\xfename 20 1\nX bad\xff\xfename 50 1\nX main 90 1\n";

/// `main` calling every hostile name, the last of them calling `task 123`
/// again (a hostile name in the middle of a stack); every node has self time.
fn hostile_indented() -> (String, Vec<String>) {
    let mut t = format!("main (10 / {})\n", 10 + 10 * HOSTILE.len() as u64 + 5);
    for (i, (_, written)) in HOSTILE.iter().enumerate() {
        let extra = if i + 1 == HOSTILE.len() { 5 } else { 0 };
        t += &format!("  {written} (10 / {})\n", 10 + extra);
    }
    t += "    task 123 (5 / 5)\n";
    let names = HOSTILE.iter().map(|(n, _)| n.to_string());
    (
        t,
        std::iter::once("main".to_string()).chain(names).collect(),
    )
}

/// The label strings of a DOT file's node lines (`  n3 [label="..."`), as
/// DOT escapes them: (text before the first line break, line breaks).
fn dot_node_labels(dot: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for line in dot.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('n').and_then(|r| r.split_once(" [label=\"")) else {
            continue;
        };
        if !rest.0.bytes().all(|b| b.is_ascii_digit()) {
            continue; // an edge
        }
        let (mut first, mut breaks, mut chars) = (String::new(), 0, rest.1.chars());
        while let Some(c) = chars.next() {
            match (c, breaks) {
                ('"', _) => break,
                ('\\', _) => match chars.next().expect("escape") {
                    'n' | 'l' | 'r' => breaks += 1,
                    e if breaks == 0 => first.push(e),
                    _ => {}
                },
                (c, 0) => first.push(c),
                _ => {}
            }
        }
        out.push((first, breaks));
    }
    out
}

/// Checks every output format on one trace whose functions are `names`.
fn check_every_format(dir: &std::path::Path, trace: &str, names: &[String]) {
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--trace", trace]);
        super::util::calltrace(&all)
            .current_dir(dir)
            .run()
            .success()
    };
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let text = |f: &str| String::from_utf8(read(f)).unwrap();
    let mut shown: Vec<String> = names
        .iter()
        .map(|n| calltrace::escape_controls(n).into_owned())
        .collect();
    shown.sort();
    let no_controls = |what: &str, s: &str| {
        let bad = s.chars().find(|&c| c.is_control() && c != '\n');
        assert_eq!(bad, None, "{what} holds a raw control character");
    };

    // DOT: the call graph (both styles) and the tree. Each box's first line
    // is the name, controls shown as \xNN, and no name adds a line.
    run(&["graph", "-o", "hot.dot", "--csv", "edges.csv"]);
    run(&["graph", "--style", "plain", "-o", "plain.dot"]);
    run(&["abstract", "--min-total", "0", "-o", "tree.dot"]);
    for (file, lines) in [("hot.dot", 3), ("plain.dot", 0), ("tree.dot", 1)] {
        let dot = text(file);
        no_controls(file, &dot);
        let labels = dot_node_labels(&dot);
        let mut firsts: Vec<String> = labels.iter().map(|(f, _)| f.clone()).collect();
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts, shown, "{file}: {dot}");
        assert!(labels.iter().all(|(_, b)| *b == lines), "{file}: {dot}");
    }

    // CSV (RFC 4180): every name back exactly.
    let edges = read("edges.csv");
    let mut rdr = csv::Reader::from_reader(&edges[..]);
    let mut csv_names: Vec<String> = rdr
        .records()
        .flat_map(|r| {
            let r = r.unwrap();
            assert_eq!(r.len(), 4);
            [r[0].to_string(), r[1].to_string()]
        })
        .collect();
    csv_names.sort();
    csv_names.dedup();
    let mut exact = names.to_vec();
    exact.sort();
    assert_eq!(csv_names, exact, "edges.csv");

    // The indented tree reads back to itself, one line per node.
    run(&["tree", "-o", "tree.txt"]);
    let tree = text("tree.txt");
    no_controls("tree.txt", &tree);
    let again = super::util::calltrace(["tree", "--trace", "tree.txt"])
        .current_dir(dir)
        .run()
        .success()
        .text();
    assert_eq!(again, tree);

    // Folded: one line per node, the count the last word, never two counts.
    run(&["export", "--to", "folded", "-o", "stacks.folded"]);
    let folded = text("stacks.folded");
    no_controls("folded", &folded);
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        assert!(count.parse::<u64>().is_ok(), "{line:?}");
        let before = stack.rsplit_once(' ').map_or("", |(_, w)| w);
        assert!(
            before.is_empty() || !before.bytes().all(|b| b.is_ascii_digit() || b == b'.'),
            "a second count in {line:?}"
        );
        assert!(stack.split(';').count() <= 3, "a forged frame in {line:?}");
    }
    assert_eq!(
        folded.lines().count(),
        names.len() + usize::from(names.len() > 2)
    );

    // Flame graph: well-formed SVG, one frame per node, no differential.
    run(&["export", "--to", "flamegraph", "-o", "flame.svg"]);
    let svg = text("flame.svg");
    no_controls("flame.svg", &svg);
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&svg, opts).expect("well-formed SVG");
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text())
        .collect();
    assert!(
        titles
            .iter()
            .all(|t| !t.contains("; +") && !t.contains("; -")),
        "{titles:?}"
    );
    let frames = names.len() + usize::from(names.len() > 2) + 1;
    assert_eq!(
        titles.iter().filter(|t| t.ends_with("%)")).count(),
        frames,
        "{titles:?}"
    );

    // JSON and Chrome: JSON escapes, every name back exactly.
    for (to, file) in [("json", "tree.json"), ("chrome", "chrome.json")] {
        run(&["export", "--to", to, "-o", file]);
        let v: serde_json::Value = serde_json::from_slice(&read(file)).expect("valid JSON");
        let mut found = Vec::new();
        let mut stack = vec![&v];
        while let Some(x) = stack.pop() {
            if let Some(n) = x.get("name").and_then(|n| n.as_str()) {
                found.push(n.to_string());
            }
            stack.extend(x.as_array().into_iter().flatten());
            stack.extend(x.as_object().into_iter().flat_map(|o| o.values()));
        }
        found.sort();
        found.dedup();
        assert_eq!(found, exact, "{to}");
    }

    // Callgrind: one definition line per function, no injected line.
    run(&["export", "--to", "callgrind", "-o", "callgrind.out"]);
    let cg = text("callgrind.out");
    no_controls("callgrind", &cg);
    let keys = [
        "fl=", "fn=", "cfi=", "cfn=", "calls=", "#", "version:", "creator:",
    ];
    let more = ["cmd:", "positions:", "events:", "summary:"];
    for line in cg.lines() {
        let known = line.is_empty()
            || line.starts_with(|c: char| c.is_ascii_digit())
            || keys.iter().chain(&more).any(|k| line.starts_with(k));
        assert!(known, "a line callgrind does not know: {line:?}");
    }
    let mut defined: Vec<&str> = cg
        .lines()
        .filter_map(|l| l.strip_prefix("fn=(").or(l.strip_prefix("cfn=(")))
        .filter_map(|l| l.split_once(") ").map(|(_, name)| name))
        .collect();
    defined.sort();
    assert_eq!(
        defined,
        shown.iter().map(String::as_str).collect::<Vec<_>>(),
        "callgrind"
    );

    // TLV: two lines a call, each `[t]Thread_N.enter|leave(arg)`.
    run(&["export", "--to", "tlv", "-o", "log.tlv"]);
    let tlv = text("log.tlv");
    no_controls("tlv", &tlv);
    let re = regex::Regex::new(r"^\[\d+\]Thread_\d+\.(enter|leave)\([^()\\,]+\)$").unwrap();
    assert!(tlv.lines().all(|l| re.is_match(l)), "{tlv}");
    assert_eq!(
        tlv.lines().count(),
        2 * (names.len() + usize::from(names.len() > 2))
    );

    // HTML (compare's report): names escaped, no raw control characters.
    let t2 = format!("again={trace}");
    super::util::calltrace(["compare", trace, &t2, "--out-dir", "report"])
        .current_dir(dir)
        .run()
        .success();
    let html = text("report/report.html");
    no_controls("report.html", &html);
    if names.iter().any(|n| n.contains('<')) {
        assert!(html.contains("&lt;lt&gt;&amp;amp;") && !html.contains("<lt>"));
    }
}

#[test]
fn hostile_names_cannot_forge_or_break_any_output_format() {
    let (text, names) = hostile_indented();
    // The trace's path is a title in several formats (callgrind's `cmd:`).
    let (dir, path) = temp_file("hostile\nfn=(1) inj\".txt", &text);
    check_every_format(dir.path(), path.to_str().unwrap(), &names);
    let (dir, path) = temp_file("bad-utf8.txt", INVALID_UTF8);
    let names = ["main", "bad\u{fffd}\u{fffd}name"].map(String::from);
    check_every_format(dir.path(), path.to_str().unwrap(), &names);
}

/// The export formats `check_every_format` reads back and checks for
/// forged structure (a writer with its own escaping rule).
const CHECKED_FOR_ESCAPING: &[&str] =
    &["folded", "flamegraph", "json", "chrome", "callgrind", "tlv"];

/// The export formats whose names are length-prefixed binary fields
/// (protobuf, Parquet columns): no name can forge structure in them, so
/// there is nothing to escape (README "Escaping").
const LENGTH_PREFIXED: &[&str] = &["pprof", "perfetto", "parquet"];

#[test]
fn every_export_format_is_checked_for_hostile_names_or_needs_no_escaping() {
    for (to, _) in super::util::export_formats() {
        assert!(
            CHECKED_FOR_ESCAPING.contains(&to.as_str()) || LENGTH_PREFIXED.contains(&to.as_str()),
            "export --to {to}: add it to check_every_format (or say why it needs no escaping)"
        );
    }
}
