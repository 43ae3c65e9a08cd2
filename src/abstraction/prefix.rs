//! Modules without a table, from function names: `auto:prefix` groups
//! functions by a name word, which works on amalgamated sources where
//! `auto:file` sees one file. The first word (before `_`, or the first
//! camel-case word) names the module, except for the project's namespace
//! word that a quarter of the functions share (`sqlite3`, `lua`), where the
//! next word does: `sqlite3VdbeExec` and `vdbeMemClear` are both `vdbe`,
//! `luaH_getint` is `h`, `ns::Parser::run` is `ns::Parser`. A key that only
//! one function has goes to `(other)`. `auto` picks the first of file, directory and prefix that
//! gives a useful partition and says which it picked; when none does, every
//! function is its own module (merging then changes nothing).

use std::collections::HashMap;

use super::modules::assigned::{Modules, UNASSIGNED, source_dir_module, source_file_module};
use crate::ingest::FuncTable;
use crate::symbols::FuncInfo;

/// Module of functions whose prefix no other function shares.
pub(crate) const OTHER: &str = "(other)";

/// Modules from function-name prefixes.
pub(crate) fn by_prefix(funcs: &FuncTable, names: &[FuncInfo]) -> Modules {
    let words: Vec<Option<Words>> = names
        .iter()
        .enumerate()
        .map(|(f, info)| (!funcs.is_synthetic(f as u32)).then(|| words(&info.name)))
        .collect();
    let ns = namespace(&words);
    let keys: Vec<Option<String>> = words
        .iter()
        .map(|w| w.as_ref().map(|w| key(w, ns.as_deref())))
        .collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for k in keys.iter().flatten() {
        *count.entry(k).or_default() += 1;
    }
    let pick = |k: &String| match count[k.as_str()] {
        1 => OTHER.to_string(),
        _ => k.clone(),
    };
    Modules::from_names(keys.iter().map(|k| k.as_ref().map(pick)))
}

/// What a name's module can come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Words {
    /// The C++ scope (`ns::Class` of `ns::Class::f`), if any.
    pub scope: Option<String>,
    /// First word: before the first `_`, or the first camel-case word.
    pub first: String,
    /// The word after it, if any.
    pub second: Option<String>,
}

/// Splits a function name into the words its module is named from.
pub(crate) fn words(name: &str) -> Words {
    let base = name.split('(').next().unwrap_or(name);
    if let Some(i) = base.rfind("::") {
        let scope = &base[..i];
        return Words {
            scope: Some(scope.to_string()),
            first: scope.to_string(),
            second: None,
        };
    }
    let seg = match base.find('_') {
        Some(i) if i > 0 => &base[..i],
        _ => base,
    };
    let w = camel_words(seg);
    Words {
        scope: None,
        first: w[0].to_string(),
        second: w.get(1).map(|s| s.to_string()),
    }
}

/// The project's namespace word (`sqlite3`, `lua`): a first word that a
/// quarter or more of the functions (at least 4) share.
fn namespace(words: &[Option<Words>]) -> Option<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    let mut total = 0;
    for w in words.iter().flatten().filter(|w| w.scope.is_none()) {
        *count.entry(w.first.as_str()).or_default() += 1;
        total += 1;
    }
    let (best, n) = count
        .into_iter()
        .max_by_key(|&(w, n)| (n, std::cmp::Reverse(w)))?;
    (n >= 4 && n * 4 >= total).then(|| best.to_string())
}

/// The module key: the scope, else the word after the namespace, else the
/// first word; lower-cased, so `sqlite3VdbeExec` and `vdbeMemClear` meet.
fn key(w: &Words, ns: Option<&str>) -> String {
    if let Some(scope) = &w.scope {
        return scope.clone();
    }
    let word = match (&w.second, ns) {
        (Some(second), Some(ns)) if w.first == ns => second,
        _ => &w.first,
    };
    word.to_ascii_lowercase()
}

/// Splits `sqlite3VdbeMemSetStr` into `sqlite3`, `Vdbe`, `Mem`, `Set`, `Str`.
fn camel_words(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..b.len() {
        let lower_before = b[i - 1].is_ascii_lowercase() || b[i - 1].is_ascii_digit();
        if b[i].is_ascii_uppercase() && lower_before {
            out.push(&s[start..i]);
            start = i;
        }
    }
    out.push(&s[start..]);
    out
}

