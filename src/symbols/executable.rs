//! The source of a trace without mappings (pvtrace's format): everything
//! against the executable alone, runtime addresses shifted by the load
//! bias (`bias`); an address outside the executable is placed nowhere
//! and stays hex, counted as outside (a shared library's).

use std::path::Path;

use super::debugfile::DebugSearch;
use super::distinct::Identity;
use super::objects::Object;
use super::source::{Naming, Place, Span, SymbolSource, name_one};
use super::{FuncInfo, ResolveStats, SymbolOptions, bias, plain_info};
use crate::error::{Error, Result};
use crate::ingest::{FuncKey, TraceMeta};

/// The executable, opened, and the bias its addresses are shifted by.
pub(super) struct Executable {
    obj: Object,
    bias: u64,
    /// Warnings from opening it.
    warnings: Vec<String>,
}

impl Executable {
    /// Opens `binary` and finds the bias under which the trace's addresses
    /// `addrs` (sorted) land on its functions, recorded in `stats`; its
    /// debug file is looked for as `opts` says.
    pub(super) fn open(
        binary: &Path,
        opts: &SymbolOptions,
        meta: &TraceMeta,
        addrs: &[u64],
        stats: &mut ResolveStats,
    ) -> Result<Executable> {
        let mut warnings = Vec::new();
        let search = DebugSearch::new(&opts.debug_dirs, &opts.search_path);
        let obj = Object::open_with(binary, None, true, &search, &mut warnings)?;
        let (bias, bias_source) = bias::find(&obj.elf, addrs, meta.base)
            .ok_or_else(|| mismatch(binary, meta.base, meta.exe_path.as_deref()))?;
        stats.bias = bias;
        stats.bias_source = bias_source;
        Ok(Executable {
            obj,
            bias,
            warnings,
        })
    }
}

impl SymbolSource for Executable {
    fn place(&mut self, _func: usize, addr: u64) -> Option<Place> {
        let probe = addr.wrapping_sub(self.bias);
        if !self.obj.elf.stripped && !self.obj.elf.contains(probe) {
            return None;
        }
        Some(Place {
            object: 0,
            at: 0,
            offset: probe,
        })
    }

    fn name(
        &mut self,
        place: Place,
        addr: u64,
        naming: &mut Naming,
    ) -> (FuncInfo, Option<Identity>) {
        name_one(&self.obj, 0, place.offset, addr, naming)
    }

    fn unplaced(&mut self, func: usize, addr: u64, naming: &mut Naming) -> FuncInfo {
        naming.stats.outside.push(func);
        plain_info(&FuncKey::Addr(addr))
    }

    fn finish(&mut self, _ids: &[Option<Identity>], naming: &mut Naming) -> Result<()> {
        naming.stats.warnings.append(&mut self.warnings);
        naming.stats.warnings.extend(self.obj.debug_warnings());
        Ok(())
    }

    fn spans(&self) -> Vec<Span> {
        let span = |s: &super::elf::Segment| Span {
            start: s.vaddr.wrapping_add(self.bias),
            end: s.vaddr.saturating_add(s.memsz).wrapping_add(self.bias),
            what: "the executable".to_string(),
        };
        self.obj.elf.segments.iter().map(span).collect()
    }
}

pub(super) fn mismatch(binary: &Path, base: Option<u64>, recorded: Option<&str>) -> Error {
    let how = match base {
        Some(b) => format!("with the load base {b:#x} from the trace header, "),
        None => String::new(),
    };
    let from = match recorded {
        Some(p) => format!("; the trace was recorded from {p}"),
        None => String::new(),
    };
    Error::Input(format!(
        "trace does not match binary {}: {how}none of its addresses falls on the binary's function starts \
         (was the program rebuilt after tracing, or is this another program's trace?){from}",
        binary.display()
    ))
}
