//! Interning of functions as they appear in a trace: addresses or names
//! become dense [`FuncId`]s so later stages work on small integers. Id 0 is
//! always the synthetic root; thread nodes are interned as [`FuncKey::Thread`].
//! An address names one function only while the object loaded there stays:
//! a mapping that replaces another's range ([`FuncTable::mapping`]) makes
//! the addresses in it new functions from then on, each knowing which of the
//! trace's mappings were in force when it was first seen.

use std::collections::{BTreeMap, BTreeSet};

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

use super::Mapping;

/// The longest function name a trace may give, in bytes (1 MiB). Real
/// names are far shorter (C++ names with their templates take tens of KB
/// at most), and a name of hundreds of megabytes would be copied by every
/// stage that names functions until memory ran out: the readers refuse a
/// longer one where they read it (`--lenient` skips its line or record).
pub(crate) const MAX_NAME: usize = 1 << 20;

/// What a reader expected where it found a name of `len` bytes, over
/// [`MAX_NAME`].
pub(crate) fn name_bound(len: usize) -> String {
    format!(
        "a function name of at most {} MiB, not one of {len} bytes",
        MAX_NAME >> 20
    )
}

/// Dense id of a function (or synthetic node) in a [`FuncTable`].
pub type FuncId = u32;

/// What a trace said a function was.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FuncKey {
    /// The synthetic root above all top-level calls.
    Root,
    /// The synthetic node above one thread's top-level calls (multi-threaded traces).
    Thread(u64),
    /// A runtime code address (entry address of the function).
    Addr(u64),
    /// A function name (symbolic and indented traces).
    Name(Box<str>),
}

/// Ids of names by a hash of their bytes, keeping no copy of the names
/// (they live where the ids point): a function name may be hundreds of
/// megabytes, and a map keyed by the names would hold each one twice.
/// Names whose hashes collide are chained.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameIndex {
    /// The last id inserted with each hash.
    heads: FxHashMap<u64, u32>,
    /// The id inserted before each id with the same hash.
    next: FxHashMap<u32, u32>,
}

impl NameIndex {
    /// The hash `insert` wants for `name`.
    pub(super) fn hash(name: &[u8]) -> u64 {
        FxBuildHasher.hash_one(name)
    }

    /// The id of `name` among those with its hash: the first for which
    /// `is(id)` says the id stands for `name`.
    pub(super) fn find(&self, name: &[u8], is: impl Fn(u32) -> bool) -> Option<u32> {
        let mut id = *self.heads.get(&Self::hash(name))?;
        loop {
            if is(id) {
                return Some(id);
            }
            id = *self.next.get(&id)?;
        }
    }

    /// Adds `id`, of a name whose hash is `hash`, not yet in the index.
    pub(super) fn insert(&mut self, hash: u64, id: u32) {
        if let Some(before) = self.heads.insert(hash, id) {
            self.next.insert(id, before);
        }
    }

    /// Empties the index.
    pub(super) fn clear(&mut self) {
        self.heads.clear();
        self.next.clear();
    }
}

/// Interns function keys into dense ids.
#[derive(Debug, Clone)]
pub struct FuncTable {
    keys: Vec<FuncKey>,
    by_addr: FxHashMap<u64, FuncId>,
    /// Ids of `FuncKey::Name` keys; the names themselves stay in `keys`.
    by_name: NameIndex,
    by_thread: FxHashMap<u64, FuncId>,
    /// Entries of `by_addr` that [`FuncTable::alias_addr`] made (named).
    aliases: usize,
    /// For each id, the number of mappings the trace had recorded when it
    /// was interned (see [`FuncTable::maps_seen`]).
    seen: Vec<u32>,
    /// Mappings recorded so far.
    maps: u32,
    /// The mappings in force, by start (those that later ones overlapped
    /// are gone).
    layout: BTreeMap<u64, Mapping>,
    /// The addresses of `by_addr` in order, kept from the first mapping
    /// that replaced another on: each later one finds the addresses in its
    /// range here, where a pass over all of them per replacement made
    /// many replacements quadratic.
    ordered: Option<BTreeSet<u64>>,
}

impl Default for FuncTable {
    fn default() -> Self {
        FuncTable {
            keys: vec![FuncKey::Root],
            by_addr: FxHashMap::default(),
            by_name: NameIndex::default(),
            by_thread: FxHashMap::default(),
            aliases: 0,
            seen: vec![0],
            maps: 0,
            layout: BTreeMap::new(),
            ordered: None,
        }
    }
}

