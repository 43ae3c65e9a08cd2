//! The E/X reader's in-order state, owned by the consuming thread: the
//! global function table and thread numbering, the column layout fixed by
//! the first event line, `# base` and `# map` headers, line numbers and `--lenient`
//! counts. Chunks the fast scanner read are merged here (their local ids
//! remapped to global ones in order of first appearance); chunks it could
//! not read are parsed here line by line, which is also where every error
//! message comes from.

use super::super::chunked;
use super::super::funcs::{MAX_NAME, name_bound};
use super::super::{
    BATCH, Event, FuncTable, Mapping, ParseOptions, Sink, ThreadIds, TraceMeta, skip_or_fail,
};
use super::fast::{FastChunk, Parser};
use super::syntax::{Token, parse_dec, parse_hex, split_event, trim_start};
use crate::error::{Error, Result};

/// Which optional columns the trace uses, fixed by its first event line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Columns {
    pub time: bool,
    pub thread: bool,
    pub line: u64,
}

/// The in-order state of one E/X parse.
pub(super) struct InOrder<'a> {
    symbolic: bool,
    path: &'a str,
    opts: &'a ParseOptions,
    funcs: &'a mut FuncTable,
    meta: TraceMeta,
    threads: ThreadIds,
    columns: Option<Columns>,
    batch: Vec<Event>,
    /// Line number of the first line of the next chunk.
    next_line: u64,
    /// Scratch maps from a fast chunk's local ids to global ones.
    maps: (Vec<u32>, Vec<u32>),
    /// Events a lossy runtime dropped (`# dropped N` lines).
    dropped: u64,
}

impl<'a> InOrder<'a> {
    pub(super) fn new(
        format: &'static str,
        symbolic: bool,
        path: &'a str,
        opts: &'a ParseOptions,
        funcs: &'a mut FuncTable,
    ) -> Self {
        InOrder {
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
            next_line: 1,
            maps: (Vec::new(), Vec::new()),
            dropped: 0,
        }
    }

    /// Takes the next chunk: merges what the fast scanner read, or parses
    /// the chunk line by line when it could not (or read it with columns
    /// other than the trace's).
    pub(super) fn chunk(
        &mut self,
        bytes: &[u8],
        fast: Option<&mut FastChunk>,
        sink: &mut dyn Sink,
    ) -> Result<()> {
        match fast {
            Some(f) if self.accepts(f) => {
                f.local
                    .merge(self.funcs, &mut self.threads, &mut self.maps, sink);
                self.next_line += f.lines;
                Ok(())
            }
            _ => self.lines(bytes, sink),
        }
    }

    /// Whether a fast chunk's column layout agrees with the trace's; fixes
    /// the trace's layout if this chunk has its first event line.
    fn accepts(&mut self, f: &FastChunk) -> bool {
        let Some((time, thread, line)) = f.columns else {
            return true;
        };
        let seen = Columns {
            time,
            thread,
            line: self.next_line + line,
        };
        let expected = *self.columns.get_or_insert(seen);
        (expected.time, expected.thread) == (time, thread)
    }

    /// Parses a chunk line by line.
    fn lines(&mut self, bytes: &[u8], sink: &mut dyn Sink) -> Result<()> {
        let mut lineno = self.next_line;
        for line in split_lines(bytes) {
            if let Err(e) = self.line(line, lineno) {
                skip_or_fail(&mut self.meta, self.opts, e)?;
            }
            if self.batch.len() >= BATCH {
                sink.events(&self.batch);
                self.batch.clear();
            }
            lineno += 1;
        }
        sink.events(&self.batch);
        self.batch.clear();
        // `split` yields one more piece than there are line ends.
        self.next_line = lineno - 1;
        Ok(())
    }

