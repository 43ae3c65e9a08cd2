//! Cleanup on SIGINT, SIGTERM and SIGHUP: the temporary files that
//! [`super::output`] is writing (registered here) are removed, then the signal takes its
//! default course (the process ends as killed by it). A dedicated thread
//! waits for the signals, so the cleanup runs outside a signal handler and
//! may lock and allocate.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

static INSTALL: Once = Once::new();

/// Temporary files being written, removed on SIGINT/SIGTERM.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The temporary files being written ([`super::output`] adds each one
/// while it holds this lock, and forgets it once renamed or removed).
pub(super) fn lock_live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Forgets a temporary file that was renamed into place or removed.
pub(super) fn forget(path: &Path) {
    lock_live().retain(|p| p != path);
}

/// Removes every live temporary file (on SIGINT/SIGTERM); returns how many.
pub fn remove_live_temporaries() -> usize {
    let live = std::mem::take(&mut *lock_live());
    live.iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

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
                    remove_live_temporaries();
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    // A signal whose default is not to end the process.
                    std::process::exit(128 + sig);
                }
            });
        drop(spawned);
    });
}
