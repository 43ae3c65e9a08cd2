//! Any line-based log, read through a rules file (`--rules FILE.json`), in
//! the spirit of TraceLogVisualizer's conversion rules: each rule is a regex
//! with named groups that emits enter, exit or complete events whose time,
//! thread and name are templates over the captures and a set of state
//! variables the rules read and write (`spec`, `template`, `engine`).
//! Events go to the [`Sink`] like those of any other format, with symbolic
//! names ([`FuncKey::Name`](super::FuncKey::Name)), times in nanoseconds and
//! one thread per resource the rules name. The format is never guessed:
//! `--rules` chooses it. See docs/rules.md.

mod engine;
mod spec;
mod template;
mod time;

use std::path::Path;

use super::{BATCH, FuncTable, Input, ParseOptions, Sink, TraceFormat, TraceMeta, skip_or_fail};
use crate::error::{Error, Result};

/// A log format defined by a rules file.
#[derive(Debug)]
pub struct RulesFormat {
    path: String,
    rules: spec::RuleSet,
}

impl RulesFormat {
    /// Reads and checks the rules file at `path`.
    pub fn load(path: &Path) -> Result<RulesFormat> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        super::opened::note(path);
        RulesFormat::from_text(&path.display().to_string(), &text)
    }

    /// Compiles rules given as text; `path` names them in messages.
    pub fn from_text(path: &str, text: &str) -> Result<RulesFormat> {
        Ok(RulesFormat {
            path: path.to_string(),
            rules: spec::compile(path, text)?,
        })
    }
}

impl TraceFormat for RulesFormat {
    fn name(&self) -> &'static str {
        "rules"
    }

    fn sniff(&self, _head: &[u8]) -> bool {
        false
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let mut meta = TraceMeta {
            format: self.name(),
            timed: self.rules.timed,
            unit: if self.rules.timed {
                super::Unit::Nanos
            } else {
                super::Unit::Calls
            },
            ..TraceMeta::default()
        };
        let mut engine = engine::Engine::new(&self.rules);
        let mut batch = Vec::with_capacity(BATCH);
        for (i, raw) in input.split(|&b| b == b'\n').enumerate() {
            let lineno = i as u64 + 1;
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let line = String::from_utf8_lossy(raw);
            if let Err(msg) = engine.line(lineno, &line, funcs, &mut batch) {
                let msg = format!("{msg} (rules {})", self.path);
                skip_or_fail(&mut meta, opts, Error::parse(input.name(), lineno, msg))?;
            }
            if batch.len() >= BATCH {
                sink.events(&batch);
                batch.clear();
            }
        }
        sink.events(&batch);
        if let Some((line, text)) = &engine.first_unmatched {
            meta.warnings.push(format!(
                "{} line(s) of {} matched no rule of {}; first: line {line}: `{text}`",
                engine.unmatched,
                input.name(),
                self.path
            ));
        }
        if engine.orphan_exits > 0 {
            meta.warnings.push(format!(
                "ignored {} exit(s) with no name on a thread with no open call",
                engine.orphan_exits
            ));
        }
        meta.threads = engine.tids;
        meta.thread_names = engine.names;
        Ok(meta)
    }
}

#[cfg(test)]
mod tests;
