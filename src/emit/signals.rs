//! Cleanup on SIGINT, SIGTERM and SIGHUP: the temporary files that
//! [`super::output`] is writing are removed, then the signal takes its
//! default course (the process ends as killed by it). A dedicated thread
//! waits for the signals, so the cleanup runs outside a signal handler and
//! may lock and allocate.

use std::sync::Once;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

static INSTALL: Once = Once::new();

/// Starts the cleanup thread (once; later calls do nothing). Called before
/// the first temporary file is created.
pub fn install() {
    INSTALL.call_once(|| {
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .name("calltrace-signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    super::output::remove_live_temporaries();
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    // A signal whose default is not to end the process.
                    std::process::exit(128 + sig);
                }
            });
        drop(spawned);
    });
}
