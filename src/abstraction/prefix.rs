//! Modules without a table, from function names: `auto:prefix` groups
//! functions by their name prefix (`sqlite3VdbeExec` → `sqlite3Vdbe`,
//! `luaH_getint` → `luaH`, `ns::Parser::run` → `ns::Parser`), which works
//! on amalgamated sources where `auto:file` sees one file. A prefix that
//! only one function has falls back to its first word, and then to
//! `(other)`. `auto` picks the first of file, directory and prefix that
//! gives a useful partition and says which it picked.

use std::collections::HashMap;
use std::path::Path;

use super::modules::Modules;
use crate::ingest::FuncTable;
use crate::symbols::FuncInfo;

/// Module of functions whose prefix no other function shares.
pub const OTHER: &str = "(other)";

/// Modules from function-name prefixes.
pub fn by_prefix(funcs: &FuncTable, names: &[FuncInfo]) -> Modules {
    let keys: Vec<Option<(String, String)>> = names
        .iter()
        .enumerate()
        .map(|(f, info)| (!funcs.is_synthetic(f as u32)).then(|| prefixes(&info.name)))
        .collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (long, short) in keys.iter().flatten() {
        *count.entry(long).or_default() += 1;
        if short != long {
            *count.entry(short).or_default() += 1;
        }
    }
    let pick = |(long, short): &(String, String)| {
        if count[long.as_str()] >= 2 {
            long.clone()
        } else if count[short.as_str()] >= 2 {
            short.clone()
        } else {
            OTHER.to_string()
        }
    };
    Modules::from_names(keys.iter().map(|k| k.as_ref().map(pick)))
}

/// (up to two words, first word) of a function name.
pub fn prefixes(name: &str) -> (String, String) {
    let base = name.split('(').next().unwrap_or(name);
    if let Some(i) = base.rfind("::") {
        let scope = &base[..i];
        let first = scope.split("::").next().unwrap_or(scope);
        return (scope.to_string(), first.to_string());
    }
    if let Some(i) = base.find('_').filter(|&i| i > 0 && i + 1 < base.len()) {
        let w = &base[..i];
        return (w.to_string(), camel_words(w)[0].to_string());
    }
    let words = camel_words(base);
    let long = match words.len() {
        0 | 1 => base.len(),
        2 => words[0].len(),
        _ => words[0].len() + words[1].len(),
    };
    (base[..long].to_string(), words[0].to_string())
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
pub fn auto(funcs: &FuncTable, names: &[FuncInfo]) -> Modules {
    let real = names
        .iter()
        .enumerate()
        .filter(|(f, _)| !funcs.is_synthetic(*f as u32))
        .count();
    let has_files = names.iter().any(|n| n.file.is_some());
    let mut tried = Vec::new();
    if has_files {
        for (what, f) in [("file", file_of as fn(&str) -> String), ("dir", dir_of)] {
            let m = Modules::from_names(names.iter().enumerate().map(|(i, n)| {
                (!funcs.is_synthetic(i as u32)).then(|| {
                    n.file
                        .as_deref()
                        .map_or_else(|| super::modules::UNASSIGNED.to_string(), f)
                })
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
    picked(m, format!("auto:prefix ({used} modules; {why})"))
}

fn picked(mut m: Modules, note: String) -> Modules {
    m.picked = Some(note);
    m
}

fn file_of(f: &str) -> String {
    f.to_string()
}

fn dir_of(f: &str) -> String {
    match Path::new(f).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => ".".to_string(),
    }
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
    fn prefixes_of_real_names() {
        let p = |n: &str| prefixes(n).0;
        assert_eq!(p("sqlite3VdbeExec"), "sqlite3Vdbe");
        assert_eq!(p("sqlite3VdbeMemSetStr"), "sqlite3Vdbe");
        assert_eq!(p("sqlite3BtreeNext"), "sqlite3Btree");
        assert_eq!(p("sqlite3_step"), "sqlite3");
        assert_eq!(p("luaH_getint"), "luaH");
        assert_eq!(p("ns::Parser::run(int)"), "ns::Parser");
        assert_eq!(p("main"), "main");
        assert_eq!(prefixes("luaH_getint").1, "lua");
    }

    #[test]
    fn lone_prefixes_fall_back_to_first_word_then_other() {
        let mut funcs = FuncTable::default();
        for n in [
            "sqlite3VdbeExec",
            "sqlite3VdbeHalt",
            "sqlite3BtreeNext",
            "sqlite3Malloc",
            "main",
        ] {
            funcs.name(n);
        }
        let names = crate::symbols::names_without_binary(&funcs);
        let m = by_prefix(&funcs, &names);
        let of = |f: u32| m.names[m.of[f as usize] as usize].as_str();
        assert_eq!((of(1), of(2)), ("sqlite3Vdbe", "sqlite3Vdbe"));
        assert_eq!((of(3), of(4)), ("sqlite3", "sqlite3"));
        assert_eq!(of(5), OTHER);
        let a = auto(&funcs, &names);
        assert!(a.picked.unwrap().starts_with("auto:prefix"));
    }
}
