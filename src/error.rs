//! The library's one error type. Every message names where the problem is:
//! the file and line for bad trace input, the flag for a bad option, the
//! binary for symbol trouble. The binary maps every `Error` to exit code 2.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// Result alias used throughout the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong between reading a trace and writing output.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A line (or byte offset, for binary traces) of an input file is malformed.
    #[error("{path}:{line}: {msg}")]
    Parse {
        /// The input file as the user named it (`-` for standard input).
        path: String,
        /// 1-based line number, or byte offset for binary input.
        line: u64,
        /// What was found and what was expected.
        msg: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A command-line value is unusable.
    #[error("{flag}: {msg}")]
    Usage {
        /// The flag, e.g. `--threshold`.
        flag: String,
        /// What is wrong with its value.
        msg: String,
    },
    /// A value the user gave is unusable, said by code that does not know
    /// which flag gave it: the command layer names the flag
    /// ([`Error::for_flag`]), turning it into [`Error::Usage`].
    #[error("{0}")]
    Value(String),
    /// The input as a whole is unusable (e.g. the trace does not match the binary).
    #[error("{0}")]
    Input(String),
    /// A gate the user set failed (`diff --fail-above`): the outputs were
    /// written, and the binary exits with status 3.
    #[error("{0}")]
    Gate(String),
}

impl Error {
    /// Builds a parse error for `path` at `line`.
    pub fn parse(path: &str, line: u64, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.to_string(),
            line,
            msg: msg.into(),
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl AsRef<Path>, source: io::Error) -> Self {
        Error::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }

    /// Builds an error about a command-line flag.
    pub fn usage(flag: &str, msg: impl Into<String>) -> Self {
        Error::Usage {
            flag: flag.to_string(),
            msg: msg.into(),
        }
    }

    /// Builds an error about a value whose flag the caller names.
    pub fn value(msg: impl Into<String>) -> Self {
        Error::Value(msg.into())
    }

    /// A [`Error::Value`] as an error about `flag`; any other error as it is.
    pub fn for_flag(self, flag: &str) -> Self {
        match self {
            Error::Value(msg) => Error::usage(flag, msg),
            other => other,
        }
    }

    /// The message with control characters escaped (see [`escape_controls`]).
    pub fn display_escaped(&self) -> String {
        escape_controls(&self.to_string()).into_owned()
    }

    /// True when the error is a closed pipe on output (`calltrace ... | head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// `s` with every control character (ESC, NUL, newline, DEL, C1 controls...)
/// written as `\x1b` or `\u{9b}`, so that names and file contents echoed in
/// messages, tables and labels cannot move the cursor, recolour the
/// terminal or break the line.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c as u32 {
            _ if !c.is_control() => out.push(c),
            v if v < 0x80 => write!(out, "\\x{v:02x}").expect("String"),
            v => write!(out, "\\u{{{v:x}}}").expect("String"),
        }
    }
    Cow::Owned(out)
}

/// At most `max` characters of `bytes` for a message: UTF-8 text as it
/// is (control characters escaped as by [`escape_controls`]), every byte
/// that is not UTF-8 as `\xNN`, so that binary data shows what it holds.
pub(crate) fn escape_bytes(bytes: &[u8], max: usize) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(&escape_controls(chunk.valid()));
        for b in chunk.invalid() {
            write!(out, "\\x{b:02x}").expect("String");
        }
        if out.chars().count() > max {
            break;
        }
    }
    match out.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &out[..i]),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_text_show_as_escapes() {
        assert_eq!(
            escape_bytes(b"E0x1\xff\xfe\x00z", 60),
            "E0x1\\xff\\xfe\\x00z"
        );
        assert_eq!(escape_bytes("é".as_bytes(), 60), "é");
        assert_eq!(escape_bytes(b"abcdef", 3), "abc...");
    }

    #[test]
    fn control_characters_are_escaped_visibly() {
        assert_eq!(
            escape_controls("a\x1b[31mb\0\n\u{9b}é"),
            "a\\x1b[31mb\\x00\\x0a\\u{9b}é"
        );
        assert!(matches!(escape_controls("plain ünïcode"), Cow::Borrowed(_)));
        let e = Error::parse("t\x1b.txt", 3, "found `\x07`");
        assert_eq!(e.display_escaped(), "t\\x1b.txt:3: found `\\x07`");
    }
}
