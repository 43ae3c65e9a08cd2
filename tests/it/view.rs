//! `calltrace view`: one self-contained page whose drawings, for every
//! state the controls reach, hold exactly the nodes of the DOT that
//! `calltrace abstract` or `calltrace graph` writes with the same flags.
//! The page is opened in real headless Chromium with `#...` fragments and
//! the titles of its `<g class="node">` elements are compared, as
//! multisets, with the first label lines of the DOT's nodes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

fn printer() -> PathBuf {
    root().join("testdata/printer")
}

/// The printer's binary, trace and module table as `view` and the
/// commands take them.
fn printer_inputs(trace: &str) -> Vec<String> {
    let p = printer();
    vec![
        p.join("traces/printer").display().to_string(),
        "--trace".into(),
        p.join("traces").join(trace).display().to_string(),
    ]
}

fn modules() -> String {
    printer().join("modules.csv").display().to_string()
}

/// The page for fax.trace, with a --keep glob and --focus/--root names.
fn fax_page() -> &'static PathBuf {
    static PAGE: OnceLock<PathBuf> = OnceLock::new();
    PAGE.get_or_init(|| {
        let dir = fresh_dir("view", "fax");
        let page = dir.join("view.html");
        calltrace(["view"])
            .args(printer_inputs("fax.trace"))
            .args(["--modules", &modules(), "--keep", "fax_*"])
            .args(["--focus", "fax_encode_g3", "--root", "process_fax"])
            .args(["-o".as_ref(), page.as_os_str()])
            .run()
            .success();
        page
    })
}

/// Runs headless Chromium on `page#fragment` and returns the DOM it
/// built, or None when Chromium is not installed.
fn dom(page: &Path, fragment: &str) -> Option<String> {
    let chromium = tool("chromium")?;
    let url = format!("file://{}#{fragment}", page.display());
    let out = output_within(
        Command::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu"])
            .args(["--enable-logging=stderr", "--virtual-time-budget=5000"])
            .arg("--dump-dom")
            .arg(&url),
        120,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let console: Vec<&str> = stderr.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "page errors on {url}: {console:?}");
    assert!(out.status.success(), "{stderr}");
    Some(String::from_utf8(out.stdout).expect("UTF-8 DOM"))
}

fn unescape_html(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The titles of the drawn nodes, sorted.
fn titles(dom: &str) -> Vec<String> {
    let mut out: Vec<String> = dom
        .split("<g class=\"node")
        .skip(1)
        .map(|g| {
            let start = g.find("<title>").expect("a title per node") + "<title>".len();
            let end = start + g[start..].find("</title>").expect("closed title");
            unescape_html(&g[start..end])
        })
        .collect();
    out.sort();
    out
}

/// The first label line of each node `nN` of a DOT file (legend entries
/// and notes are not call nodes), sorted.
fn dot_titles(dot: &str) -> Vec<String> {
    let mut out: Vec<String> = dot
        .lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix('n')?;
            let digits = rest.find(|c: char| !c.is_ascii_digit())?;
            let label = rest[digits..].strip_prefix(" [label=\"")?;
            (digits > 0).then(|| first_line(label))
        })
        .collect();
    out.sort();
    out
}

/// A DOT string's text up to its first `\n` or closing quote, unescaped.
fn first_line(label: &str) -> String {
    let mut out = String::new();
    let mut chars = label.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            ('"', _) => break,
            (_, true) => match chars.next() {
                Some('n') | None => break,
                Some(e) => out.push(e),
            },
            _ => out.push(c),
        }
    }
    out
}

/// The command line the page shows, from its DOM.
fn shown_command(dom: &str) -> String {
    let start = dom.find("<code id=\"command\">").expect("the command box") + 19;
    let end = start + dom[start..].find("</code>").expect("closed");
    unescape_html(&dom[start..end])
}

/// What `calltrace COMMAND INPUTS FLAGS -o FILE` draws, as sorted titles.
fn cli_titles(command: &str, inputs: &[String], flags: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("out.dot");
    calltrace([command])
        .args(inputs)
        .args(flags)
        .args(["-o".as_ref(), dot.as_os_str()])
        .run()
        .success();
    dot_titles(&std::fs::read_to_string(&dot).unwrap())
}

