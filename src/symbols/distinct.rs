//! Different functions never share a display name. Two functions are the
//! same when they have the same name and are global (one definition, even
//! if several objects carry a copy); a local one (`static`, anonymous
//! namespace) is only itself. When different functions get one name, each
//! is suffixed with the first of these that tells them all apart (and
//! stays the same from run to run):
//! - the source file it was compiled from (its compilation unit in the
//!   symbol table), `twice(int) [util.cpp]`: this also tells apart the
//!   copies of one header's `static inline` function (`mf_ptr
//!   [lz_encoder_mf.c]`, declared in `lz_encoder.h`);
//! - its source file from the debug information (a global function has
//!   no unit in the symbol table);
//! - its address in its object, `f [0x1139]`;
//! - its address in the traced process.
//!
//! The members of a name are the traced functions and their namesakes in
//! their objects that the trace does not call (`Elf::namesakes`), so that
//! a function's name does not depend on which of them a run calls.
//!
//! Functions of one unit can share their unit's suffix: only a short style
//! (`--demangle simple`) names two of them alike, the instances of a static
//! template, and the pipeline then makes them one, as it does for the
//! global functions (overloads, template instances) that style names alike.

use std::collections::HashMap;
use std::sync::Arc;

use super::FuncInfo;

/// Which function a resolved address is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    /// Index of the object (its first mapping).
    pub object: usize,
    /// File address in the object.
    pub addr: u64,
    /// Runtime address, the last resort to tell functions apart.
    pub runtime: u64,
    /// Local to its object.
    pub local: bool,
    /// A local function's compilation unit, from the symbol table.
    pub unit: Option<Arc<str>>,
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
pub(crate) fn disambiguate(infos: &mut [FuncInfo], ids: &[Option<Identity>]) {
    let mut by_name: HashMap<&str, Vec<(usize, &Identity)>> = HashMap::new();
    for (i, info) in infos.iter().enumerate() {
        if let Some(id) = &ids[i] {
            by_name.entry(info.name.as_str()).or_default().push((i, id));
        }
    }
    let mut renames: Vec<(usize, String)> = Vec::new();
    for members in by_name.values() {
        let same = sameness(infos, members);
        let mut keys: Vec<Key> = members.iter().map(|&(i, id)| same(i, id)).collect();
        keys.sort_by_key(|k| match k {
            Key::Local(o, a) => (1, *o, *a),
            Key::Global => (0, 0, 0),
        });
        keys.dedup();
        if keys.len() < 2 {
            continue;
        }
        let of_unit = |_, id: &Identity| id.unit.as_deref().map(base_name);
        let of_file = |i: usize, _: &Identity| infos[i].file.as_deref().map(base_name);
        let of_addr = |_, id: &Identity| Some(format!("{:#x}", id.addr));
        let suffixes = telling_apart(members, of_unit, &same)
            .or_else(|| telling_apart(members, of_file, &same))
            .or_else(|| telling_apart(members, of_addr, &same))
            .unwrap_or_else(|| {
                let runtime = |(_, id): &(usize, &Identity)| format!("{:#x}", id.runtime);
                members.iter().map(runtime).collect()
            });
        for ((i, _), suffix) in members.iter().zip(suffixes) {
            renames.push((*i, format!("{} [{suffix}]", infos[*i].name)));
        }
    }
    for (i, name) in renames {
        infos[i].name = name;
    }
}

/// Which members of one name are one function: what tells them apart
/// from each other (members of one key may share a name).
/// - Global functions are one (copies of one definition).
/// - Local functions of one unit are one: only a short style
///   (`--demangle simple`) names two of them alike, the instances of a
///   static template, and they then become one. (One unit: one `FILE`
///   symbol, whose name the unit's functions share, not another unit's of
///   the same file name.)
/// - A local function from the source file of a global one of its name is
///   that global function: an instance of a template for a type local to
///   its unit (`std::vector<(anonymous namespace)::Point>`), which the
///   short style names as it names the global instances.
fn sameness<'m>(
    infos: &'m [FuncInfo],
    members: &[(usize, &Identity)],
) -> impl Fn(usize, &Identity) -> Key + 'm {
    let global_files: Vec<&'m str> = members
        .iter()
        .filter(|(_, id)| !id.local)
        .filter_map(|&(i, _)| infos[i].file.as_deref())
        .collect();
    move |i, id| match (id.local, &id.unit) {
        (false, _) => Key::Global,
        _ if infos[i]
            .file
            .as_deref()
            .is_some_and(|f| global_files.contains(&f)) =>
        {
            Key::Global
        }
        (true, Some(unit)) => Key::Local(id.object, Arc::as_ptr(unit).cast::<u8>() as u64),
        (true, None) => key(id),
    }
}

/// The file name of a path.
fn base_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

