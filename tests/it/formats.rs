//! Trace formats as the user sees them: `--format` offers exactly the
//! formats of `ingest::formats()`, each with its own help, and every
//! command that reads a trace offers the same ones.

use calltrace::ingest;

use super::util::*;

/// The `--format` possible values of `command --help`: (name, help) pairs.
fn format_values(command: &str) -> Vec<(String, String)> {
    let out = calltrace([command, "--help"]).run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.text();
    let section = text
        .split("--format <FORMAT>")
        .nth(1)
        .unwrap_or_else(|| panic!("no --format in `{command} --help`:\n{text}"));
    section
        .lines()
        .skip_while(|l| !l.contains("Possible values:"))
        .skip(1)
        .map_while(|l| l.trim().strip_prefix("- "))
        .filter_map(|v| v.split_once(':'))
        .map(|(name, help)| (name.trim().to_string(), help.trim().to_string()))
        .collect()
}

#[test]
fn format_values_and_their_help_are_the_registered_formats() {
    let mut expected: Vec<(String, String)> = ingest::formats()
        .map(|f| (f.name().to_string(), f.help().to_string()))
        .collect();
    expected.sort();
    for (name, help) in &expected {
        assert!(!help.is_empty(), "format `{name}` has no help");
    }
    let names: Vec<&str> = ingest::format_names().collect();
    assert_eq!(names.len(), expected.len());
    for command in ["graph", "tree", "abstract", "export"] {
        let mut offered = format_values(command);
        offered.sort();
        assert_eq!(offered, expected, "`{command} --format`");
    }
}

#[test]
fn a_lenient_read_counts_binary_records_and_text_lines() {
    // A binary trace whose only block is damaged, and a text trace with a
    // bad line: the warning names what the format is made of.
    use ingest::EventKind::{Enter, Exit};
    let block = |tid| (tid, vec![(Enter, 0x10, 1), (Exit, 0x10, 2)]);
    let first_end = ingest::binary::encode(0, "/tmp/app", &[block(1)]).len();
    let mut bytes = ingest::binary::encode(0, "/tmp/app", &[block(1), block(2)]);
    bytes[first_end - 1] ^= 0xff;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("t.bin");
    std::fs::write(&bin, &bytes).unwrap();
    let txt = dir.path().join("t.txt");
    std::fs::write(&txt, "E0x10\ngarbage\nX0x10\n").unwrap();
    for (trace, what) in [(&bin, "record"), (&txt, "line")] {
        let out = calltrace(["graph", "--lenient", "-o", "/dev/null", "--trace"])
            .args([trace])
            .run();
        assert!(
            out.stderr
                .contains(&format!("skipped 1 malformed {what}(s)")),
            "{}: {}",
            trace.display(),
            out.stderr
        );
    }
}
