//! `calltrace live [BINARY] --trace FILE|FIFO`: follows a text trace while
//! the program writes it and shows, a few times a second, each thread's
//! current stack, the top functions by self time over the last interval and
//! overall, events per second and events dropped (see `crate::live`). Quit
//! with q. Needs a terminal: with standard output redirected it stops with
//! an error instead of writing escape codes into a file.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
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
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            trace: PathBuf::from("trace.txt"),
            binary: None,
            refresh: Duration::from_millis(250),
            symbols: crate::symbols::SymbolOptions::default(),
        }
    }
}

/// Functions listed per table.
const TOP: usize = 30;

/// Runs `calltrace live` until the user quits.
pub fn run(opts: &LiveOptions) -> Result<Outcome> {
    // A trace given as BINARY is the first thing to say, wherever it runs.
    crate::pipeline::check_binary(opts.binary.as_deref())?;
    if !std::io::stdout().is_terminal() {
        return Err(Error::usage(
            "live",
            "standard output is not a terminal; `calltrace live` draws a full-screen view \
             (run `calltrace graph` or `tree` on the finished trace instead)",
        ));
    }
    if opts.trace.as_os_str() == "-" {
        return Err(Error::usage(
            "--trace",
            "live follows a file or a FIFO, not standard input",
        ));
    }
    check_text_trace(&opts.trace)?;
    let rx = follow::follow(&opts.trace);
    let mut monitor = Monitor::new(opts.binary.clone()).with_symbols(opts.symbols.clone());
    let mut term = ratatui::try_init().map_err(|e| Error::io("terminal", e))?;
    let result = event_loop(&mut term, &rx, &mut monitor, opts);
    ratatui::restore();
    result.map(|()| Outcome::default())
}

fn event_loop(
    term: &mut DefaultTerminal,
    rx: &Receiver<Msg>,
    monitor: &mut Monitor,
    opts: &LiveOptions,
) -> Result<()> {
    let name = opts.trace.display().to_string();
    let mut state = "following";
    let mut start = Instant::now();
    loop {
        if let Some(s) = read_available(rx, monitor, opts.refresh / 2)? {
            state = s;
        }
        let elapsed = start.elapsed();
        if elapsed >= opts.refresh {
            monitor.end_interval(elapsed.as_secs_f64());
            start = Instant::now();
        }
        let snap = monitor.snapshot(TOP);
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
/// live cannot follow: a binary trace, a program, compressed data. A FIFO
/// or a file not there yet is left to the follower.
fn check_text_trace(trace: &std::path::Path) -> Result<()> {
    use std::io::Read;
    if !trace.is_file() {
        return Ok(());
    }
    let mut head = Vec::new();
    std::fs::File::open(trace)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .map_err(|e| Error::io(trace.display().to_string(), e))?;
    let what = if head.starts_with(crate::ingest::binary::MAGIC) {
        Some(
            "a binary trace; live follows text traces (run the program without \
             CALLTRACE_FORMAT=binary, or read this one with `calltrace graph` or `tree`)"
                .to_string(),
        )
    } else {
        crate::ingest::guess::not_a_trace(&head)
    };
    match what {
        Some(what) => Err(Error::Input(format!("{}: {what}", trace.display()))),
        None => Ok(()),
    }
}

/// Feeds the monitor what the reader has sent, for at most `budget` (a
/// program writing faster than we parse must not freeze the screen); the
/// lines of one call are parsed together. Returns a new state to show, if any.
fn read_available(
    rx: &Receiver<Msg>,
    monitor: &mut Monitor,
    budget: Duration,
) -> Result<Option<&'static str>> {
    let until = Instant::now() + budget;
    let mut batch = Vec::new();
    let mut state = None;
    while Instant::now() < until {
        match rx.try_recv() {
            Ok(Msg::Lines(lines)) => batch.extend_from_slice(&lines),
            Ok(Msg::Restart) => {
                batch.clear();
                monitor.restart();
            }
            Ok(Msg::Ended) => state = Some("writer closed the FIFO"),
            Ok(Msg::Failed(e)) => return Err(Error::Input(e)),
            Err(_) => break,
        }
    }
    if !batch.is_empty() {
        monitor.feed(&batch)?;
    }
    Ok(state)
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