/// `a` as the page quotes it for a shell.
fn shell_quoted(a: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_/.,:%=+@-".contains(c);
    match a.chars().all(plain) {
        true => a.to_string(),
        false => format!("'{}'", a.replace('\'', "'\\''")),
    }
}

/// Checks one state: the page's nodes and shown command against the CLI.
fn check_state(page: &Path, inputs: &[String], fragment: &str, command: &str, flags: &[&str]) {
    let Some(dom) = dom(page, fragment) else {
        return;
    };
    let drawn = titles(&dom);
    let expected = cli_titles(command, inputs, flags);
    assert!(!expected.is_empty(), "{command} {flags:?} drew nothing");
    assert_eq!(drawn, expected, "#{fragment} against {command} {flags:?}");
    let mut line = vec!["calltrace".to_string(), command.to_string()];
    line.extend(inputs.iter().cloned());
    line.extend(flags.iter().map(|f| shell_quoted(f)));
    let out = if command == "abstract" {
        "abstract.dot"
    } else {
        "graph.dot"
    };
    line.extend(["-o".to_string(), out.to_string()]);
    assert_eq!(shown_command(&dom), line.join(" "), "#{fragment}");
}

#[test]
fn each_abstract_state_draws_the_nodes_abstract_draws() {
    let page = fax_page();
    let inputs = printer_inputs("fax.trace");
    let m = modules();
    let states: [(&str, Vec<&str>); 6] = [
        ("command=abstract", vec!["--modules", &m]),
        (
            "command=abstract&view=contexts&threshold=0.9",
            vec!["--modules", &m, "--view", "contexts", "--threshold", "0.9"],
        ),
        (
            "command=abstract&view=contexts&threshold=0.5&merge-modules",
            vec![
                "--modules",
                &m,
                "--view",
                "contexts",
                "--threshold",
                "0.5",
                "--merge-modules",
            ],
        ),
        (
            "command=abstract&view=contexts&merge-modules&fold-recursion&min-total=1%25",
            vec![
                "--modules",
                &m,
                "--view",
                "contexts",
                "--merge-modules",
                "--fold-recursion",
                "--min-total",
                "1%",
            ],
        ),
        (
            "command=abstract&view=contexts&fold-recursion&min-total=0.1%25&max-nodes=50",
            vec![
                "--modules",
                &m,
                "--view",
                "contexts",
                "--fold-recursion",
                "--min-total",
                "0.1%",
                "--max-nodes",
                "50",
            ],
        ),
        (
            "command=abstract&view=contexts&threshold=0.8&keep=fax_*",
            vec![
                "--modules",
                &m,
                "--view",
                "contexts",
                "--threshold",
                "0.8",
                "--keep",
                "fax_*",
            ],
        ),
    ];
    for (fragment, flags) in &states {
        check_state(page, &inputs, fragment, "abstract", flags);
    }
}

#[test]
fn each_graph_state_draws_the_nodes_graph_draws() {
    let page = fax_page();
    let inputs = printer_inputs("fax.trace");
    let states: [(&str, &[&str]); 4] = [
        ("command=graph", &[]),
        (
            "command=graph&min-total=0%25&min-edge=0%25",
            &["--min-total", "0%", "--min-edge", "0%"],
        ),
        (
            "command=graph&focus=fax_encode_g3",
            &["--focus", "fax_encode_g3"],
        ),
        (
            "command=graph&min-total=5%25&root=process_fax",
            &["--min-total", "5%", "--root", "process_fax"],
        ),
    ];
    for (fragment, flags) in states {
        check_state(page, &inputs, fragment, "graph", flags);
    }
}

#[test]
fn the_page_references_nothing_outside_itself() {
    let html = std::fs::read_to_string(fax_page()).unwrap();
    for external in [
        "src=",
        "href=",
        "url(",
        "@import",
        "<link",
        "fetch(",
        "XMLHttpRequest",
        "<iframe",
    ] {
        assert!(!html.contains(external), "found {external}");
    }
    // The one `http` is the SVG namespace, a name and not a request.
    let http: Vec<&str> = html
        .match_indices("http")
        .map(|(i, _)| &html[i..i + 27])
        .collect();
    assert_eq!(http, ["http://www.w3.org/2000/svg\""], "{http:?}");
    assert_eq!(
        html.matches("<script").count(),
        2,
        "the data and the script, inline"
    );
}

