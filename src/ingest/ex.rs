//! E/X traces: one entry (`E`) or exit (`X`) per line, as written by the
//! classic `instrument.c` (`E0x401136`) and by our runtime
//! (`E0x401136 1234 77`: address, timestamp in ns, thread id), plus the
//! symbolic variant for interpreters and hand-written tracers (`E main 120 1`).
//!
//! The token after the letter is an address when it is glued to the letter
//! or starts with `0x`; otherwise it is a function name. `#` starts a
//! comment, except the header `# base 0xADDR [path]` which records the
//! executable's load address. Timestamp and thread columns are optional but
//! must be used consistently: the first event line decides.

use super::{
    BATCH, Event, EventKind, FuncTable, Input, ParseOptions, Sink, ThreadIds, TraceFormat,
    TraceMeta, skip_or_fail,
};
use crate::error::{Error, Result};

/// E/X trace of code addresses (`E0x401136`, optional time and thread columns).
pub struct AddrFormat;

/// E/X trace of function names (`E main`, optional time and thread columns).
pub struct SymbolicFormat;

impl TraceFormat for AddrFormat {
    fn name(&self) -> &'static str {
        "addr"
    }
    fn sniff(&self, head: &[u8]) -> bool {
        sniff_ex(head) == Some(true)
    }
    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        ExParser::new(self.name(), false, input.name(), opts, funcs).run(input, sink)
    }
}

impl TraceFormat for SymbolicFormat {
    fn name(&self) -> &'static str {
        "symbolic"
    }
    fn sniff(&self, head: &[u8]) -> bool {
        sniff_ex(head) == Some(false)
    }
    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        ExParser::new(self.name(), true, input.name(), opts, funcs).run(input, sink)
    }
}

/// `Some(true)` when the first event lines carry addresses, `Some(false)`
/// for names, `None` when the input does not start with an E/X line. Later
/// lines that are not events do not change the verdict: the parser reports
/// them with their line number (or skips them under `--lenient`).
fn sniff_ex(head: &[u8]) -> Option<bool> {
    let mut lines = super::guess::meaningful_lines(head).take(4);
    let (_, first, _) = split_event(lines.next()?)?;
    let verdict = first.is_addr();
    // mixed: the address parser reports the odd line
    let mixed = lines
        .filter_map(split_event)
        .any(|(_, token, _)| token.is_addr() != verdict);
    Some(verdict || mixed)
}

/// The function token of an event line.
#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    Addr(&'a [u8]),
    Name(&'a [u8]),
}

impl Token<'_> {
    fn is_addr(&self) -> bool {
        matches!(self, Token::Addr(_))
    }
}

/// Splits an event line into kind, function token and the remaining columns.
fn split_event(line: &[u8]) -> Option<(EventKind, Token<'_>, &[u8])> {
    let kind = match line.first()? {
        b'E' => EventKind::Enter,
        b'X' => EventKind::Exit,
        _ => return None,
    };
    let rest = &line[1..];
    let glued = rest.first().is_some_and(|b| !b.is_ascii_whitespace());
    let rest = trim_start(rest);
    let end = rest
        .iter()
        .position(|b| b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    let (tok, cols) = rest.split_at(end);
    if tok.is_empty() {
        return None;
    }
    let token = if glued || tok.starts_with(b"0x") || tok.starts_with(b"0X") {
        Token::Addr(tok)
    } else {
        Token::Name(tok)
    };
    Some((kind, token, cols))
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

/// Parses a hex address with or without `0x`.
pub(crate) fn parse_hex(tok: &[u8]) -> Option<u64> {
    let digits = tok
        .strip_prefix(b"0x")
        .or_else(|| tok.strip_prefix(b"0X"))
        .unwrap_or(tok);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &b in digits {
        let d = (b as char).to_digit(16)?;
        v = (v << 4) | d as u64;
    }
    Some(v)
}

/// Parses an unsigned decimal integer.
pub(crate) fn parse_dec(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() {
        return None;
    }
    tok.iter().try_fold(0u64, |v, &b| {
        let d = (b as char).to_digit(10)?;
        v.checked_mul(10)?.checked_add(d as u64)
    })
}

/// Which optional columns the trace uses, fixed by its first event line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    time: bool,
    thread: bool,
    line: u64,
}

struct ExParser<'a> {
    symbolic: bool,
    path: &'a str,
    opts: &'a ParseOptions,
    funcs: &'a mut FuncTable,
    meta: TraceMeta,
    threads: ThreadIds,
    columns: Option<Columns>,
    batch: Vec<Event>,
}

