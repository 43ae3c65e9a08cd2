//! Where names come from, as two steps behind one trait, after addr2line's
//! model: *placing* a runtime address finds the object (or other source)
//! that holds it and the address in that object's terms; *naming* it asks
//! that object. A trace is resolved by a list of sources tried in order:
//! the first that places an address names it, and an address none places
//! is left to the first source's rule (hex, counted as it counts it).
//! The executable alone (`executable.rs`), the trace's loaded objects
//! (`mapped.rs`) and an XRay log's instrumentation map (`xray.rs`) are
//! first sources, one per trace by its shape; the sources after the first
//! come from one list, `LATER` in `mod.rs`. [`resolve`] runs the list over
//! the trace's functions and counts what each source placed by its name.

use std::collections::HashSet;

use super::demangle::Demangle;
use super::distinct::Identity;
use super::objects::Object;
use super::{FuncInfo, ResolveStats, hex_info, plain_info};
use crate::error::Result;
use crate::ingest::{FuncKey, FuncTable};

/// Where a source placed an address.
pub(super) struct Place {
    /// Index of the object in the source (for mapped objects, their first
    /// mapping; 0 for the executable alone).
    pub object: usize,
    /// The record of the source that holds the address: the mapping, the
    /// perf-map line.
    pub at: usize,
    /// The address in the object's terms: a file address in the
    /// executable alone, a file offset in a mapped object, the offset into
    /// a perf-map range.
    pub offset: u64,
}

/// What naming shares across sources: the name style, the counts and the
/// namesakes found on the way.
pub(super) struct Naming {
    /// How linkage names are shown.
    pub style: Demangle,
    /// How resolution went.
    pub stats: ResolveStats,
    /// The namesakes of the traced functions.
    pub namesakes: Namesakes,
}

/// A source of names: a set of objects that hold addresses.
pub(super) trait SymbolSource {
    /// The object of this source that holds runtime address `addr` of
    /// function `func`, or None when none does (the next source is asked).
    fn place(&mut self, func: usize, addr: u64) -> Option<Place>;

    /// Names `addr`, placed at `place`; the identity is None when nothing
    /// named it (the name then says where it is as well as it can).
    fn name(
        &mut self,
        place: Place,
        addr: u64,
        naming: &mut Naming,
    ) -> (FuncInfo, Option<Identity>);

    /// The name of `addr` of function `func` that no source placed, when
    /// this source is the first: hex, counted as unresolved.
    fn unplaced(&mut self, _func: usize, addr: u64, naming: &mut Naming) -> FuncInfo {
        naming.stats.unresolved += 1;
        hex_info(addr)
    }

    /// After every address: checks over all of them, the namesakes in
    /// other objects, the warnings.
    fn finish(&mut self, _ids: &[Option<Identity>], _naming: &mut Naming) -> Result<()> {
        Ok(())
    }

    /// The runtime addresses this source holds, when it knows them: a
    /// later source whose spans overlap these is refused (`mod.rs`), since
    /// it could never name the addresses it claims there.
    fn spans(&self) -> Vec<Span> {
        Vec::new()
    }
}

/// Runtime addresses `start..end` that a source holds, and what holds
/// them, as messages name it.
pub(super) struct Span {
    /// The first address.
    pub start: u64,
    /// One past the last.
    pub end: u64,
    /// The object, as the user or the trace named it.
    pub what: String,
}

/// A source that opens for a trace, owned by the list of sources after
/// the first.
pub(super) type Boxed = Box<dyn SymbolSource>;

/// A source in the list with its name, the key of its count in
/// [`ResolveStats::by_source`].
pub(super) type Listed<'a> = (&'static str, &'a mut dyn SymbolSource);

/// Names and identities of the trace's functions, and the namesakes of
/// those that share their linkage name in their object (see
/// [`Namesakes`]).
pub(super) struct Resolved {
    /// Names, by function id.
    pub infos: Vec<FuncInfo>,
    /// Which function each resolved address is, by function id.
    pub ids: Vec<Option<Identity>>,
    /// The traced functions' namesakes the trace does not call.
    pub namesakes: Vec<(FuncInfo, Identity)>,
    /// How resolution went.
    pub stats: ResolveStats,
}

