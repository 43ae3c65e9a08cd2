//! The runtimes' parts: each printed runtime stands alone, each part is a
//! readable size, and the committed `runtime/calltrace.c` is the Linux
//! runtime as printed.

use super::*;

/// Lines of a part at most (the house's file-size bound, with slack).
const PART_LINES_MAX: usize = 700;

fn includes(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("#include"))
        .collect()
}

#[test]
fn printed_runtimes_include_no_part() {
    for (name, text) in [("linux", SOURCE), ("freestanding", FREESTANDING)] {
        let quoted: Vec<_> = includes(text)
            .into_iter()
            .filter(|l| l.contains('"'))
            .collect();
        assert!(quoted.is_empty(), "{name}: {quoted:?}");
    }
}

#[test]
fn every_part_is_below_the_size_bound() {
    for (path, text) in LINUX_PARTS.iter().chain(FREESTANDING_PARTS) {
        let lines = text.lines().count();
        assert!(lines < PART_LINES_MAX, "runtime/{path}: {lines} lines");
    }
}

#[test]
fn both_runtimes_carry_the_shared_part() {
    for parts in [LINUX_PARTS, FREESTANDING_PARTS] {
        assert_eq!(parts.iter().filter(|(p, _)| *p == "common.h").count(), 1);
    }
    let common = include_str!("../../../runtime/common.h");
    assert!(SOURCE.contains(common) && FREESTANDING.contains(common));
}

#[test]
fn printed_runtime_is_its_parts_in_order() {
    let joined: String = LINUX_PARTS.iter().map(|(_, t)| *t).collect();
    assert_eq!(joined, SOURCE);
    let joined: String = FREESTANDING_PARTS.iter().map(|(_, t)| *t).collect();
    assert_eq!(joined, FREESTANDING);
}

#[test]
fn freestanding_includes_only_stdint_and_stddef() {
    let mut found = includes(FREESTANDING);
    found.sort_unstable();
    found.dedup();
    assert_eq!(found, ["#include <stddef.h>", "#include <stdint.h>"]);
}

/// `_GNU_SOURCE` must come before any system header, or glibc hides
/// what the Linux runtime uses: the shared part goes after the Linux head.
#[test]
fn linux_runtime_defines_gnu_source_before_any_include() {
    let define = SOURCE.find("#define _GNU_SOURCE").expect("defined");
    let include = SOURCE.find("#include").expect("includes");
    assert!(define < include);
}

/// The committed `runtime/calltrace.c` (what scripts and the tests build
/// with) is the printed Linux runtime; `CALLTRACE_BLESS=1` rewrites it from
/// the parts.
#[test]
fn committed_calltrace_c_is_the_printed_runtime() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/calltrace.c");
    if std::env::var("CALLTRACE_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, SOURCE).expect("runtime/calltrace.c written");
    }
    let committed = std::fs::read_to_string(&path).expect("runtime/calltrace.c read");
    assert!(
        committed == SOURCE,
        "runtime/calltrace.c differs from the parts runtime/linux/*.c + runtime/common.h: \
         change the parts, then CALLTRACE_BLESS=1 cargo test --lib run::runtime"
    );
}

#[test]
fn options_default_to_the_linux_runtime() {
    assert_eq!(text(Options::default().which), SOURCE);
}