    /// What the trace told besides its events.
    pub(super) fn finish(mut self) -> TraceMeta {
        self.meta.timed = self.columns.is_some_and(|c| c.time);
        self.meta.unit = if self.meta.timed {
            crate::ingest::Unit::Nanos
        } else {
            crate::ingest::Unit::Calls
        };
        self.meta.threads = self.threads.into_ids();
        if self.meta.threads.is_empty() {
            self.meta.threads.push(0);
        }
        if let Some(w) = crate::ingest::dropped_warning(self.dropped) {
            self.meta.warnings.push(w);
        }
        self.meta
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
            Token::Name(n) if self.symbolic && n.len() > MAX_NAME => {
                return Err(self.err(lineno, line, &name_bound(n.len())));
            }
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

    /// Reads `# base 0xADDR [path]`, `# map ...`, `# process PID PPID`
    /// and `# dropped N` headers; other comments are ignored.
    fn comment(&mut self, line: &[u8], lineno: u64) -> Result<()> {
        let text = String::from_utf8_lossy(&line[1..]);
        let text = text.trim_end_matches(['\r', '\n']);
        let mut words = text.split_whitespace();
        match words.next() {
            Some("base") => {}
            Some("map") => {
                let map = parse_map(text).ok_or_else(|| {
                    self.err(
                        lineno,
                        line,
                        "`# map 0xSTART 0xEND 0xOFFSET BUILD_ID|- PATH` with hex numbers",
                    )
                })?;
                crate::ingest::add_mapping(&mut self.meta, self.funcs, map);
                return Ok(());
            }
            Some("process") => {
                // The process that wrote the trace (processes never share a
                // trace file); a line without a number is a comment.
                let pid = words.next().and_then(|w| parse_dec(w.as_bytes()));
                self.meta.pid = self.meta.pid.or(pid);
                return Ok(());
            }
            Some("dropped") => {
                let n = words
                    .next()
                    .and_then(|w| parse_dec(w.as_bytes()))
                    .ok_or_else(|| self.err(lineno, line, "`# dropped N` with a decimal count"))?;
                self.dropped = self.dropped.saturating_add(n);
                return Ok(());
            }
            _ => return Ok(()),
        }
        let (addr, path) = split_word(text.trim_start().strip_prefix("base").unwrap_or(text));
        let addr = parse_hex(addr.as_bytes())
            .ok_or_else(|| self.err(lineno, line, "`# base 0xADDR [path]` with a hex address"))?;
        self.meta.base = Some(addr);
        let path = path.strip_prefix([' ', '\t']).unwrap_or(path);
        if !path.is_empty() {
            self.meta.exe_path = Some(unescape_path(path));
        }
        Ok(())
    }

    fn err(&self, lineno: u64, line: &[u8], expected: &str) -> Error {
        // 60 characters come from at most 240 bytes; escaping the whole
        // line would copy a name of hundreds of megabytes.
        let shown = crate::error::escape_bytes(&line[..line.len().min(256)], 60);
        Error::parse(
            self.path,
            lineno,
            format!("expected {expected}, found `{shown}`"),
        )
    }
}

/// `bytes` cut at every `\n`, as `bytes.split(|&b| b == b'\n')` cuts them,
/// but found by memchr (a line may be hundreds of megabytes).
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let ends = memchr::memchr_iter(b'\n', bytes).chain([bytes.len()]);
    ends.scan(0, move |start, end| {
        let line = &bytes[*start..end];
        *start = end + 1;
        Some(line)
    })
}

/// The first word of `text` (after blanks) and what follows it.
fn split_word(text: &str) -> (&str, &str) {
    let r = text.trim_start();
    let end = r.find(char::is_whitespace).unwrap_or(r.len());
    (&r[..end], &r[end..])
}

/// A path of a `# base` or `# map` line as the runtime escaped it: `\\`
/// is a backslash, `\n` a newline, `\r` a carriage return; any other
/// backslash stands for itself (traces of older runtimes wrote paths as
/// they were).
fn unescape_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        let escaped = match (c, chars.peek()) {
            ('\\', Some('\\')) => '\\',
            ('\\', Some('n')) => '\n',
            ('\\', Some('r')) => '\r',
            _ => {
                out.push(c);
                continue;
            }
        };
        chars.next();
        out.push(escaped);
    }
    out
}

/// `map 0xSTART 0xEND 0xOFFSET BUILD_ID|- PATH` (PATH last, may hold
/// spaces, may be empty for the main program).
fn parse_map(text: &str) -> Option<Mapping> {
    let rest = text.trim_start().strip_prefix("map")?;
    let mut fields = [""; 4];
    let mut rest = rest;
    for f in &mut fields {
        (*f, rest) = split_word(rest);
    }
    let hex = |w: &str| parse_hex(w.as_bytes());
    let (start, end, offset) = (hex(fields[0])?, hex(fields[1])?, hex(fields[2])?);
    let build_id = match fields[3] {
        "-" => None,
        id if !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Some(id.to_ascii_lowercase())
        }
        _ => return None,
    };
    (start < end).then(|| Mapping {
        start,
        end,
        offset,
        path: unescape_path(rest.strip_prefix([' ', '\t']).unwrap_or(rest)),
        build_id,
    })
}

impl<'a> chunked::InOrder for InOrder<'a> {
    type Parser = Parser;

    fn consume(
        &mut self,
        _start: usize,
        bytes: &[u8],
        mut fast: Option<FastChunk>,
        sink: &mut dyn Sink,
    ) -> Result<Option<FastChunk>> {
        self.chunk(bytes, fast.as_mut(), sink)?;
        Ok(fast)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_lines_cuts_like_split() {
        for s in ["", "\n", "a", "a\n", "\n\nab\nc", "ab\n\n"] {
            let want: Vec<&[u8]> = s.as_bytes().split(|&b| b == b'\n').collect();
            assert_eq!(split_lines(s.as_bytes()).collect::<Vec<_>>(), want, "{s:?}");
        }
    }
}