impl<'a> ExParser<'a> {
    fn new(
        format: &'static str,
        symbolic: bool,
        path: &'a str,
        opts: &'a ParseOptions,
        funcs: &'a mut FuncTable,
    ) -> Self {
        ExParser {
            symbolic,
            path,
            opts,
            funcs,
            meta: TraceMeta {
                format,
                ..TraceMeta::default()
            },
            threads: ThreadIds::default(),
            columns: None,
            batch: Vec::with_capacity(BATCH),
        }
    }

    fn run(mut self, data: &[u8], sink: &mut dyn Sink) -> Result<TraceMeta> {
        for (i, line) in data.split(|&b| b == b'\n').enumerate() {
            let lineno = i as u64 + 1;
            if let Err(e) = self.line(line, lineno) {
                skip_or_fail(&mut self.meta, self.opts, e)?;
            }
            if self.batch.len() >= BATCH {
                sink.events(&self.batch);
                self.batch.clear();
            }
        }
        sink.events(&self.batch);
        self.meta.timed = self.columns.is_some_and(|c| c.time);
        self.meta.threads = self.threads.into_ids();
        if self.meta.threads.is_empty() {
            self.meta.threads.push(0);
        }
        Ok(self.meta)
    }

    fn line(&mut self, line: &[u8], lineno: u64) -> Result<()> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = trim_start(line);
        if line.is_empty() {
            return Ok(());
        }
        if line[0] == b'#' {
            return self.comment(line, lineno);
        }
        let Some((kind, token, cols)) = split_event(line) else {
            return Err(self.err(
                lineno,
                line,
                "an event line like `E0x401136` or `X0x401136`",
            ));
        };
        let func = match token {
            Token::Addr(a) => match parse_hex(a) {
                Some(addr) => self.funcs.addr(addr),
                None => return Err(self.err(lineno, line, "a hex address after E/X")),
            },
            Token::Name(n) if self.symbolic => self.funcs.name(&String::from_utf8_lossy(n)),
            Token::Name(_) => {
                return Err(self.err(
                    lineno,
                    line,
                    "an address after E/X (use --format symbolic for traces of function names)",
                ));
            }
        };
        let (time, thread) = self.columns(cols, lineno, line)?;
        let thread = self.threads.index(thread);
        self.batch.push(Event {
            time,
            func,
            thread,
            kind,
        });
        Ok(())
    }

    /// Parses the optional timestamp and thread columns.
    fn columns(&mut self, cols: &[u8], lineno: u64, line: &[u8]) -> Result<(u64, u64)> {
        let mut toks = cols
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let time = toks.next();
        let thread = toks.next();
        if toks.next().is_some() {
            return Err(self.err(
                lineno,
                line,
                "at most two columns after the function (timestamp, thread id)",
            ));
        }
        let seen = Columns {
            time: time.is_some(),
            thread: thread.is_some(),
            line: lineno,
        };
        let expected = *self.columns.get_or_insert(seen);
        if (expected.time, expected.thread) != (seen.time, seen.thread) {
            let what = match (expected.time, expected.thread) {
                (false, _) => "no columns after the function",
                (true, false) => "one timestamp column after the function",
                (true, true) => "a timestamp and a thread id after the function",
            };
            let msg = format!("{what}, as on line {}", expected.line);
            return Err(self.err(lineno, line, &msg));
        }
        let time = match time {
            Some(t) => parse_dec(t).ok_or_else(|| self.err(lineno, line, "a decimal timestamp"))?,
            None => 0,
        };
        let thread = match thread {
            Some(t) => parse_dec(t).ok_or_else(|| self.err(lineno, line, "a decimal thread id"))?,
            None => 0,
        };
        Ok((time, thread))
    }

    /// Reads `# base 0xADDR [path]`; other comments are ignored.
    fn comment(&mut self, line: &[u8], lineno: u64) -> Result<()> {
        let text = String::from_utf8_lossy(&line[1..]);
        let mut words = text.split_whitespace();
        if words.next() != Some("base") {
            return Ok(());
        }
        let addr = words
            .next()
            .and_then(|w| parse_hex(w.as_bytes()))
            .ok_or_else(|| self.err(lineno, line, "`# base 0xADDR [path]` with a hex address"))?;
        self.meta.base = Some(addr);
        let path = words.collect::<Vec<_>>().join(" ");
        if !path.is_empty() {
            self.meta.exe_path = Some(path);
        }
        Ok(())
    }

    fn err(&self, lineno: u64, line: &[u8], expected: &str) -> Error {
        let shown: String = String::from_utf8_lossy(line).chars().take(60).collect();
        Error::parse(
            self.path,
            lineno,
            format!("expected {expected}, found `{shown}`"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::NodeRecord;

    #[derive(Default)]
    struct Collect(Vec<Event>);
    impl Sink for Collect {
        fn events(&mut self, e: &[Event]) {
            self.0.extend_from_slice(e);
        }
        fn node(&mut self, _: NodeRecord) {}
    }

    fn parse(
        fmt: &dyn TraceFormat,
        text: &str,
        lenient: bool,
    ) -> Result<(Vec<Event>, TraceMeta, FuncTable)> {
        let input = Input::from_bytes("t.txt", text.as_bytes().to_vec());
        let mut funcs = FuncTable::default();
        let mut sink = Collect::default();
        let meta = fmt.parse(&input, &ParseOptions { lenient }, &mut funcs, &mut sink)?;
        Ok((sink.0, meta, funcs))
    }

    #[test]
    fn reads_seed_format_with_variants() {
        let text =
            "# base 0x555555554000 /tmp/app\r\nE0x401136\r\n\nE 0X40114A\nX0x40114a\nX0x401136\n";
        let (ev, meta, funcs) = parse(&AddrFormat, text, false).unwrap();
        assert_eq!(meta.base, Some(0x555555554000));
        assert_eq!(meta.exe_path.as_deref(), Some("/tmp/app"));
        assert!(!meta.timed);
        assert_eq!(ev.len(), 4);
        assert_eq!(ev[1].func, ev[2].func, "upper-case hex is the same address");
        assert_eq!(
            funcs.key(ev[0].func),
            &crate::ingest::FuncKey::Addr(0x401136)
        );
        assert_eq!(ev[3].kind, EventKind::Exit);
    }

    #[test]
    fn reads_time_and_thread_columns() {
        let (ev, meta, _) = parse(
            &AddrFormat,
            "E0x10 5 7\nE0x20 6 9\nX0x20 8 9\nX0x10 9 7\n",
            false,
        )
        .unwrap();
        assert!(meta.timed);
        assert_eq!(meta.threads, vec![7, 9]);
        assert_eq!((ev[1].time, ev[1].thread), (6, 1));
    }

    #[test]
    fn symbolic_names_and_glued_addresses() {
        let (ev, _, funcs) = parse(
            &SymbolicFormat,
            "E main 1 1\nE0x40 2 1\nX0x40 3 1\nX main 4 1\n",
            false,
        )
        .unwrap();
        assert_eq!(
            funcs.key(ev[0].func),
            &crate::ingest::FuncKey::Name("main".into())
        );
        assert_eq!(funcs.key(ev[1].func), &crate::ingest::FuncKey::Addr(0x40));
    }

    #[test]
    fn bad_line_names_file_line_and_expectation() {
        let err = parse(&AddrFormat, "E0x10\nQ0x20\n", false)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.txt:2: expected an event line"), "{err}");
        let err = parse(&AddrFormat, "E0x10 5\nE0x20\n", false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t.txt:2: expected one timestamp column after the function, as on line 1"),
            "{err}"
        );
        let err = parse(&AddrFormat, "E main\n", false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--format symbolic"), "{err}");
        let err = parse(&AddrFormat, "E0xzz\n", false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("t.txt:1: expected a hex address"), "{err}");
    }

    #[test]
    fn lenient_counts_skipped_lines() {
        let (ev, meta, _) = parse(&AddrFormat, "E0x10\ngarbage\nX0x10\nE0xq\n", true).unwrap();
        assert_eq!(ev.len(), 2);
        assert_eq!(meta.skipped_lines, 2);
        assert!(meta.first_skipped.unwrap().contains("t.txt:2"));
    }

    #[test]
    fn sniffing_tells_addresses_from_names() {
        assert!(AddrFormat.sniff(b"# c\nE0x10\nX0x10\n"));
        assert!(!AddrFormat.sniff(b"E main\n"));
        assert!(SymbolicFormat.sniff(b"\nE main 1 1\nX main 2 1\n"));
        assert!(!SymbolicFormat.sniff(b"main (1 / 2)\n"));
    }

    #[test]
    fn a_bad_line_near_the_top_is_reported_not_a_format_mystery() {
        assert!(AddrFormat.sniff(b"E0x10\nQ0x20\nX0x10\n"));
        assert!(SymbolicFormat.sniff(b"E main\nhello\nX main\n"));
        assert!(!AddrFormat.sniff(b"hello\nE0x10\n"));
        let err = parse(&AddrFormat, "E0x10\nQ0x20\nX0x10\n", false)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.txt:2: expected an event line"), "{err}");
    }
}
