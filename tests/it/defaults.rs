//! Defaults and names a user meets first: what each command writes when
//! given nothing, one name per flag across commands, singular counts,
//! messages about the wrong input, the README's commands, and pages that
//! must fit a screen.

use std::path::Path;
use std::process::Command;

use super::util::*;

/// `main` calls two families of functions that name prefixes tell apart.
const PREFIXED: &str = "E main\nE ui_draw\nE ui_button\nX ui_button\nE ui_label\nX ui_label\nX ui_draw\n\
E net_send\nE net_recv\nX net_recv\nE net_close\nX net_close\nX net_send\nX main\n";

/// `nodes_after` of `method` for `pattern` in rates.csv.
fn nodes_after(rates: &str, pattern: &str, method: &str) -> String {
    rates
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|c| c[0] == pattern && c[1] == method)
        .unwrap_or_else(|| panic!("no {pattern},{method} in\n{rates}"))[4]
        .to_string()
}

#[test]
fn compare_without_modules_picks_them_like_abstract() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), PREFIXED).unwrap();
    std::fs::write(dir.path().join("b.txt"), PREFIXED).unwrap();
    let out = calltrace(["compare", "a.txt", "b.txt", "--out-dir", "out"])
        .current_dir(dir.path())
        .run()
        .success();
    let rates = std::fs::read_to_string(dir.path().join("out/rates.csv")).unwrap();
    // One module for everything would merge all 7 calls into main; auto
    // (name prefixes here) keeps main, ui_draw and net_send.
    assert_eq!(nodes_after(&rates, "a", "merge"), "3", "{rates}");
    assert!(out.stderr.contains("--modules auto"), "{}", out.stderr);
    let abs = calltrace(["abstract", "--merge-modules", "--modules", "auto"])
        .args(["--trace", "a.txt", "-o", "a.dot"])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(
        abs.text().starts_with("merge: 7 nodes -> 3 nodes"),
        "{}",
        abs.text()
    );
}

#[test]
fn abstract_draws_abstract_dot_unless_another_output_is_named() {
    let (dir, _t) = temp_file("t.txt", PREFIXED);
    let out = calltrace(["abstract", "--trace", "t.txt"])
        .current_dir(dir.path())
        .run()
        .success();
    let dot = std::fs::read_to_string(dir.path().join("abstract.dot")).expect("abstract.dot");
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(
        out.stderr.contains("wrote abstract.dot ("),
        "{}",
        out.stderr
    );
    std::fs::remove_file(dir.path().join("abstract.dot")).unwrap();
    calltrace(["abstract", "--trace", "t.txt", "--tree-out", "t.tree"])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(dir.path().join("t.tree").exists());
    assert!(
        !dir.path().join("abstract.dot").exists(),
        "--tree-out alone writes no DOT"
    );
}

