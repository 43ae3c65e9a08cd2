//! `calltrace runtime`: the bundled C tracing runtime, embedded in the
//! binary so users can `calltrace runtime > calltrace.c` anywhere.

/// The runtime's C source (runtime/calltrace.c).
pub const SOURCE: &str = include_str!("../../runtime/calltrace.c");