/// Names every function of `funcs` through `sources`, in order, counting
/// the addresses each placed by its name; synthetic nodes and names keep
/// their plain names.
pub(super) fn resolve(
    funcs: &FuncTable,
    sources: &mut [Listed<'_>],
    mut naming: Naming,
) -> Result<Resolved> {
    let mut infos = Vec::with_capacity(funcs.len());
    let mut ids = Vec::with_capacity(funcs.len());
    for (i, key) in funcs.keys().iter().enumerate() {
        let FuncKey::Addr(a) = key else {
            infos.push(plain_info(key));
            ids.push(None);
            continue;
        };
        let placed = sources
            .iter_mut()
            .find_map(|(n, s)| s.place(i, *a).map(|p| (*n, s, p)));
        let (info, id) = match placed {
            Some((name, source, place)) => {
                *naming.stats.by_source.entry(name).or_default() += 1;
                source.name(place, *a, &mut naming)
            }
            None => match sources.first_mut() {
                Some((_, first)) => (first.unplaced(i, *a, &mut naming), None),
                None => (hex_info(*a), None),
            },
        };
        infos.push(info);
        ids.push(id);
    }
    for (_, source) in sources.iter_mut() {
        source.finish(&ids, &mut naming)?;
    }
    Ok(Resolved {
        infos,
        ids,
        namesakes: naming.namesakes.found,
        stats: naming.stats,
    })
}

/// The functions of the trace's objects that have the linkage name of a
/// traced function, each once (by object and address), with their names
/// and identities.
#[derive(Default)]
pub(super) struct Namesakes {
    seen: HashSet<(usize, u64)>,
    found: Vec<(FuncInfo, Identity)>,
}

impl Namesakes {
    /// Adds the namesakes of the function at `probe` of `obj`, the
    /// `object`-th.
    fn add(&mut self, obj: &Object, object: usize, probe: u64, style: Demangle) {
        for addr in obj.namesakes(probe) {
            self.push(obj, object, addr, style);
        }
    }

    /// Adds the function at `addr` of `obj`, the `object`-th, once.
    pub(super) fn push(&mut self, obj: &Object, object: usize, addr: u64, style: Demangle) {
        if !self.seen.insert((object, addr)) {
            return;
        }
        if let Some(named) = obj.lookup(addr, style) {
            let id = Identity {
                object,
                addr,
                runtime: 0,
                local: named.local,
                unit: named.unit,
            };
            self.found.push((named.info, id));
        }
    }
}

/// Names `probe` (file address in object number `object`), counting how.
pub(super) fn name_one(
    obj: &Object,
    object: usize,
    probe: u64,
    runtime: u64,
    naming: &mut Naming,
) -> (FuncInfo, Option<Identity>) {
    let style = naming.style;
    match obj.lookup(probe, style) {
        Some(named) => {
            naming.stats.from_symtab += usize::from(named.from_symtab);
            naming.namesakes.add(obj, object, probe, style);
            let id = Identity {
                object,
                addr: probe,
                runtime,
                local: named.local,
                unit: named.unit,
            };
            (named.info, Some(id))
        }
        None => {
            naming.stats.unresolved += 1;
            (hex_info(runtime), None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that places the addresses below `below` and names each
    /// by its own name.
    struct Fake {
        name: &'static str,
        below: u64,
    }

    impl SymbolSource for Fake {
        fn place(&mut self, _func: usize, addr: u64) -> Option<Place> {
            (addr < self.below).then_some(Place {
                object: 0,
                at: 0,
                offset: addr,
            })
        }

        fn name(&mut self, _: Place, _: u64, _: &mut Naming) -> (FuncInfo, Option<Identity>) {
            let info = FuncInfo {
                name: self.name.to_string(),
                ..FuncInfo::default()
            };
            (info, None)
        }
    }

    #[test]
    fn the_first_source_that_places_an_address_names_it_and_counts_it_by_its_name() {
        let mut funcs = FuncTable::default();
        let ids: Vec<usize> = [0x10, 0x20, 0x21, 0x30]
            .map(|a| funcs.addr(a) as usize)
            .to_vec();
        let (mut a, mut b) = (
            Fake {
                name: "a",
                below: 0x20,
            },
            Fake {
                name: "b",
                below: 0x30,
            },
        );
        let naming = Naming {
            style: Demangle::Full,
            stats: ResolveStats::default(),
            namesakes: Namesakes::default(),
        };
        let got = resolve(&funcs, &mut [("a", &mut a), ("b", &mut b)], naming).unwrap();
        let named: Vec<&str> = ids.iter().map(|&i| got.infos[i].name.as_str()).collect();
        assert_eq!(named, ["a", "b", "b", "0x30"]);
        let counts: Vec<_> = got.stats.by_source.into_iter().collect();
        assert_eq!(counts, [("a", 1), ("b", 2)]);
        assert_eq!(got.stats.unresolved, 1);
    }
}