/// Picks file, directory or prefix modules, whichever is useful first.
pub(crate) fn auto(funcs: &FuncTable, names: &[FuncInfo]) -> Modules {
    let real = names
        .iter()
        .enumerate()
        .filter(|(f, _)| !funcs.is_synthetic(*f as u32))
        .count();
    let has_files = names.iter().any(|n| n.file.is_some());
    let mut tried = Vec::new();
    if has_files {
        for (what, f) in [
            ("file", source_file_module as fn(&str) -> String),
            ("dir", source_dir_module),
        ] {
            let m = Modules::from_names(names.iter().enumerate().map(|(i, n)| {
                (!funcs.is_synthetic(i as u32))
                    .then(|| n.file.as_deref().map_or_else(|| UNASSIGNED.to_string(), f))
            }));
            let used = used_modules(&m);
            if useful(&m, real) {
                return picked(m, format!("auto:{what} ({used} modules)"));
            }
            tried.push(format!("auto:{what} gives {used}"));
        }
    }
    let m = by_prefix(funcs, names);
    let used = used_modules(&m);
    let why = if tried.is_empty() {
        "no source files known".to_string()
    } else {
        tried.join(", ")
    };
    if useful(&m, real) {
        return picked(m, format!("auto:prefix ({used} modules; {why})"));
    }
    // Nothing splits the program usefully: merging by a partition of one
    // or two big modules would fold everything away, so merge nothing.
    let own = Modules::from_names(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (!funcs.is_synthetic(i as u32)).then(|| n.name.clone())),
    );
    picked(
        own,
        format!("one module per function ({why}, auto:prefix gives {used})"),
    )
}

fn picked(mut m: Modules, note: String) -> Modules {
    m.picked = Some(note);
    m
}

fn sizes(m: &Modules) -> Vec<usize> {
    let mut size = vec![0; m.names.len()];
    for &id in &m.of {
        if let Some(s) = size.get_mut(id as usize) {
            *s += 1;
        }
    }
    size
}

fn used_modules(m: &Modules) -> usize {
    sizes(m).iter().filter(|&&s| s > 0).count()
}

/// A partition is useful when merging by it removes something without
/// folding the program into one node: at least 2 modules, 2 functions a
/// module on average, and no module holding 90% of the functions.
fn useful(m: &Modules, functions: usize) -> bool {
    let sizes = sizes(m);
    let used = sizes.iter().filter(|&&s| s > 0).count();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    used >= 2 && used * 2 <= functions && (largest as f64) < 0.9 * functions as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_real_names() {
        let w = |n: &str| {
            let w = words(n);
            (w.first, w.second.unwrap_or_default())
        };
        assert_eq!(w("sqlite3VdbeExec"), ("sqlite3".into(), "Vdbe".into()));
        assert_eq!(w("sqlite3_step"), ("sqlite3".into(), String::new()));
        assert_eq!(w("luaH_getint"), ("lua".into(), "H".into()));
        assert_eq!(w("vdbeMemClear"), ("vdbe".into(), "Mem".into()));
        assert_eq!(
            words("ns::Parser::run(int)").scope.as_deref(),
            Some("ns::Parser")
        );
    }

    #[test]
    fn namespace_words_are_skipped_and_lone_keys_are_other() {
        let mut funcs = FuncTable::default();
        let names = [
            "sqlite3VdbeExec",
            "sqlite3VdbeHalt",
            "vdbeMemClear",
            "sqlite3BtreeNext",
            "btreeNext",
            "sqlite3_step",
            "sqlite3Malloc",
            "sqlite3MallocSize",
            "sqlite3PagerGet",
            "main",
        ];
        for n in names {
            funcs.name(n);
        }
        let infos = crate::symbols::names_without_binary(&funcs);
        let m = by_prefix(&funcs, &infos);
        let of = |f: u32| m.names[m.of[f as usize] as usize].as_str();
        let got: Vec<&str> = (1..=names.len() as u32).map(of).collect();
        assert_eq!(
            got,
            [
                "vdbe", "vdbe", "vdbe", "btree", "btree", OTHER, "malloc", "malloc", OTHER, OTHER
            ]
        );
        // sqlite3_step (no word after the namespace), sqlite3PagerGet and
        // main are alone under their keys.
        let a = auto(&funcs, &infos);
        assert!(a.picked.unwrap().starts_with("auto:prefix"));
        // Three functions in one prefix module is no partition.
        let mut small = FuncTable::default();
        for n in ["funcA", "funcB", "funcC"] {
            small.name(n);
        }
        let infos = crate::symbols::names_without_binary(&small);
        let a = auto(&small, &infos);
        assert!(a.picked.unwrap().starts_with("one module per function"));
        assert_eq!(a.of[1..], [0, 1, 2]);
    }
}