#[test]
fn a_value_the_page_did_not_compute_is_said_not_guessed() {
    let Some(dom) = dom(fax_page(), "command=abstract&threshold=0.93") else {
        return;
    };
    assert!(
        dom.contains("--threshold 0.93 is not one of the values"),
        "the note"
    );
    // The picture is the one of no flags, and the command says so.
    let expected = cli_titles(
        "abstract",
        &printer_inputs("fax.trace"),
        &["--modules", &modules()],
    );
    assert_eq!(titles(&dom), expected);
}

#[test]
fn a_directory_of_patterns_gets_a_picker_and_coloured_differences() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("view.html");
    let p = printer();
    calltrace(["view"])
        .args([p.join("traces/printer"), p.join("traces")])
        .args(["--modules", &modules()])
        .args(["-o".as_ref(), page.as_os_str()])
        .run()
        .success();
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size <= 5_000_000, "19 patterns in {size} bytes");
    let inputs = printer_inputs("copy.trace");
    let m = modules();
    check_state(
        &page,
        &inputs,
        "command=abstract&view=contexts&threshold=0.9&pattern=copy",
        "abstract",
        &["--modules", &m, "--view", "contexts", "--threshold", "0.9"],
    );
    check_state(&page, &inputs, "command=graph&pattern=copy", "graph", &[]);
    let Some(plain) = dom(&page, "command=graph&pattern=fax") else {
        return;
    };
    let against = dom(&page, "command=graph&pattern=fax&against=copy").unwrap();
    assert_eq!(titles(&plain), titles(&against), "the same nodes, coloured");
    // fax_* functions are not in the copy pattern: outlined as new.
    assert!(
        against.contains("stroke=\"#000000\" stroke-width=\"3\""),
        "new functions outlined"
    );
    assert!(!plain.contains("stroke-width=\"3\""));
}

/// zlib (third-party C) compressing and decompressing its own sources.
fn zlib() -> &'static (PathBuf, PathBuf) {
    static R: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    R.get_or_init(|| {
        let (_, exe, trace) = traced_zround("view");
        (exe, trace)
    })
}

#[test]
fn zlib_states_draw_the_nodes_the_commands_draw() {
    let (exe, trace) = zlib();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("view.html");
    let inputs = vec![
        exe.display().to_string(),
        "--trace".to_string(),
        trace.display().to_string(),
    ];
    calltrace(["view"])
        .args(&inputs)
        .args(["--root", "deflate"])
        .args(["-o".as_ref(), page.as_os_str()])
        .run()
        .success();
    let m = ["--modules", "auto"];
    let big = [
        "--modules",
        "auto",
        "--view",
        "contexts",
        "--threshold",
        "1",
        "--max-nodes",
        "300",
    ];
    check_state(&page, &inputs, "command=abstract", "abstract", &m);
    check_state(
        &page,
        &inputs,
        "command=abstract&view=contexts&threshold=1&max-nodes=300",
        "abstract",
        &big,
    );
    let fold = [
        "--modules",
        "auto",
        "--view",
        "contexts",
        "--threshold",
        "0.95",
        "--fold-recursion",
    ];
    check_state(
        &page,
        &inputs,
        "command=abstract&view=contexts&threshold=0.95&fold-recursion",
        "abstract",
        &fold,
    );
    check_state(
        &page,
        &inputs,
        "command=graph&min-total=0%25&root=deflate",
        "graph",
        &["--min-total", "0%", "--root", "deflate"],
    );
    if let Some(dom) = dom(
        &page,
        "command=abstract&view=contexts&threshold=1&max-nodes=300",
    ) {
        let at = dom.find("data-ms=\"").expect("the drawing time") + 9;
        let ms = &dom[at..at + dom[at..].find('"').unwrap()];
        eprintln!("zlib: {} nodes drawn in {ms} ms", titles(&dom).len());
    }
}

#[test]
fn the_page_is_the_same_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let p = printer();
    let page = |threads: &str| {
        let out = dir.path().join(format!("view-{threads}.html"));
        calltrace(["view", "--threads", threads])
            .args([p.join("traces/printer"), p.join("traces")])
            .args(["-o".as_ref(), out.as_os_str()])
            .run()
            .success();
        std::fs::read(out).unwrap()
    };
    assert!(
        page("1") == page("2"),
        "one and two threads give identical bytes"
    );
}

