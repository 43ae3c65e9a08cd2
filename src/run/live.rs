//! `calltrace live [BINARY] --trace FILE|FIFO`: follows a trace (text or
//! binary) while the program writes it and shows, a few times a second,
//! each thread's current stack, the top functions by self time over the
//! last interval and overall, events per second and events dropped (see
//! `crate::live`). Quit with q. Needs a terminal: with standard output
//! redirected it stops with an error instead of writing escape codes into
//! a file, unless `--batch` asks for the totals as CSV at the end instead.
//!
//! Three threads: the follower reads (`live::follow`), a parsing thread
//! feeds the [`Monitor`] as fast as bytes come, and this one draws on a
//! timer and waits for keys. Drawing never holds up reading: the program
//! writing a FIFO waits only when parsing falls 64 MiB behind.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};

use super::Outcome;
use crate::error::{Error, Result};
use crate::live::Monitor;
use crate::live::follow::{self, Msg};
use crate::live::screen::{self, Title};

/// Options of `calltrace live`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveOptions {
    /// The trace file or FIFO being written. Default is `trace.txt`.
    pub(crate) trace: PathBuf,
    /// The traced executable, to name addresses. Default is none.
    pub(crate) binary: Option<PathBuf>,
    /// How often the screen is redrawn (one interval). Default is 250 ms.
    pub(crate) refresh: Duration,
    /// Search path and demangling style. Default is `nm -C` names, no search path.
    pub(crate) symbols: crate::symbols::SymbolOptions,
    /// Draw nothing: read the trace to its end (a FIFO until its writer
    /// closes it, a file to its current end) and print each function's
    /// calls and self time as CSV. Default is false.
    pub(crate) batch: bool,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            trace: PathBuf::from("trace.txt"),
            binary: None,
            refresh: Duration::from_millis(250),
            symbols: crate::symbols::SymbolOptions::default(),
            batch: false,
        }
    }
}

/// Functions listed per table.
const TOP: usize = 30;

/// What the parsing thread shares with the drawing one.
struct Shared {
    monitor: Monitor,
    /// A new state for the title bar (the FIFO's writer closed it).
    state: Option<&'static str>,
    /// Why parsing stopped, if it failed.
    failed: Option<Error>,
}

/// Runs `calltrace live` until the user quits (or, with `--batch`, the trace ends).
pub fn run(opts: &LiveOptions) -> Result<Outcome> {
    // A trace given as BINARY is the first thing to say, wherever it runs.
    crate::pipeline::check_binary(opts.binary.as_deref())?;
    if !opts.batch && !std::io::stdout().is_terminal() {
        return Err(Error::usage(
            "live",
            "standard output is not a terminal; `calltrace live` draws a full-screen view \
             (run `calltrace graph` or `tree` on the finished trace instead, or \
             `live --batch` for the totals at the end)",
        ));
    }
    if opts.trace.as_os_str() == "-" {
        return Err(Error::usage(
            "--trace",
            "live follows a file or a FIFO, not standard input",
        ));
    }
    check_trace(&opts.trace)?;
    let follower = follow::follow(&opts.trace, opts.batch);
    let monitor = Monitor::new(opts.binary.clone()).with_symbols(opts.symbols.clone());
    let shared = Arc::new(Mutex::new(Shared {
        monitor,
        state: None,
        failed: None,
    }));
    let parser = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || parse_loop(&follower, &shared))
    };
    if opts.batch {
        let _ = parser.join();
        return totals(opts, &mut lock(&shared));
    }
    let mut term = ratatui::try_init().map_err(|e| Error::io("terminal", e))?;
    let result = event_loop(&mut term, &shared, opts);
    ratatui::restore();
    result.map(|()| Outcome::default())
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// Feeds the monitor everything the follower sends, as it comes, until
/// the trace ends, fails or the view is gone.
fn parse_loop(follower: &follow::Follower, shared: &Mutex<Shared>) {
    while let Ok(msg) = follower.rx.recv() {
        let mut s = lock(shared);
        let stop = match msg {
            Msg::Bytes(bytes) => match s.monitor.feed(&bytes) {
                Ok(()) => {
                    follower.give_back(bytes);
                    false
                }
                Err(e) => {
                    s.failed = Some(e);
                    true
                }
            },
            Msg::Restart => {
                s.monitor.restart();
                false
            }
            Msg::Ended => {
                s.state = Some("writer closed the FIFO");
                true
            }
            Msg::Failed(e) => {
                s.failed = Some(Error::Input(e));
                true
            }
        };
        if stop {
            break;
        }
    }
}

