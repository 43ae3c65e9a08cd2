//! Naming the functions of a trace. Address traces are resolved against the
//! traced ELF executable: DWARF through `addr2line` first (name, source file,
//! line), the ELF symbol table second, the hex address last. Runtime
//! addresses of a PIE are shifted by the load bias, taken from the trace's
//! `# base` header or inferred (`bias`). Each distinct address is resolved
//! once. Symbolic and indented traces already carry names.

mod bias;
mod demangle;
mod elf;

use std::path::Path;

use crate::error::{Error, Result};
use crate::ingest::{FuncKey, FuncTable};

pub use bias::BiasSource;
pub use elf::Elf;

/// What the trace's functions are called and where they are defined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FuncInfo {
    /// Demangled name, or `0x...` when nothing resolved.
    pub name: String,
    /// Source file from DWARF, if known.
    pub file: Option<String>,
    /// Line of the function's first instruction, if known.
    pub line: Option<u32>,
}

/// How resolution went, for the summary on stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolveStats {
    /// Load bias subtracted from runtime addresses.
    pub bias: u64,
    /// Where the bias came from.
    pub bias_source: BiasSource,
    /// Distinct addresses resolved.
    pub addresses: usize,
    /// Named from the symbol table because DWARF had nothing.
    pub from_symtab: usize,
    /// Left as hex because nothing resolved.
    pub unresolved: usize,
}

/// Names every function of `funcs` without a binary: names as given,
/// addresses as hex, synthetic nodes as `(root)` and `[thread N]`.
pub fn names_without_binary(funcs: &FuncTable) -> Vec<FuncInfo> {
    funcs.keys().iter().map(plain_info).collect()
}

fn plain_info(key: &FuncKey) -> FuncInfo {
    let name = match key {
        FuncKey::Root => "(root)".to_string(),
        FuncKey::Thread(t) => format!("[thread {t}]"),
        FuncKey::Addr(a) => format!("{a:#x}"),
        FuncKey::Name(n) => n.to_string(),
    };
    FuncInfo {
        name,
        ..FuncInfo::default()
    }
}

/// Resolves the addresses of `funcs` against `binary`, using the trace's
/// load `base` when it has one and inferring the bias otherwise.
pub fn resolve(
    funcs: &FuncTable,
    binary: &Path,
    base: Option<u64>,
) -> Result<(Vec<FuncInfo>, ResolveStats)> {
    let elf = Elf::open(binary)?;
    let mut addrs: Vec<u64> = funcs
        .keys()
        .iter()
        .filter_map(|k| match k {
            FuncKey::Addr(a) => Some(*a),
            _ => None,
        })
        .collect();
    addrs.sort_unstable();
    let (bias, bias_source) =
        bias::find(&elf, &addrs, base).ok_or_else(|| mismatch(binary, base))?;
    let loader = addr2line::Loader::new(binary).map_err(|e| {
        Error::Input(format!(
            "{}: cannot read debug information: {e}",
            binary.display()
        ))
    })?;
    let mut stats = ResolveStats {
        bias,
        bias_source,
        addresses: addrs.len(),
        ..ResolveStats::default()
    };
    let infos = funcs
        .keys()
        .iter()
        .map(|key| match key {
            FuncKey::Addr(a) => lookup(&loader, a.wrapping_sub(bias), *a, &mut stats),
            other => plain_info(other),
        })
        .collect();
    Ok((infos, stats))
}

fn mismatch(binary: &Path, base: Option<u64>) -> Error {
    let how = match base {
        Some(b) => format!("with the load base {b:#x} from the trace header, "),
        None => String::new(),
    };
    Error::Input(format!(
        "trace does not match binary {}: {how}its addresses do not fall on the binary's function starts \
         (was the program rebuilt after tracing, or is this another program's trace?)",
        binary.display()
    ))
}

/// Resolves one file address (`probe`); `runtime` is shown when nothing resolves.
fn lookup(
    loader: &addr2line::Loader,
    probe: u64,
    runtime: u64,
    stats: &mut ResolveStats,
) -> FuncInfo {
    // The symbol that starts exactly at the entry address has the full linkage
    // name; DWARF's name lacks the scope of functions without
    // DW_AT_linkage_name (anonymous namespaces, lambdas), so DWARF gives the
    // location and, failing a symbol, the name.
    let exact = loader
        .find_symbol_info(probe)
        .filter(|s| s.address() == probe)
        .map(|s| demangle::demangle(s.name()));
    if let Some(mut info) = dwarf_frame(loader, probe) {
        if let Some(name) = exact {
            info.name = name;
        }
        return info;
    }
    if let Some(sym) = loader.find_symbol(probe) {
        stats.from_symtab += 1;
        return FuncInfo {
            name: demangle::demangle(sym),
            ..FuncInfo::default()
        };
    }
    stats.unresolved += 1;
    FuncInfo {
        name: format!("{runtime:#x}"),
        ..FuncInfo::default()
    }
}

/// The outermost DWARF frame at `probe` (entry addresses have exactly one).
fn dwarf_frame(loader: &addr2line::Loader, probe: u64) -> Option<FuncInfo> {
    let mut frames = loader.find_frames(probe).ok()?;
    let mut last = None;
    while let Ok(Some(frame)) = frames.next() {
        last = Some(frame);
    }
    let frame = last?;
    let name = demangle::demangle(&frame.function.as_ref()?.raw_name().ok()?);
    let (file, line) = match frame.location {
        Some(loc) => (loc.file.map(str::to_string), loc.line),
        None => (None, None),
    };
    Some(FuncInfo { name, file, line })
}