impl FuncTable {
    /// The id of the synthetic root.
    pub const ROOT: FuncId = 0;

    /// Interns a code address.
    #[inline]
    pub fn addr(&mut self, addr: u64) -> FuncId {
        if let Some(&id) = self.by_addr.get(&addr) {
            return id;
        }
        let id = self.push(FuncKey::Addr(addr));
        self.by_addr.insert(addr, id);
        if let Some(ordered) = &mut self.ordered {
            ordered.insert(addr);
        }
        id
    }

    /// Interns a function name (copied only when it is new).
    pub fn name(&mut self, name: &str) -> FuncId {
        match self.named(name) {
            Some(id) => id,
            None => self.push_name(name.into()),
        }
    }

    /// Interns a function name, keeping `name` itself when it is new: a
    /// name of hundreds of megabytes is then never copied.
    pub fn name_owned(&mut self, name: String) -> FuncId {
        match self.named(&name) {
            Some(id) => id,
            None => self.push_name(name.into_boxed_str()),
        }
    }

    /// The id of function name `name`, if interned.
    fn named(&self, name: &str) -> Option<FuncId> {
        let keys = &self.keys;
        self.by_name.find(
            name.as_bytes(),
            |id| matches!(&keys[id as usize], FuncKey::Name(n) if **n == *name),
        )
    }

    fn push_name(&mut self, name: Box<str>) -> FuncId {
        let hash = NameIndex::hash(name.as_bytes());
        let id = self.push(FuncKey::Name(name));
        self.by_name.insert(hash, id);
        id
    }

    /// Makes code address `addr` intern as the function `name` (the
    /// methods an interpreter registered with the runtime's `calltrace.h`).
    pub fn alias_addr(&mut self, addr: u64, name: &str) {
        let id = self.name(name);
        if self.by_addr.insert(addr, id).is_none() {
            self.aliases += 1;
            if let Some(ordered) = &mut self.ordered {
                ordered.insert(addr);
            }
        }
    }

    /// Interns the synthetic node of thread `tid`.
    pub fn thread(&mut self, tid: u64) -> FuncId {
        if let Some(&id) = self.by_thread.get(&tid) {
            return id;
        }
        let id = self.push(FuncKey::Thread(tid));
        self.by_thread.insert(tid, id);
        id
    }

    fn push(&mut self, key: FuncKey) -> FuncId {
        let id = self.keys.len() as FuncId;
        self.keys.push(key);
        self.seen.push(self.maps);
        id
    }

    /// Notes the trace's next mapping record in event order. When it
    /// replaces another mapping in force in its range (another object loaded
    /// where an unloaded one was; the same one recorded again is not),
    /// addresses in it interned from now on are new functions: the same
    /// address is another function there. Returns whether it did.
    pub fn mapping(&mut self, map: &Mapping) -> bool {
        let (start, end) = (map.start, map.end);
        self.maps = self.maps.saturating_add(1);
        // The mappings in force do not overlap: those that this one does
        // are the last ones starting below its end, back to one that ends
        // at or before its start. Each is removed once: linear overall.
        let overlapped: Vec<u64> = self
            .layout
            .range(..end)
            .rev()
            .take_while(|(_, m)| m.end > start)
            .map(|(&s, _)| s)
            .collect();
        let mut replaces = false;
        for s in overlapped {
            replaces |= self.layout.remove(&s).is_some_and(|m| m != *map);
        }
        self.layout.insert(start, map.clone());
        if replaces {
            // (method aliases sit far above any code: none goes)
            let by_addr = &self.by_addr;
            let ordered = self
                .ordered
                .get_or_insert_with(|| by_addr.keys().copied().collect());
            let gone: Vec<u64> = ordered.range(start..end).copied().collect();
            for a in gone {
                ordered.remove(&a);
                self.by_addr.remove(&a);
            }
        }
        replaces
    }

    /// How many of the trace's mapping records (in trace order) came before
    /// `id` was first seen: its address belongs to the latest of them that
    /// holds it.
    pub fn maps_seen(&self, id: FuncId) -> usize {
        self.seen[id as usize] as usize
    }

    /// The key of `id`.
    pub fn key(&self, id: FuncId) -> &FuncKey {
        &self.keys[id as usize]
    }

