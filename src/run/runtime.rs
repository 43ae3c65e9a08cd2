//! `calltrace runtime`: the bundled C tracing runtime, embedded in the
//! binary so users can `calltrace runtime > calltrace.c` anywhere, and its
//! interpreter API header (`calltrace runtime --header > calltrace.h`).

use crate::error::Result;
use crate::run::Outcome;

/// The runtime's C source (runtime/calltrace.c).
pub const SOURCE: &str = include_str!("../../runtime/calltrace.c");

/// The interpreter API header (runtime/calltrace.h).
pub const HEADER: &str = include_str!("../../runtime/calltrace.h");

/// Prints the runtime's source, or its header when `header` (`--header`).
pub fn run(header: bool) -> Result<Outcome> {
    let text = if header { HEADER } else { SOURCE };
    crate::emit::write_atomic("-".as_ref(), text.as_bytes())?;
    Ok(Outcome::default())
}
