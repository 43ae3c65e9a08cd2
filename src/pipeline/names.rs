//! Naming a read trace: its functions through the objects the trace
//! recorded or the binary ([`name`]), its threads by the names the format
//! gave them, one tree node per shown name ([`one_node_per_name`]), and
//! what went wrong on the way as counted warnings ([`warnings`]).

use std::collections::HashMap;

use super::InputOptions;
use super::binary::program;
use crate::calltree::{self, Built, View};
use crate::error::Result;
use crate::ingest::{self, FuncId, FuncTable, TraceMeta};
use crate::symbols::{self, FuncInfo, ResolveStats};

/// The names of a trace's functions and how resolving them went.
pub(crate) struct Named {
    /// Names, files and lines, indexed by function id.
    pub names: Vec<FuncInfo>,
    /// How symbol resolution went, when there was something to resolve against.
    pub resolve: Option<ResolveStats>,
    /// Whether addresses could be resolved at all (a binary, recorded
    /// objects, or an XRay log's ids).
    pub resolvable: bool,
    /// `--object` named objects (which name nothing unless `resolvable`).
    pub objects_given: bool,
}

/// Names the functions of a parsed trace (through the recorded objects or
/// the binary) and threads by the names the format gave them.
pub(crate) fn name(opts: &InputOptions, funcs: &FuncTable, meta: &mut TraceMeta) -> Result<Named> {
    let binary = program(opts, meta);
    // An XRay log without its binary is refused by `symbols::resolve`.
    let resolvable = binary.is_some() || !meta.maps.is_empty() || meta.xray_ids;
    let (mut names, resolve) = if resolvable && funcs.has_addresses() {
        let (names, stats) = symbols::resolve(funcs, meta, binary.as_deref(), &opts.symbols)?;
        (names, Some(stats))
    } else {
        (symbols::names_without_binary(funcs), None)
    };
    meta.name_threads_by_entry(|f| names.get(f as usize).map(|n| n.name.as_str()));
    name_threads(funcs, meta, &mut names);
    Ok(Named {
        names,
        resolve,
        resolvable,
        objects_given: !opts.symbols.objects.is_empty(),
    })
}

/// Shows threads the format named (`[task 4]`) by that name.
/// (A map from thread id to index, not a search per thread: 400k threads.)
pub(crate) fn name_threads(funcs: &FuncTable, meta: &TraceMeta, names: &mut [FuncInfo]) {
    if meta.thread_names.iter().all(String::is_empty) {
        return;
    }
    let mut index: rustc_hash::FxHashMap<u64, usize> = Default::default();
    for (ix, &tid) in meta.threads.iter().enumerate() {
        index.entry(tid).or_insert(ix);
    }
    for (i, key) in funcs.keys().iter().enumerate() {
        if let ingest::FuncKey::Thread(tid) = key
            && let Some(&ix) = index.get(tid)
            && let Some(name) = meta.thread_names.get(ix).filter(|n| !n.is_empty())
        {
            names[i].name = format!("[{name}]");
        }
    }
}

/// Functions shown under one name are one function of the tree: copies
/// of one global function in several objects, and with `--demangle
/// simple` the overloads and template instances it names alike, as
/// uftrace shows them (`snappy::Compress` once, not four boxes of that
/// name). Their nodes go to the first of them; a contexts tree then folds
/// the paths that became equal. Threads keep their own nodes.
pub(crate) fn one_node_per_name(built: &mut Built, names: &[FuncInfo], view: View) {
    let mut first: HashMap<&str, FuncId> = HashMap::new();
    let canon: Vec<FuncId> = names
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let id = i as FuncId;
            if built.funcs.is_synthetic(id) {
                id
            } else {
                *first.entry(info.name.as_str()).or_insert(id)
            }
        })
        .collect();
    if canon.iter().enumerate().all(|(i, &c)| c as usize == i) {
        return;
    }
    built
        .tree
        .rename_funcs(|f| canon.get(f as usize).copied().unwrap_or(f));
    if view == View::Contexts {
        built.tree = calltree::fold_paths(&built.tree, &built.funcs);
    }
}

/// Calls made to each function, by id (synthetic nodes count none).
fn calls_per_func(built: &Built) -> Vec<u64> {
    let mut calls = vec![0u64; built.funcs.len()];
    let tree = &built.tree;
    for n in 0..tree.len() as u32 {
        let f = tree.func(n);
        if !built.funcs.is_synthetic(f) {
            calls[f as usize] = calls[f as usize].saturating_add(tree.calls(n));
        }
    }
    calls
}

/// What the read of `built` had to skip or repair and what naming it
/// could not do, one line each.
pub(crate) fn warnings(built: &Built, named: &Named) -> Vec<String> {
    let (resolve, resolvable) = (named.resolve.as_ref(), named.resolvable);
    let mut w = built.meta.warnings.clone();
    if built.meta.skipped_lines > 0 {
        let first = built.meta.first_skipped.as_deref().unwrap_or("");
        let what = built.meta.piece();
        w.push(format!(
            "skipped {} malformed {what}(s) (--lenient); first: {first}",
            built.meta.skipped_lines
        ));
    }
    if !built.repairs.is_clean() {
        w.push(format!("repaired unbalanced trace: {}", built.repairs));
    }
    if let Some(r) = resolve {
        w.extend(r.warnings.iter().cloned());
    }
    let calls = match resolve {
        Some(_) => calls_per_func(built),
        None => Vec::new(),
    };
    let called = |ids: &[usize]| ids.iter().filter(|&&f| calls[f] > 0).count();
    let some: u64 = resolve.map_or(0, |r| r.outside.iter().map(|&f| calls[f]).sum());
    if let Some(r) = resolve.filter(|_| some > 0) {
        let all: u64 = calls.iter().sum();
        w.push(format!(
            "{some} of {all} call(s) ({} function(s)) are at addresses outside the binary, in shared libraries, \
             and keep hex names: record the trace with calltrace's runtime (`calltrace runtime`), \
             which records the loaded libraries, or name each library or image linked apart \
             with --object FILE@LOAD_ADDRESS",
            called(&r.outside)
        ));
    }
    if let Some(r) = resolve.filter(|r| called(&r.hex) > 0) {
        w.push(format!(
            "{} of {} address(es) did not resolve to a function and keep an address for a name",
            called(&r.hex),
            r.addresses
        ));
    }
    if named.objects_given && built.meta.xray_ids {
        w.push("--object is not used for an XRay log: its function ids are named through the binary's instrumentation map alone".to_string());
    }
    if !resolvable && built.funcs.has_addresses() {
        let hint = match &built.meta.exe_path {
            Some(p) => format!(" (the trace was recorded from {p})"),
            None => String::new(),
        };
        w.push(format!("no binary given: functions are shown as addresses; pass the traced executable to name them{hint}"));
        if named.objects_given {
            w.push("--object names addresses outside the executable: it was not used, give the traced executable (BINARY) too".to_string());
        }
    }
    w
}
