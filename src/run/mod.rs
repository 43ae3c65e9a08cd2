//! The commands, one file each, as library functions the thin binary calls.
//! Each takes its `Options` (built from flags by `cli`), runs the pipeline
//! and writes its outputs; what it wants said on stderr comes back in an
//! [`Outcome`].

pub mod abstract_;
pub mod compare;
pub mod coverage;
pub mod diff;
pub mod export;
pub mod files;
pub mod graph;
pub mod info;
pub mod live;
pub mod runtime;
pub mod stats;
pub mod tree;
pub mod view;

/// What a command wants the binary to print after its outputs (warnings
/// known before them are said before them: [`warn_now`]), printed by
/// [`report`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Counted problems, one line each, printed as warnings.
    pub warnings: Vec<String>,
    /// Informational lines for stderr (what was written where).
    pub notes: Vec<String>,
}

/// Prints an outcome on stderr: each distinct warning once, then the
/// notes. `main` calls it after a command; a command that fails a gate
/// (exit 3) after writing its outputs calls it before failing.
pub fn report(outcome: &Outcome) {
    use std::io::Write;
    warn_now(&outcome.warnings);
    let mut err = std::io::stderr().lock();
    for n in &outcome.notes {
        let _ = writeln!(err, "calltrace: {}", crate::escape_controls(n));
    }
}

/// Prints `warnings` on stderr now, before the command writes its output:
/// what bears on the output's correctness (names from another build,
/// repairs, missing debug information) must not come after thousands of
/// lines of it, where `| head` or `| less` hides it. This and [`report`]
/// are the one channel: a warning said once is not said again (two
/// patterns, or a trace on both sides of `diff`, with the same repair).
pub fn warn_now(warnings: &[String]) {
    static SAID: std::sync::Mutex<Option<std::collections::HashSet<String>>> =
        std::sync::Mutex::new(None);
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    let said = said.get_or_insert_with(Default::default);
    for w in warnings {
        if said.insert(w.clone()) {
            print_warning(w);
        }
    }
}

/// Prints one `calltrace: warning: ...` line on stderr.
pub fn print_warning(warning: &str) {
    use std::io::Write;
    let line = crate::escape_controls(warning);
    let _ = writeln!(std::io::stderr().lock(), "calltrace: warning: {line}");
}

pub(crate) use crate::emit::format::counted;

/// The one function `pattern` names among `names` (see
/// [`FuncPattern`]), for `flag`; none without a pattern.
pub(crate) fn function(
    names: &[crate::symbols::FuncInfo],
    flag: &str,
    pattern: Option<&crate::symbols::FuncPattern>,
) -> crate::Result<Option<crate::ingest::FuncId>> {
    pattern
        .map(|p| p.pick_function(names))
        .transpose()
        .map_err(|e| crate::Error::usage(flag, e))
}

/// Names longer than this make boxes wider than a screen.
const LONG_NAME: usize = 100;

/// A hint to shorten C++ names when full ones (`style`) of the functions
/// `shown` make a picture too wide to read (optimised C++ with the
/// standard library: names of 100 to 300 characters, several screens
/// wide). `what` says which names were counted.
pub(crate) fn long_names_hint(
    style: crate::symbols::Demangle,
    shown: impl Iterator<Item = crate::ingest::FuncId>,
    names: &[crate::symbols::FuncInfo],
    what: &str,
) -> Option<String> {
    if style != crate::symbols::Demangle::Full {
        return None;
    }
    let mut long: Vec<crate::ingest::FuncId> = shown
        .filter(|&f| {
            names
                .get(f as usize)
                .is_some_and(|i| i.name.len() > LONG_NAME)
        })
        .collect();
    long.sort_unstable();
    long.dedup();
    let n = long.len();
    (n > 0).then(|| {
        format!(
            "{n} of {what} are over {LONG_NAME} characters; --demangle simple draws them without templates and parameters"
        )
    })
}