/// The suffix `of` gives each member, if every member has one and no two
/// functions that `key_of` tells apart share one.
fn telling_apart(
    members: &[(usize, &Identity)],
    of: impl Fn(usize, &Identity) -> Option<String>,
    key_of: impl Fn(usize, &Identity) -> Key,
) -> Option<Vec<String>> {
    let suffixes: Vec<String> = members
        .iter()
        .map(|&(i, id)| of(i, id))
        .collect::<Option<_>>()?;
    let mut seen: HashMap<&str, Key> = HashMap::new();
    members
        .iter()
        .zip(&suffixes)
        .all(|(&(i, id), s)| *seen.entry(s.as_str()).or_insert(key_of(i, id)) == key_of(i, id))
        .then_some(suffixes)
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
        unit_id(object, addr, local, None)
    }

    fn unit_id(object: usize, addr: u64, local: bool, unit: Option<&str>) -> Option<Identity> {
        Some(Identity {
            object,
            addr,
            runtime: 0x7f00_0000 + addr,
            local,
            unit: unit.map(Arc::from),
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
    fn copies_of_a_header_static_get_the_file_they_were_compiled_from() {
        // `static inline` in h.h, a copy in a.c and one in b.c; a static of
        // the same name in c.c.
        let mut infos = vec![
            info("twice", Some("/src/h.h")),
            info("twice", Some("/src/h.h")),
            info("twice", Some("/src/c.c")),
        ];
        let ids = [
            unit_id(0, 0x1139, true, Some("a.c")),
            unit_id(0, 0x1189, true, Some("b.c")),
            unit_id(1, 0x2000, true, Some("c.c")),
        ];
        disambiguate(&mut infos, &ids);
        assert_eq!(names(&infos), ["twice [a.c]", "twice [b.c]", "twice [c.c]"]);
    }

    #[test]
    fn a_global_and_a_static_of_one_name_get_their_source_files() {
        // A global has no unit in the symbol table: the files tell apart.
        let mut infos = vec![
            info("log", Some("/src/log.c")),
            info("log", Some("/src/ui.c")),
        ];
        let ids = [
            unit_id(0, 0x1139, false, None),
            unit_id(0, 0x2000, true, Some("ui.c")),
        ];
        disambiguate(&mut infos, &ids);
        assert_eq!(names(&infos), ["log [log.c]", "log [ui.c]"]);
    }

    #[test]
    fn without_files_or_units_addresses_in_the_object_tell_apart() {
        let mut infos = vec![info("f", None), info("f", None)];
        disambiguate(&mut infos, &[id(0, 0x1139, true), id(0, 0x1189, true)]);
        assert_eq!(names(&infos), ["f [0x1139]", "f [0x1189]"]);
        // Alike files, alike units: the object addresses.
        let mut infos = vec![info("g", Some("/x/u.c")), info("g", Some("/y/u.c"))];
        let ids = [
            unit_id(0, 0x1139, true, Some("u.c")),
            unit_id(0, 0x1189, true, Some("u.c")),
        ];
        disambiguate(&mut infos, &ids);
        assert_eq!(names(&infos), ["g [0x1139]", "g [0x1189]"]);
        // The same address in two objects: the process's addresses.
        let mut infos = vec![info("h", None), info("h", None)];
        disambiguate(&mut infos, &[id(0, 0x1139, true), id(1, 0x1139, true)]);
        assert_eq!(names(&infos), ["h [0x7f001139]", "h [0x7f001139]"]);
    }

    #[test]
    fn instances_of_one_units_static_template_named_alike_share_its_name() {
        // `--demangle simple`: twice<int> and twice<double>, static in a.cpp.
        let mut infos = vec![
            info("twice", Some("/src/a.cpp")),
            info("twice", Some("/src/a.cpp")),
            info("twice", Some("/src/b.cpp")),
        ];
        // One unit: its functions share one `FILE` symbol's name.
        let a: Arc<str> = Arc::from("a.cpp");
        let in_a = |addr| {
            let mut id = unit_id(0, addr, true, None);
            if let Some(id) = &mut id {
                id.unit = Some(a.clone());
            }
            id
        };
        let ids = [
            in_a(0x264e),
            in_a(0x2694),
            unit_id(0, 0x3000, true, Some("b.cpp")),
        ];
        disambiguate(&mut infos, &ids);
        assert_eq!(
            names(&infos),
            ["twice [a.cpp]", "twice [a.cpp]", "twice [b.cpp]"]
        );
        // Two units of one file name stay apart.
        let mut infos = vec![info("twice", None), info("twice", None)];
        let ids = [in_a(0x264e), unit_id(0, 0x2694, true, Some("a.cpp"))];
        disambiguate(&mut infos, &ids);
        assert_eq!(names(&infos), ["twice [0x264e]", "twice [0x2694]"]);
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