    /// All keys, indexed by id.
    pub fn keys(&self) -> &[FuncKey] {
        &self.keys
    }

    /// Number of interned keys, synthetic ones included.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when only the root is interned.
    pub fn is_empty(&self) -> bool {
        self.keys.len() <= 1
    }

    /// True for the root and thread nodes, which are not calls.
    pub fn is_synthetic(&self, id: FuncId) -> bool {
        matches!(self.keys[id as usize], FuncKey::Root | FuncKey::Thread(_))
    }

    /// True when any function is known only by its address.
    pub fn has_addresses(&self) -> bool {
        self.by_addr.len() > self.aliases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_index_finds_names_whose_hashes_collide() {
        let mut index = NameIndex::default();
        let hash = NameIndex::hash(b"a");
        for id in 0..3 {
            index.insert(hash, id); // as if all three had a's hash
        }
        fn is(name: &str) -> impl Fn(u32) -> bool + '_ {
            move |id| ["a", "b", "c"][id as usize] == name
        }
        assert_eq!(index.find(b"a", is("a")), Some(0));
        assert_eq!(index.find(b"a", is("b")), Some(1));
        assert_eq!(index.find(b"a", is("d")), None);
        assert_eq!(index.find(b"b", is("b")), None, "another hash");
    }

    #[test]
    fn owned_names_intern_like_borrowed_ones() {
        let mut t = FuncTable::default();
        let a = t.name_owned("alpha".to_string());
        assert_eq!(t.name("alpha"), a);
        assert_eq!(t.name_owned("alpha".to_string()), a);
        assert_ne!(t.name("beta"), a);
        assert_eq!(t.name_owned("beta".to_string()), t.name("beta"));
    }

    #[test]
    fn interning_is_stable_and_root_is_zero() {
        let mut t = FuncTable::default();
        let a = t.addr(0x401136);
        let b = t.name("main");
        assert_eq!(t.addr(0x401136), a);
        assert_eq!(t.name("main"), b);
        assert_eq!((a, b), (1, 2));
        assert!(t.is_synthetic(FuncTable::ROOT));
        let th = t.thread(7);
        assert!(t.is_synthetic(th));
        assert!(!t.is_synthetic(a));
    }

    #[test]
    fn a_replaced_mapping_makes_its_addresses_new_functions() {
        let map = |start, end, path: &str| Mapping {
            start,
            end,
            path: path.to_string(),
            ..Mapping::default()
        };
        let mut t = FuncTable::default();
        assert!(!t.mapping(&map(0x1000, 0x2000, "/a.so")));
        let (old, outside) = (t.addr(0x1100), t.addr(0x3000));
        assert!(!t.mapping(&map(0x1000, 0x2000, "/a.so")));
        assert_eq!(t.addr(0x1100), old, "the same object recorded again");
        assert!(
            !t.mapping(&map(0x2000, 0x2800, "/c.so")),
            "beside, not over it"
        );
        assert!(t.mapping(&map(0x1000, 0x1800, "/b.so")));
        let new = t.addr(0x1100);
        assert_ne!(new, old);
        assert_eq!(t.addr(0x3000), outside);
        assert_eq!((t.maps_seen(old), t.maps_seen(new)), (1, 4));
        assert_eq!(t.key(new), t.key(old));
    }

    #[test]
    fn every_replacement_forgets_the_addresses_in_its_range() {
        let map = |path: &str| Mapping {
            start: 0x1000,
            end: 0x2000,
            path: path.to_string(),
            ..Mapping::default()
        };
        let mut t = FuncTable::default();
        t.mapping(&map("/a.so"));
        let (first, outside) = (t.addr(0x1100), t.addr(0x2000));
        assert!(t.mapping(&map("/b.so")));
        // Interned after the first replacement, in and out of its range.
        let (second, other) = (t.addr(0x1100), t.addr(0x1200));
        t.alias_addr(0x1300, "method");
        assert_ne!(second, first);
        assert!(t.mapping(&map("/a.so")));
        let third = t.addr(0x1100);
        assert!(![first, second].contains(&third));
        assert_ne!(t.addr(0x1200), other);
        let method = t.addr(0x1300);
        assert_eq!(t.key(method), &FuncKey::Addr(0x1300), "the alias went too");
        assert_eq!(t.addr(0x2000), outside);
    }
}
