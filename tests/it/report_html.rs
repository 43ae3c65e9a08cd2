//! `report.html` of `calltrace compare`: one self-contained page with the
//! tables, both plots inline and the top functions per pattern, which a
//! browser (headless Chromium) renders without errors.

use std::path::Path;
use std::process::Command;

use super::util::*;

/// Compares the shipped printer patterns into `out`.
fn compare_printer(out: &Path) {
    let printer = root().join("testdata/printer");
    calltrace(["compare", "--binary"])
        .args([printer.join("traces/printer")])
        .args([
            "--modules".as_ref(),
            printer.join("modules.csv").as_os_str(),
        ])
        .args(["--out-dir".as_ref(), out.as_os_str()])
        .args([printer.join("traces")])
        .run()
        .success();
}

#[test]
fn report_html_is_self_contained_and_renders_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    compare_printer(dir.path());
    let page_path = dir.path().join("report.html");
    let html = std::fs::read_to_string(&page_path).expect("report.html is written");
    let patterns = std::fs::read_dir(root().join("testdata/printer/traces"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "trace")
        })
        .count();
    assert_eq!(html.matches("<svg").count(), 2, "both plots inline");
    // Top functions and slowest calls per pattern, and the distinguishing
    // functions of the 6 patterns that have some (13 in all, as
    // features.csv lists them).
    assert_eq!(
        html.matches("<details>").count(),
        2 * patterns + 6,
        "top functions and slowest calls per pattern"
    );
    assert_eq!(html.matches("<table class=\"slowest\">").count(), patterns);
    assert!(
        html.contains("<summary>fax: 7 distinguishing functions</summary>"),
        "the fax pattern's distinguishing functions are listed"
    );
    assert!(
        html.contains("<tr><td>fax_dial</td><td>lost</td><td>kept</td><td>lost</td>"),
        "with what each method keeps"
    );
    assert!(
        html.contains("modules: a table of 8 modules") && html.contains("(--min-total) 0.10%"),
        "the header says which modules and --min-total ran"
    );
    assert!(
        html.contains("fax_encode_g3"),
        "a heavy function of the fax pattern"
    );
    assert!(html.contains(" us</td>"), "times carry their unit");
    for external in ["src=\"http", "href=\"http", "<script", "<link"] {
        assert!(!html.contains(external), "self-contained: found {external}");
    }
    let Some(chromium) = tool("chromium") else {
        return;
    };
    let url = format!("file://{}", page_path.display());
    let headless = |extra: &[&str]| {
        let out = Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--enable-logging=stderr",
            ])
            .args(extra)
            .arg(&url)
            .current_dir(dir.path())
            .output()
            .expect("run chromium");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let console: Vec<&str> = stderr.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(console.is_empty(), "page errors: {console:?}");
        assert!(out.status.success(), "{stderr}");
        out.stdout
    };
    let dom = String::from_utf8(headless(&["--dump-dom"])).unwrap();
    assert!(
        dom.contains("<table id=\"rates\">"),
        "{}",
        &dom[..dom.len().min(500)]
    );
    assert_eq!(dom.matches("<svg").count(), 2);
    let shot = dir.path().join("report.png");
    headless(&[
        &format!("--screenshot={}", shot.display()),
        "--window-size=1280,1600",
    ]);
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    if let Some(keep) = std::env::var_os("CALLTRACE_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}