#[test]
fn a_name_cannot_close_the_data_script_or_add_markup() {
    let (_dir, trace) = temp_file(
        "hostile.txt",
        "main (1 ms / 10 ms)\n  </script><b>x</b> (9 ms / 9 ms)\n",
    );
    let out = trace.with_extension("html");
    calltrace(["view", "--trace"])
        .args([trace.as_os_str(), "-o".as_ref(), out.as_os_str()])
        .run()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        !html.contains("</script><b>"),
        "the name stays inside the data"
    );
    let Some(dom) = dom(&out, "command=graph&min-total=0%25") else {
        return;
    };
    assert!(
        titles(&dom).contains(&"</script><b>x</b>".to_string()),
        "{:?}",
        titles(&dom)
    );
    assert!(!dom.contains("<b>x</b>"), "shown as text, not markup");
}

#[test]
fn the_page_never_replaces_its_trace() {
    let (_dir, trace) = temp_file("t.txt", "main (1 ms / 10 ms)\n  f (9 ms / 9 ms)\n");
    let before = std::fs::read(&trace).unwrap();
    let err = calltrace(["view", "--trace"])
        .args([trace.as_os_str(), "-o".as_ref(), trace.as_os_str()])
        .run()
        .failure();
    assert!(err.contains("--output"), "{err}");
    assert_eq!(std::fs::read(&trace).unwrap(), before);
}

