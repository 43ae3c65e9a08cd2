//! Different functions never share a display name. Two functions are the
//! same when they have the same name and are global (one definition, even
//! if several objects carry a copy); a local one (`static`, anonymous
//! namespace) is only itself. When different functions get one name, each
//! is suffixed with its source file, `twice(int) [util.cpp]`, or its
//! address where there is no file or the files' names are alike too.

use std::collections::HashMap;

use super::FuncInfo;

/// Which function a resolved address is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// Index of the object (its first mapping).
    pub object: usize,
    /// File address in the object.
    pub addr: u64,
    /// Runtime address, shown when there is no file to tell functions apart.
    pub runtime: u64,
    /// Local to its object.
    pub local: bool,
}

/// What makes a function itself: its object and address when local, its
/// name alone when global.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Local(usize, u64),
    Global,
}

fn key(id: &Identity) -> Key {
    if id.local {
        Key::Local(id.object, id.addr)
    } else {
        Key::Global
    }
}

/// Suffixes the names of different functions that share one; `ids[i]` is
/// None for entries that are not resolved functions (left alone).
pub fn disambiguate(infos: &mut [FuncInfo], ids: &[Option<Identity>]) {
    let mut by_name: HashMap<&str, Vec<(usize, Identity)>> = HashMap::new();
    for (i, info) in infos.iter().enumerate() {
        if let Some(id) = ids[i] {
            by_name.entry(info.name.as_str()).or_default().push((i, id));
        }
    }
    let mut renames: Vec<(usize, String)> = Vec::new();
    for members in by_name.values() {
        let mut keys: Vec<Key> = members.iter().map(|(_, id)| key(id)).collect();
        keys.sort_by_key(|k| match k {
            Key::Local(o, a) => (1, *o, *a),
            Key::Global => (0, 0, 0),
        });
        keys.dedup();
        if keys.len() < 2 {
            continue;
        }
        let by_file: Vec<String> = members
            .iter()
            .map(|(i, id)| file_suffix(&infos[*i], id))
            .collect();
        // Files tell the functions apart only if no two different ones share a file name.
        let mut seen: HashMap<&str, Key> = HashMap::new();
        let files_distinct = members.iter().zip(&by_file).all(|((_, id), f)| {
            let k = key(id);
            *seen.entry(f.as_str()).or_insert(k) == k
        });
        for ((i, id), f) in members.iter().zip(&by_file) {
            let i = *i;
            let suffix = if files_distinct {
                f.clone()
            } else {
                format!("{:#x}", id.runtime)
            };
            renames.push((i, format!("{} [{suffix}]", infos[i].name)));
        }
    }
    for (i, name) in renames {
        infos[i].name = name;
    }
}

/// The file name of the function's source, or its address.
fn file_suffix(info: &FuncInfo, id: &Identity) -> String {
    match &info.file {
        Some(f) => f.rsplit('/').next().unwrap_or(f).to_string(),
        None => format!("{:#x}", id.runtime),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, file: Option<&str>) -> FuncInfo {
        FuncInfo {
            name: name.to_string(),
            file: file.map(str::to_string),
            line: None,
        }
    }

    fn id(object: usize, addr: u64, local: bool) -> Option<Identity> {
        Some(Identity {
            object,
            addr,
            runtime: 0x1000 + addr,
            local,
        })
    }

    fn names(infos: &[FuncInfo]) -> Vec<&str> {
        infos.iter().map(|i| i.name.as_str()).collect()
    }

    #[test]
    fn same_named_statics_get_their_files() {
        let mut infos = vec![
            info("twice(int)", Some("/src/a.cpp")),
            info("twice(int)", Some("/src/b.cpp")),
            info("main", Some("/src/main.cpp")),
            info("0x99", None),
        ];
        let ids = [id(0, 1, true), id(0, 2, true), id(0, 3, false), None];
        disambiguate(&mut infos, &ids);
        assert_eq!(
            names(&infos),
            ["twice(int) [a.cpp]", "twice(int) [b.cpp]", "main", "0x99"]
        );
    }

    #[test]
    fn without_files_or_with_alike_files_addresses_tell_apart() {
        let mut infos = vec![info("f", None), info("f", None)];
        disambiguate(&mut infos, &[id(0, 1, true), id(1, 5, true)]);
        assert_eq!(names(&infos), ["f [0x1001]", "f [0x1005]"]);
        let mut infos = vec![info("g", Some("/x/u.c")), info("g", Some("/y/u.c"))];
        disambiguate(&mut infos, &[id(0, 1, true), id(0, 2, true)]);
        assert_eq!(names(&infos), ["g [0x1001]", "g [0x1002]"]);
    }

    #[test]
    fn copies_of_one_global_function_stay_one_name() {
        let mut infos = vec![
            info("std::string::size() const", Some("basic_string.h")),
            info("std::string::size() const", None),
        ];
        disambiguate(&mut infos, &[id(0, 1, false), id(1, 7, false)]);
        assert_eq!(
            names(&infos),
            ["std::string::size() const", "std::string::size() const"]
        );
    }
}