/// The functions drawn in a hot graph, sorted.
fn drawn(dot: &str) -> Vec<String> {
    let mut names: Vec<String> = dot
        .lines()
        .filter(|l| l.trim_start().starts_with('n') && !l.contains("->"))
        .filter_map(|l| l.split("label=\"").nth(1))
        .map(|l| l.split("\\n").next().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn graph_max_depth_counts_like_tree_and_the_old_depth_still_works() {
    let (dir, _t) = temp_file("t.txt", "E main\nE a\nE b\nE c\nX c\nX b\nX a\nX main\n");
    let graph = |flags: &[&str]| {
        let out = calltrace(["graph", "--trace", "t.txt", "-o", "-"])
            .args(["--min-total", "0", "--min-edge", "0"])
            .args(flags)
            .current_dir(dir.path())
            .run()
            .success();
        drawn(&out.text())
    };
    assert_eq!(graph(&["--max-depth", "2"]), ["a", "main"]);
    assert_eq!(
        graph(&["--depth", "1"]),
        ["a", "main"],
        "old name, old count"
    );
    assert_eq!(graph(&["--max-depth", "1"]), ["main"]);
    let tree = calltrace(["tree", "--trace", "t.txt", "--max-depth", "2"])
        .current_dir(dir.path())
        .run()
        .success();
    assert_eq!(
        shape(&tree.text()),
        "main\n  a\n",
        "tree counts the same way"
    );
    let help = calltrace(["graph", "--help"]).run().success().text();
    assert!(
        help.contains("--max-depth") && !help.contains("--depth"),
        "{help}"
    );
    let msg = calltrace(["graph", "--trace", "t.txt", "--max-depth", "0"])
        .current_dir(dir.path())
        .run();
    assert_eq!(msg.code, 2, "{}", msg.stderr);
}

#[test]
fn compare_takes_the_program_as_first_argument_or_the_old_flag() {
    let p = root().join("testdata/printer");
    let dir = tempfile::tempdir().unwrap();
    let run = |first: &[&Path], out: &str| {
        calltrace(["compare"])
            .args(first)
            .args([p.join("traces/fax.trace"), p.join("traces/scan.trace")])
            .args([Path::new("--modules"), &p.join("modules.csv")])
            .args(["--out-dir", out])
            .current_dir(dir.path())
            .run()
            .success();
        std::fs::read_to_string(dir.path().join(out).join("features.csv")).unwrap()
    };
    let exe = p.join("traces/printer");
    let positional = run(&[&exe], "a");
    let flag = run(&[Path::new("--binary"), &exe], "b");
    assert_eq!(positional, flag);
    assert!(
        positional.contains("fax_dial"),
        "names resolved:\n{positional}"
    );
    let help = calltrace(["compare", "--help"]).run().success().text();
    assert!(help.contains("[BINARY] <TRACE>..."), "{help}");
    assert!(!help.contains("--binary"), "{help}");
    let msg = calltrace(["compare"]).args([&exe]).run().failure();
    assert!(msg.contains("at least one trace"), "{msg}");
}

/// `main -> step1 -> step2 -> leaf`: a chain of single callees.
const CHAIN: &str =
    "E main 0\nE step1 0\nE step2 0\nE leaf 0\nX leaf 100\nX step2 100\nX step1 100\nX main 100\n";

#[test]
fn chains_can_be_drawn_whole() {
    let (dir, _t) = temp_file("t.txt", CHAIN);
    let abs = |flags: &[&str]| {
        let out = calltrace(["abstract", "--trace", "t.txt", "-o", "-"])
            .args(flags)
            .current_dir(dir.path())
            .run()
            .success();
        (out.text(), out.stderr)
    };
    let (folded, _) = abs(&[]);
    assert!(folded.contains('…'), "folded by default:\n{folded}");
    let (whole, note) = abs(&["--no-fold-chains"]);
    assert!(!whole.contains('…'), "{whole}");
    assert!(note.contains("--no-fold-chains"), "{note}");
    let (last_wins, _) = abs(&["--no-fold-chains", "--fold-chains"]);
    assert!(last_wins.contains('…'), "{last_wins}");
}

#[test]
fn one_of_a_kind_is_singular() {
    let (dir, _t) = temp_file("only.txt", PREFIXED);
    let out = calltrace(["compare", "only.txt", "--out-dir", "out"])
        .current_dir(dir.path())
        .run()
        .success();
    let text = out.text() + &out.stderr;
    assert!(
        text.contains("before: 1 pattern in 1 group of equal function sets,"),
        "{text}"
    );
    assert!(
        text.contains("merge: 1 group (0 patterns changed group)"),
        "{text}"
    );
    for wrong in ["1 patterns", "1 groups", "(s)"] {
        assert!(!text.contains(wrong), "{wrong} in\n{text}");
    }
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(html.contains("calltrace compare: 1 pattern<"), "{html}");
    let svg = std::fs::read_to_string(dir.path().join("out/sweep.svg")).unwrap();
    assert!(svg.contains("(1 pattern)"), "sweep.svg caption");
}

#[test]
fn a_text_format_forced_on_a_binary_trace_says_what_the_file_is() {
    let hello = hello_pie();
    let bin = &hello.binary_trace().path;
    let msg = calltrace(["tree", hello.exe(), "--format", "addr", "--trace"])
        .args([bin])
        .run()
        .failure();
    assert!(
        msg.contains("binary calltrace trace") && msg.contains("--format binary"),
        "{msg}"
    );
    assert!(!msg.contains('\u{fffd}'), "{msg}");
    // Bytes that are not text are shown as escapes, not replaced.
    let (dir, _t) = temp_file("t.txt", b"E0x1000\n\xff\xfe\x01garbage\n");
    let msg = calltrace(["tree", "--format", "addr", "--trace", "t.txt"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert!(msg.contains("t.txt:2:"), "{msg}");
    assert!(msg.contains("\\xff\\xfe\\x01garbage"), "{msg}");
}

#[test]
fn callgrind_cmd_names_the_program() {
    let p = root().join("testdata/printer/traces");
    let out = calltrace(["export"])
        .args([p.join("printer")])
        .args([Path::new("--trace"), &p.join("fax.trace")])
        .args(["--to", "callgrind", "-o", "-"])
        .run()
        .success();
    let cmd = out
        .text()
        .lines()
        .find(|l| l.starts_with("cmd: "))
        .map(String::from);
    assert_eq!(cmd, Some(format!("cmd: {}", p.join("printer").display())));
}

/// The README's line that starts with `prefix` (inside a code block).
fn readme_line(prefix: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    readme
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("README has no line starting {prefix}"))
        .to_string()
}

#[test]
fn the_readme_completions_line_works_in_a_fresh_home() {
    let line = readme_line("mkdir -p ~/.local/share/bash-completion");
    let command = line.split("   #").next().unwrap();
    let home = tempfile::tempdir().unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:/usr/bin:/bin", bin_dir.display());
    let out = Command::new("sh")
        .args(["-c", command])
        .env("HOME", home.path())
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = home
        .path()
        .join(".local/share/bash-completion/completions/calltrace");
    let script = std::fs::read_to_string(script).unwrap();
    assert!(script.contains("complete -F _calltrace"));
}

#[test]
fn the_man_page_refers_to_no_missing_pages() {
    let man = calltrace(["man"]).run().success().text();
    assert!(!man.contains("(1)"), "refers to other pages");
    assert!(man.contains(".SH COMMANDS"));
    for cmd in ["graph", "compare", "live"] {
        let heading = format!(".SH \"CALLTRACE {}\"", cmd.to_uppercase());
        assert!(man.contains(&heading), "{heading}");
        assert!(man.contains(&format!("\\fBcalltrace {cmd}\\fR")), "{cmd}");
    }
}

#[test]
fn the_readme_jq_line_gives_the_runs_total_over_threads() {
    let Some(jq) = tool("jq") else {
        return;
    };
    let line = readme_line("calltrace export ./app --to json -o - | jq '");
    let filter = line.split('\'').nth(1).unwrap();
    // Two threads: 10 ns and 5 ns.
    let (dir, _t) = temp_file(
        "t.txt",
        "E main 0 1\nE worker 2 2\nX worker 7 2\nX main 10 1\n",
    );
    let json = calltrace(["export", "--trace", "t.txt", "--to", "json", "-o", "-"])
        .current_dir(dir.path())
        .run()
        .success()
        .stdout;
    let mut child = Command::new(jq)
        .arg(filter)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&json).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "15");
}

#[test]
fn edge_shares_over_100_percent_are_explained_in_the_picture() {
    // expr -> term -> expr -> term: term's calls sum to more than expr's total.
    let recursive = "E main 0\nE expr 0\nE term 1\nE expr 2\nE term 3\nX term 9\nX expr 9\nX term 10\nX expr 10\nX main 10\n";
    let graph = |trace: &str| {
        let (dir, _t) = temp_file("t.txt", trace);
        calltrace(["graph", "--trace", "t.txt", "-o", "-"])
            .current_dir(dir.path())
            .run()
            .success()
            .text()
    };
    let dot = graph(recursive);
    assert!(dot.contains("150.00%"), "{dot}");
    assert!(dot.contains("can pass 100%"), "{dot}");
    assert!(
        !graph(CHAIN).contains("can pass 100%"),
        "only when it happens"
    );
}

#[test]
fn calls_through_uninstrumented_code_hang_under_the_nearest_instrumented_caller() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("attributed to the nearest instrumented caller"));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("q.c");
    std::fs::write(
        &src,
        "#include <stdlib.h>\n\
         static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n\
         static void sort_all(int *v, int n) { qsort(v, n, sizeof *v, cmp); }\n\
         int main(void) { int v[] = {3, 1, 2}; sort_all(v, 3); return v[0] - 1; }\n",
    )
    .unwrap();
    let exe = dir.path().join("q");
    let built = Command::new("gcc")
        .args(["-g", "-O0", "-finstrument-functions"])
        .arg(&src)
        .arg(root().join("runtime/calltrace.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("gcc");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = Command::new(&exe).current_dir(dir.path()).status().unwrap();
    assert!(ran.success());
    let tree = calltrace(["tree"])
        .args([&exe])
        .args(["--view", "contexts"])
        .current_dir(dir.path())
        .run()
        .success();
    let shape = shape(&tree.text());
    let lines: Vec<&str> = shape.lines().collect();
    assert!(
        lines.len() == 3 && lines[..2] == ["main", "  sort_all"] && lines[2].starts_with("    cmp"),
        "cmp under sort_all, qsort not drawn:\n{}",
        tree.text()
    );
}

/// The rates table of report.html, each row's cells as text lines.
fn rates_rows(html: &str) -> Vec<Vec<Vec<String>>> {
    let start = html.find("<table id=\"rates\">").expect("rates table");
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    table
        .split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<t")
                .skip(1)
                .map(|cell| {
                    let body = &cell[cell.find('>').unwrap() + 1..];
                    body.split("<br>")
                        .map(|line| strip_tags(line).trim().to_string())
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in s.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn the_rates_table_fits_a_1280_pixel_window() {
    let p = root().join("testdata/printer");
    let dir = tempfile::tempdir().unwrap();
    calltrace(["compare"])
        .args([p.join("traces/printer")])
        .args([Path::new("--modules"), &p.join("modules.csv")])
        .args(["--out-dir", "out"])
        .args([p.join("traces")])
        .current_dir(dir.path())
        .run()
        .success();
    let page = dir.path().join("out/report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Estimate: the widest line of each column at 9 px a character (16 px
    // Helvetica digits are about 8.9 px) plus 1.4 em of padding, within
    // the page's 1200 px (a 1280 px window less the margins).
    let rows = rates_rows(&html);
    let columns = rows[0].len();
    let width: usize = (0..columns)
        .map(|c| {
            let widest = rows
                .iter()
                .filter_map(|r| r.get(c))
                .flat_map(|lines| lines.iter().map(|l| l.chars().count()))
                .max()
                .unwrap_or(0);
            widest * 9 + 22
        })
        .sum();
    assert!(width <= 1200, "the rates table needs about {width} px");
    // Names and method headings must not break at a hyphen.
    let style = &html[html.find("<style>").unwrap()..html.find("</style>").unwrap()];
    assert!(style.contains("td.name{white-space:nowrap}"), "{style}");
    assert!(
        style.contains("th{")
            && style[style.find("th{").unwrap()..]
                .split('}')
                .next()
                .unwrap()
                .contains("white-space:nowrap"),
        "{style}"
    );
    assert!(html.contains("<td class=\"name\">mono-nocompress</td>"));
    let Some(chromium) = tool("chromium") else {
        return;
    };
    // The real layout: a copy of the page with a script that records the
    // table's right edge and the line count of every name and heading.
    let probe = html.replace(
        "</body>",
        "<script>\nconst t = document.getElementById('rates');\n\
         const lines = e => { const r = document.createRange(); r.selectNodeContents(e); \
         return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; };\n\
         const cells = [...t.querySelectorAll('th, td.name')];\n\
         const p = document.createElement('pre'); p.id = 'probe';\n\
         p.textContent = 'right=' + Math.ceil(t.getBoundingClientRect().right) + ' width=' + \
         document.documentElement.clientWidth + ' wrapped=' + \
         cells.filter(c => lines(c) > 1).map(c => c.textContent).join('|') + ';';\n\
         document.body.appendChild(p);\n</script>\n</body>",
    );
    let probe_path = dir.path().join("probe.html");
    std::fs::write(&probe_path, probe).unwrap();
    let out = output_within(
        Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--window-size=1280,900",
                "--dump-dom",
            ])
            .arg(format!("file://{}", probe_path.display()))
            .current_dir(dir.path()),
        120,
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let probe = dom
        .split("<pre id=\"probe\">")
        .nth(1)
        .and_then(|s| s.split(';').next())
        .unwrap_or_else(|| {
            panic!(
                "no probe in the DOM: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let field = |name: &str| -> String {
        probe
            .split(' ')
            .find_map(|f| f.strip_prefix(&format!("{name}=")))
            .unwrap_or_default()
            .to_string()
    };
    let right: u32 = field("right").parse().unwrap();
    let width: u32 = field("width").parse().unwrap();
    assert!(
        right <= width,
        "the table ends at {right} px of {width}: {probe}"
    );
    assert_eq!(field("wrapped"), "", "names or headings wrapped: {probe}");
}