#[test]
fn search_marks_the_nodes_whose_name_matches_and_a_screenshot_shows_them() {
    let page = fax_page();
    let Some(dom) = dom(
        page,
        "command=abstract&view=contexts&threshold=0.9&merge-modules&search=fax",
    ) else {
        return;
    };
    let matching = titles(&dom).iter().filter(|t| t.contains("fax")).count();
    assert!(matching >= 2, "{:?}", titles(&dom));
    assert_eq!(dom.matches("<g class=\"node match\"").count(), matching);
    assert!(dom.contains(&format!("{matching} matching")));
    let chromium = tool("chromium").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("view.png");
    let url = format!(
        "file://{}#command=abstract&view=contexts&threshold=0.9&merge-modules&search=fax",
        page.display()
    );
    let out = output_within(
        Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--virtual-time-budget=5000",
            ])
            .arg(format!("--screenshot={}", shot.display()))
            .args(["--window-size=1200,800", &url]),
        120,
    );
    assert!(out.status.success());
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    // CALLTRACE_KEEP_SCREENSHOT=docs/img/view.png refreshes the README's picture.
    if let Some(keep) = std::env::var_os("CALLTRACE_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}

#[test]
fn a_selected_node_shows_its_place_numbers_per_call_times_and_children() {
    let fragment =
        "command=abstract&view=contexts&threshold=0.9&merge-modules&select=fax_send_page";
    let Some(dom) = dom(fax_page(), fragment) else {
        return;
    };
    let start = dom.find("<aside id=\"details\">").expect("the details");
    let details = &dom[start..start + dom[start..].find("</aside>").unwrap()];
    for part in [
        "<h2>fax_send_page</h2>",
        "printer/output.c:",
        "<dd>x2  total ",
        "<dd>min ",
        "%  util_crc32</li>",
        "<dd>output</dd>",
        "<button>collapse subtree</button>",
        "merged into it (--merge-modules): spool_write (x4  total ",
    ] {
        assert!(details.contains(part), "{part} in {details}");
    }
}

/// The DOT's call nodes as (first label line, second label line, fill),
/// indexed by their number, and its edges.
type DotTree = (
    std::collections::BTreeMap<usize, (String, String, String)>,
    Vec<(usize, usize)>,
);

fn dot_tree(dot: &str) -> DotTree {
    let (mut nodes, mut edges) = (std::collections::BTreeMap::new(), Vec::new());
    let number = |s: &str| s.trim().trim_start_matches('n').parse::<usize>().ok();
    for l in dot.lines() {
        if let Some((a, b)) = l.trim().trim_end_matches(';').split_once(" -> ") {
            edges.extend(number(a).zip(number(b)));
        } else if let Some((n, rest)) = l.trim().split_once(" [label=\"")
            && let Some(n) = number(n)
        {
            let title = first_line(rest);
            let second = first_line(&rest[rest.find("\\n").map_or(rest.len(), |i| i + 2)..]);
            let fill = rest.split("fillcolor=\"").nth(1).unwrap_or("").to_string();
            let fill = fill[..fill.find('"').unwrap_or(0)].to_string();
            nodes.insert(n, (title, second, fill));
        }
    }
    (nodes, edges)
}

/// The boxes the page drew for what was merged into `node`: (name, label
/// line), sorted.
fn merged_boxes(dom: &str, node: &str) -> Vec<(String, String)> {
    let into = format!("data-into=\"{node}\"");
    let mut out: Vec<(String, String)> = dom
        .split("<g class=\"merged-fn\"")
        .skip(1)
        .filter(|g| g[..g.find('>').unwrap()].contains(&into))
        .map(|g| {
            let g = &g[..g.find("</g>").expect("closed group")];
            let spans: Vec<&str> = g
                .split("<tspan")
                .skip(1)
                .map(|t| &t[t.find('>').unwrap() + 1..t.find("</tspan>").unwrap()])
                .collect();
            (unescape_html(spans[0]), unescape_html(spans[1]))
        })
        .collect();
    out.sort();
    out
}

/// The unmerged tree's calls under `node` reached through calls of its
/// own module (same fill): what merging puts into `node`.
fn same_module_below(tree: &DotTree, node: &str) -> Vec<(String, String)> {
    let (nodes, edges) = tree;
    let found: Vec<usize> = nodes
        .iter()
        .filter(|(_, n)| n.0 == node)
        .map(|(&i, _)| i)
        .collect();
    assert_eq!(found.len(), 1, "{node} once in the unmerged tree");
    let fill = &nodes[&found[0]].2;
    let (mut out, mut todo) = (Vec::new(), found);
    while let Some(n) = todo.pop() {
        for &(_, c) in edges.iter().filter(|e| e.0 == n) {
            if &nodes[&c].2 == fill {
                out.push((nodes[&c].0.clone(), nodes[&c].1.clone()));
                todo.push(c);
            }
        }
    }
    out.sort();
    out
}

/// `#...&merge-modules&expand=TITLE` (repeatable) draws, as dashed
/// `merged-fn` boxes under each node so titled, the functions merging put
/// into it, with their calls, total and self: exactly the calls of the
/// node's module under it in the unmerged tree (each function occurs once
/// under `main` and `fax_send_page` in fax.trace, so the numbers match
/// label for label). The call nodes stay the DOT's.
#[test]
fn a_merged_node_expands_in_place_to_the_functions_merged_into_it() {
    let fragment = "command=abstract&view=contexts&merge-modules&expand=main&expand=fax_send_page";
    let Some(dom) = dom(fax_page(), fragment) else {
        return;
    };
    let inputs = printer_inputs("fax.trace");
    let m = modules();
    let flags = ["--modules", &m, "--view", "contexts"];
    let merged = cli_titles(
        "abstract",
        &inputs,
        &[&flags[..], &["--merge-modules"]].concat(),
    );
    assert_eq!(titles(&dom), merged, "the call nodes are the DOT's");
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("unmerged.dot");
    calltrace(["abstract"])
        .args(&inputs)
        .args(flags)
        .args(["--min-total", "0%", "-o"])
        .args([&dot])
        .run()
        .success();
    let unmerged = dot_tree(&std::fs::read_to_string(&dot).unwrap());
    for node in ["main", "fax_send_page"] {
        let expected = same_module_below(&unmerged, node);
        assert!(!expected.is_empty(), "{node} absorbs calls");
        assert_eq!(merged_boxes(&dom, node), expected, "expanded {node}");
    }
    assert_eq!(
        dom.matches("<g class=\"merged-fn\"").count(),
        merged_boxes(&dom, "main").len() + merged_boxes(&dom, "fax_send_page").len(),
        "only the expanded nodes"
    );
    assert!(dom.contains("stroke-dasharray=\"4,3\""), "drawn dashed");
    // Without `expand=` nothing is expanded, and the details offer it.
    let plain = dom_of(
        fax_page(),
        "command=abstract&view=contexts&merge-modules&select=main",
    );
    assert!(!plain.contains("<g class=\"merged-fn\""));
    assert!(plain.contains("<button>show merged functions</button>"));
    assert!(plain.contains("merged into it (--merge-modules): run_job (x1  total 383 us"));
}

fn dom_of(page: &Path, fragment: &str) -> String {
    dom(page, fragment).expect("chromium ran once already")
}