/// `--batch`: the totals as CSV on stdout, the figures as a note.
fn totals(opts: &LiveOptions, s: &mut Shared) -> Result<Outcome> {
    if let Some(e) = s.failed.take() {
        return Err(e);
    }
    let snap = s.monitor.snapshot(0);
    let unit = if snap.timed { "self_ns" } else { "self_calls" };
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Error::Input(format!("cannot write CSV: {e}"));
    w.write_record(["function", "calls", unit]).map_err(err)?;
    for t in s.monitor.totals() {
        w.write_record([&t.name, &t.calls.to_string(), &t.self_weight.to_string()])
            .map_err(err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Input(format!("cannot write CSV: {e}")))?;
    crate::emit::write_atomic("-".as_ref(), &bytes)?;
    let mut outcome = Outcome::default();
    outcome.notes.push(format!(
        "followed {}: {} events, {} dropped, {} skipped",
        opts.trace.display(),
        snap.events,
        snap.dropped,
        snap.skipped
    ));
    if let Some(p) = snap.problem {
        outcome.warnings.push(p);
    }
    Ok(outcome)
}

fn event_loop(
    term: &mut DefaultTerminal,
    shared: &Mutex<Shared>,
    opts: &LiveOptions,
) -> Result<()> {
    let name = opts.trace.display().to_string();
    let mut state = "following";
    let mut start = Instant::now();
    loop {
        let snap = {
            let mut s = lock(shared);
            if let Some(e) = s.failed.take() {
                return Err(e);
            }
            state = s.state.unwrap_or(state);
            let elapsed = start.elapsed();
            if elapsed >= opts.refresh {
                s.monitor.end_interval(elapsed.as_secs_f64());
                start = Instant::now();
            }
            s.monitor.snapshot(TOP)
        };
        let title = Title {
            trace: &name,
            state,
            interval: opts.refresh.as_secs_f64(),
        };
        term.draw(|f| screen::draw(f, &snap, &title))
            .map_err(|e| Error::io("terminal", e))?;
        let wait = opts.refresh.saturating_sub(start.elapsed());
        if quit_requested(wait).map_err(|e| Error::io("terminal", e))? {
            return Ok(());
        }
    }
}

/// Stops before the screen is drawn when `trace` is a regular file that
/// live cannot follow: a program, compressed data. A FIFO or a file not
/// there yet is left to the follower.
fn check_trace(trace: &std::path::Path) -> Result<()> {
    use std::io::Read;
    if !trace.is_file() {
        return Ok(());
    }
    let mut head = Vec::new();
    std::fs::File::open(trace)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .map_err(|e| Error::io(trace.display().to_string(), e))?;
    if head.starts_with(crate::ingest::binary::MAGIC) {
        return Ok(());
    }
    match crate::ingest::guess::not_a_trace(&head) {
        Some(what) => Err(Error::Input(format!("{}: {what}", trace.display()))),
        None => Ok(()),
    }
}

/// Waits up to `wait` for a key; true for q, Esc or Ctrl-C.
fn quit_requested(wait: Duration) -> std::io::Result<bool> {
    if !event::poll(wait)? {
        return Ok(false);
    }
    Ok(match event::read()? {
        Event::Key(k) if k.kind == KeyEventKind::Press => {
            matches!(k.code, KeyCode::Char('q') | KeyCode::Esc)
                || (k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL))
        }
        _ => false,
    })
}
