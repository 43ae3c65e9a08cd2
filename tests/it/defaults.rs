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
