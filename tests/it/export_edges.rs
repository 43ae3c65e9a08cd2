//! `calltrace export` at the edges: a trace cut off mid-line, outputs too
//! big to be useful, and trees too deep for a format that repeats each
//! calling context's whole path.

use super::util::*;

/// Every way export reads a trace (a tree, a tree through the filters,
/// and the streamed formats' two passes) says that a last line without a
/// line end is one the program was cut off in.
#[test]
fn every_export_says_a_cut_off_last_line_is_one() {
    let (dir, _) = temp_file("cut.txt", "E main 1 1\nE f 2 1\nX f 3 1\nX mai");
    for extra in [
        &["--to", "folded"][..],
        &["--to", "folded", "--tid", "1"],
        &["--to", "chrome"],
        &["--to", "perfetto"],
        &["--to", "tlv"],
        &["--to", "chrome", "--tid", "1"],
    ] {
        let out = calltrace(["export", "--trace", "cut.txt", "-o", "out"])
            .args(extra)
            .current_dir(dir.path())
            .run();
        assert_eq!(out.code, 2, "{extra:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("cut.txt:4: ")
                && out
                    .stderr
                    .contains("the program was cut off while writing it (--lenient skips it)"),
            "{extra:?}: {}",
            out.stderr
        );
        assert_eq!(listing(dir.path()), ["cut.txt"], "{extra:?}");
    }
}
