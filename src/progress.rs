//! A progress bar on stderr while a big trace is read: bytes read of the
//! file, read rate, events per second (estimated from the file's average
//! bytes per event line) and time left. Shown only when stderr is a
//! terminal, the trace is a file of at least [`MIN_BYTES`], and `--quiet`
//! was not given; it is cleared when reading ends. `compare` counts the
//! patterns it has analysed on a bar of its own (`patterns`).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::ingest::Input;

/// Smaller traces are read too fast to need a bar.
pub(crate) const MIN_BYTES: usize = 4 << 20;

/// Runs `work` while a bar follows how much of `input` it has consumed.
pub(crate) fn follow<T>(input: &Input, quiet: bool, label: &str, work: impl FnOnce() -> T) -> T {
    let len = match input.mapped_len() {
        Some(len) if wanted(quiet, std::io::stderr().is_terminal(), len) => len,
        _ => return work(),
    };
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| draw(input, len, label, &done));
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// `compare`'s bar of patterns analysed, on stderr when it is a terminal
/// and not `--quiet`, else hidden.
pub(crate) fn patterns(len: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} patterns  {elapsed}") {
        bar.set_style(style);
    }
    bar
}

/// Whether to show a bar.
fn wanted(quiet: bool, terminal: bool, len: usize) -> bool {
    !quiet && terminal && len >= MIN_BYTES
}

fn draw(input: &Input, len: usize, label: &str, done: &AtomicBool) {
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    let template = "{prefix} {bar:30} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {msg} ETA {eta}";
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_prefix(label.to_string());
    let per_event = bytes_per_event(input.head(64 * 1024));
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        bar.set_position(input.consumed() as u64);
        let secs = bar.elapsed().as_secs_f64().max(1e-3);
        let events = input.consumed() as f64 / per_event / secs;
        bar.set_message(format!("~{:.1} M events/s", events / 1e6));
    }
    bar.finish_and_clear();
}

/// Average length of the non-comment lines in `head` (one event a line in
/// E/X traces); 16 bytes when there are none (binary traces are close).
fn bytes_per_event(head: &[u8]) -> f64 {
    let lines = head
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty() && l[0] != b'#')
        .count();
    let bytes = head.len() as f64;
    match lines {
        n if n > 1 && !head.contains(&0) => bytes / n as f64,
        _ => 16.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_big_files_on_a_terminal_without_quiet() {
        assert!(wanted(false, true, MIN_BYTES));
        assert!(!wanted(true, true, MIN_BYTES), "--quiet");
        assert!(!wanted(false, false, MIN_BYTES), "stderr is not a terminal");
        assert!(!wanted(false, true, MIN_BYTES - 1), "small trace");
    }

    #[test]
    fn events_are_estimated_from_line_lengths() {
        assert_eq!(bytes_per_event(b"# c\nE0x1 1\nX0x1 2\n"), 18.0 / 2.0);
        assert_eq!(bytes_per_event(b"CALLTRC\0\x01"), 16.0);
    }
}
