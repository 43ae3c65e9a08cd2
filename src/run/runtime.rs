//! `calltrace runtime`: the bundled C tracing runtimes, embedded in the
//! binary so users can `calltrace runtime > calltrace.c` anywhere. Three
//! texts: the Linux runtime (default), the freestanding runtime for
//! microcontrollers (`--freestanding`), and the interpreter API header
//! (`--header`).
//!
//! Each runtime is kept in parts under `runtime/` (the part both share,
//! `common.h`, and each runtime's own parts, each a readable size) that are
//! put together here, in order, into the one file a user drops into the
//! build: so the two runtimes cannot drift apart in what they share.
//! `runtime/calltrace.c` is the Linux runtime put together, committed for
//! scripts and builds that use the source tree; a unit test keeps it equal.

use crate::error::Result;
use crate::run::Outcome;

/// Declares a runtime as its parts (paths under `runtime/`, in order): the
/// put-together text `$text` and the `(path, text)` list `$parts`.
macro_rules! runtime_parts {
    ($(#[$doc:meta])* $text:ident, $parts:ident, [$($path:literal),+ $(,)?]) => {
        $(#[$doc])*
        pub const $text: &str = concat!($(include_str!(concat!("../../runtime/", $path))),+);
        /// The parts, each as its path under `runtime/` and its text.
        pub const $parts: &[(&str, &str)] =
            &[$(($path, include_str!(concat!("../../runtime/", $path)))),+];
    };
}

runtime_parts!(
    /// The Linux (pthreads) runtime's C source, as `calltrace runtime` prints it.
    SOURCE,
    LINUX_PARTS,
    [
        "linux/head.c",
        "common.h",
        "linux/state.c",
        "linux/io.c",
        "linux/encode.c",
        "linux/writer.c",
        "linux/startup.c",
        "linux/threads.c",
        "linux/record.c",
        "linux/exit.c",
    ]
);

runtime_parts!(
    /// The freestanding runtime's C source (`calltrace runtime --freestanding`).
    FREESTANDING,
    FREESTANDING_PARTS,
    [
        "freestanding/head.c",
        "common.h",
        "freestanding/buffer.c",
        "freestanding/record.c",
        "freestanding/api.c",
    ]
);

/// The interpreter API header (runtime/calltrace.h).
pub const HEADER: &str = include_str!("../../runtime/calltrace.h");

/// Which text `calltrace runtime` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Which {
    /// The Linux (pthreads) runtime, `calltrace.c`.
    #[default]
    Linux,
    /// The runtime for targets without an OS (`--freestanding`).
    Freestanding,
    /// The interpreter API header, `calltrace.h` (`--header`).
    Header,
}

/// Options of `calltrace runtime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// The text to print. Default is the Linux runtime.
    pub which: Which,
}

/// The text `which` names.
pub fn text(which: Which) -> &'static str {
    match which {
        Which::Linux => SOURCE,
        Which::Freestanding => FREESTANDING,
        Which::Header => HEADER,
    }
}

/// Prints the text the options name on stdout.
pub fn run(options: &Options) -> Result<Outcome> {
    crate::emit::write_atomic("-".as_ref(), text(options.which).as_bytes())?;
    Ok(Outcome::default())
}

#[cfg(test)]
mod tests;
