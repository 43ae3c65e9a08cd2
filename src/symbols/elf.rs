//! What the symbol stage needs from an ELF file itself, read with `object`:
//! its loadable segments (to turn file offsets and load biases into the
//! file's virtual addresses), its function symbols from `.symtab` and
//! `.dynsym` (names, and the function starts bias inference checks against,
//! and for a local function the source file it was compiled from) and its
//! GNU build-id.
//!
//! On 32-bit Arm a Thumb function's symbol is odd (the Thumb bit), as is
//! the `this_fn` the Linux runtime records; the freestanding runtime drops
//! that bit, so in an Arm object an even address also finds the function
//! whose odd symbol is one above it. Symbols keep the address the table
//! gives (odd for Thumb), so every command names and places a function by
//! its symbol's address.

use std::path::Path;
use std::sync::Arc;

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};

use crate::error::{Error, Result};

/// One loadable segment: where its file bytes sit in memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Segment {
    /// Virtual address of the first byte.
    pub vaddr: u64,
    /// File offset of the first byte.
    pub offset: u64,
    /// Bytes taken from the file.
    pub filesz: u64,
    /// Bytes in memory.
    pub memsz: u64,
}

/// A function symbol.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbol {
    /// Virtual address of the first instruction.
    pub addr: u64,
    /// Size in bytes (0 when the table does not say).
    pub size: u64,
    /// Linkage name as in the table.
    pub name: String,
    /// Local to its object (a `static` or anonymous-namespace function):
    /// another function of the same name elsewhere is a different one.
    pub local: bool,
    /// For a local function, the source file of its compilation unit: the
    /// `FILE` symbol before it in `.symtab` (`a.c` for the copy of a
    /// header's `static inline` function compiled into `a.c`).
    pub unit: Option<Arc<str>>,
}

/// Layout facts and symbols of an ELF executable or shared object.
#[derive(Debug, Clone, Default)]
pub struct Elf {
    /// Lowest address of a loadable segment (0 for a PIE, 0x400000 for a typical -no-pie).
    pub min_vaddr: u64,
    /// One past the highest address of a loadable segment.
    pub max_vaddr: u64,
    /// Start addresses of function symbols, sorted and deduplicated.
    pub func_starts: Vec<u64>,
    /// Loadable segments in file order.
    pub segments: Vec<Segment>,
    /// Function symbols sorted by address; at one address, global ones
    /// first, then in `.symtab`'s order (the order `nm` lists them in).
    pub symbols: Vec<Symbol>,
    /// GNU build-id as lower-case hex.
    pub build_id: Option<String>,
    /// Without a `.symtab` (stripped): only exported functions have names,
    /// and the function starts are too few to check addresses against.
    pub stripped: bool,
    /// Its code calls (or defines) `__cyg_profile_func_enter`: it was built
    /// with `-finstrument-functions`, by the user, not a system library.
    pub instrumented: bool,
    /// 32-bit Arm code, whose Thumb functions' symbols are odd: an even
    /// address also finds the symbol one above it.
    pub thumb: bool,
    /// Indexes into `symbols` sorted by name and address, one per function
    /// (a function listed in `.symtab` and `.dynsym` once): the functions
    /// of one name, such as the copies of a header's `static inline`
    /// function or same-named statics of several files, are neighbours.
    pub(super) by_name: Vec<usize>,
}

impl Elf {
    /// Reads `path`.
    pub fn open(path: &Path) -> Result<Elf> {
        let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        crate::ingest::opened::note(path);
        let file = object::File::parse(&*data).map_err(|e| {
            Error::Input(format!(
                "{}: not an executable this tool can read: {e}",
                path.display()
            ))
        })?;
        Ok(Elf::from_file(&file, None))
    }

    /// The layout and symbols of `file`; when it has no `.symtab`
    /// (stripped), the function symbols of `debug`'s (its separate debug
    /// file), with `file`'s `.dynsym`.
    pub(super) fn from_file(file: &object::File<'_>, debug: Option<&object::File<'_>>) -> Elf {
        let segments: Vec<Segment> = file
            .segments()
            .map(|s| {
                let (offset, filesz) = s.file_range();
                Segment {
                    vaddr: s.address(),
                    offset,
                    filesz,
                    memsz: s.size(),
                }
            })
            .collect();
        let symtab = match (file.symbol_table(), debug) {
            (None, Some(d)) if d.symbol_table().is_some() => d,
            _ => file,
        };
        let mut symbols = table_functions(symtab);
        symbols.extend(file.dynamic_symbols().filter_map(|s| function(&s)));
        // At one address a global symbol comes first: a local one there is
        // an alias (GCC's `fib.localalias`, which calls within a -fPIC
        // library go to), not the function's name.
        symbols.sort_by_key(|s| (s.addr, s.local));
        let mut func_starts: Vec<u64> = symbols.iter().map(|s| s.addr).collect();
        func_starts.dedup();
        let build_id = file.build_id().ok().flatten().map(hex);
        let by_name = by_name(&symbols);
        let instrumented = symtab
            .symbols()
            .chain(file.dynamic_symbols())
            .any(|s| s.name() == Ok("__cyg_profile_func_enter"));
        Elf {
            min_vaddr: segments.iter().map(|s| s.vaddr).min().unwrap_or(0),
            max_vaddr: segments
                .iter()
                .map(|s| s.vaddr + s.memsz)
                .max()
                .unwrap_or(0),
            func_starts,
            segments,
            symbols,
            build_id,
            stripped: symtab.symbol_table().is_none(),
            instrumented,
            thumb: file.architecture() == object::Architecture::Arm,
            by_name,
        }
    }

    /// For a separate debug file read in place of its program (whose
    /// loadable segments keep their addresses but not their bytes): the
    /// file offsets GNU ld gives them, each segment's distance from the
    /// first, so that mapped offsets still find their addresses.
    pub(super) fn guess_file_layout(&mut self) {
        let first = self.min_vaddr;
        for s in self.segments.iter_mut().filter(|s| s.filesz == 0) {
            s.offset = s.vaddr - first;
            s.filesz = s.memsz;
        }
    }

    /// The addresses of the other functions named `name` in this object
    /// (empty for a name only one function has).
    pub fn namesakes<'s>(&'s self, name: &'s str, addr: u64) -> impl Iterator<Item = u64> + 's {
        self.functions_named(name).filter(move |&a| a != addr)
    }

    /// The addresses of the functions named `name` (a linkage name) in this
    /// object, in address order.
    pub fn functions_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = u64> + 's {
        let first = self
            .by_name
            .partition_point(|&i| self.symbols[i].name.as_str() < name);
        self.by_name[first..]
            .iter()
            .map(|&i| &self.symbols[i])
            .take_while(move |s| s.name == name)
            .map(|s| s.addr)
    }

    /// True when `addr` (a file address) is the start of a function (a
    /// Thumb function's, with or without the Thumb bit).
    pub fn is_func_start(&self, addr: u64) -> bool {
        let at = |a| self.func_starts.binary_search(&a).is_ok();
        at(addr) || self.thumb_twin(addr).is_some_and(at)
    }

    /// In an Arm object, the odd address of a Thumb function whose Thumb
    /// bit `addr` lacks (`addr | 1` for an even `addr`); None elsewhere.
    pub fn thumb_twin(&self, addr: u64) -> Option<u64> {
        (self.thumb && addr & 1 == 0).then_some(addr | 1)
    }

    /// True when `addr` (a file address) lies in a loadable segment.
    pub fn contains(&self, addr: u64) -> bool {
        self.segments
            .iter()
            .any(|s| s.vaddr <= addr && addr < s.vaddr + s.memsz)
    }

    /// The virtual address of the byte at file offset `offset`.
    pub fn vaddr_of_offset(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|s| s.offset <= offset && offset < s.offset + s.filesz)
            .map(|s| offset - s.offset + s.vaddr)
    }

    /// The symbol starting exactly at `addr` (in an Arm object, or one
    /// above an even `addr`: a Thumb function's).
    pub fn symbol_at(&self, addr: u64) -> Option<&Symbol> {
        let exact = |a: u64| {
            let i = self.symbols.partition_point(|s| s.addr < a);
            self.symbols.get(i).filter(|s| s.addr == a)
        };
        exact(addr).or_else(|| self.thumb_twin(addr).and_then(exact))
    }

    /// The symbol whose extent holds `addr` (or, for a symbol of unknown
    /// size, the nearest one below it).
    pub fn symbol_containing(&self, addr: u64) -> Option<&Symbol> {
        // An even address in an Arm object may be a Thumb function's
        // first byte, one below its symbol; inside an A32 function (even
        // start and size) `addr | 1` lies in the same one.
        let addr = self.thumb_twin(addr).unwrap_or(addr);
        let i = self.symbols.partition_point(|s| s.addr <= addr);
        let below = &self.symbols[..i];
        let last = below.last()?;
        let same = below.iter().rev().take_while(|s| s.addr == last.addr);
        let mut first = None;
        for s in same {
            first = Some(s);
        }
        let s = first?;
        (s.size == 0 || addr < s.addr + s.size).then_some(s)
    }
}

/// The GNU build-id of the ELF file at `path` (lower-case hex), if it
/// can be read and has one.
pub fn build_id_of(path: &Path) -> Option<String> {
    let data = std::fs::read(path).ok()?;
    crate::ingest::opened::note(path);
    let obj = object::File::parse(&*data).ok()?;
    obj.build_id().ok().flatten().map(hex)
}

/// The function symbols of `file`'s `.symtab`, each local one with the
/// unit it was compiled in.
fn table_functions(file: &object::File<'_>) -> Vec<Symbol> {
    // `.symtab` lists each compilation unit's local symbols after a
    // `FILE` symbol that names its source file. After a `FILE` symbol
    // with no name come the global symbols the link made local (hidden
    // visibility, a version script's `local: *`): still one definition
    // per name in the object, so global for telling functions apart.
    let mut unit: Option<Arc<str>> = None;
    let mut localized = false;
    let mut symbols: Vec<Symbol> = Vec::new();
    for s in file.symbols() {
        if s.kind() == SymbolKind::File {
            unit = s.name().ok().filter(|n| !n.is_empty()).map(Arc::from);
            localized = unit.is_none();
        } else if let Some(mut sym) = function(&s) {
            sym.local &= !localized;
            sym.unit = sym.local.then(|| unit.clone()).flatten();
            symbols.push(sym);
        }
    }
    symbols
}

/// The indexes of the symbols whose name other functions (at other
/// addresses) have too, sorted by name and address, one per address.
fn by_name(symbols: &[Symbol]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&symbols[a], &symbols[b]);
        (a.name.as_str(), a.addr).cmp(&(b.name.as_str(), b.addr))
    });
    order.dedup_by(|a, b| {
        symbols[*a].name == symbols[*b].name && symbols[*a].addr == symbols[*b].addr
    });
    order
}

/// The function symbol `s` defines, if it is one (without its unit).
fn function<'d>(s: &impl ObjectSymbol<'d>) -> Option<Symbol> {
    (s.kind() == SymbolKind::Text && s.is_definition() && s.address() != 0).then_some(())?;
    Some(Symbol {
        addr: s.address(),
        size: s.size(),
        name: s.name().ok()?.to_string(),
        local: !s.is_global(),
        unit: None,
    })
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf() -> Elf {
        let sym = |addr, size, name: &str| Symbol {
            addr,
            size,
            name: name.to_string(),
            local: false,
            unit: None,
        };
        Elf {
            segments: vec![
                Segment {
                    vaddr: 0,
                    offset: 0,
                    filesz: 0x800,
                    memsz: 0x800,
                },
                Segment {
                    vaddr: 0x1000,
                    offset: 0x1000,
                    filesz: 0x400,
                    memsz: 0x400,
                },
                Segment {
                    vaddr: 0x3e00,
                    offset: 0x2e00,
                    filesz: 0x200,
                    memsz: 0x300,
                },
            ],
            symbols: vec![
                sym(0x1100, 0x10, "a"),
                sym(0x1100, 0x10, "alias"),
                sym(0x1200, 0, "b"),
            ],
            ..Elf::default()
        }
    }

    #[test]
    fn offsets_map_through_the_segment_that_holds_them() {
        let e = elf();
        assert_eq!(e.vaddr_of_offset(0x1010), Some(0x1010));
        assert_eq!(e.vaddr_of_offset(0x2e10), Some(0x3e10));
        assert_eq!(e.vaddr_of_offset(0x2000), None);
        assert!(e.contains(0x40f0) && !e.contains(0x4100));
    }

    #[test]
    fn namesakes_are_the_other_functions_of_one_name() {
        let sym = |addr, name: &str| Symbol {
            addr,
            name: name.to_string(),
            local: true,
            ..Symbol::default()
        };
        // Two copies of `read32`, one listed twice (.symtab and .dynsym).
        let symbols = vec![
            sym(0x10, "read32"),
            sym(0x20, "main"),
            sym(0x30, "read32"),
            sym(0x30, "read32"),
            sym(0x40, "zzz"),
        ];
        let e = Elf {
            by_name: by_name(&symbols),
            symbols,
            ..Elf::default()
        };
        assert_eq!(e.namesakes("read32", 0x10).collect::<Vec<_>>(), [0x30]);
        assert_eq!(e.namesakes("read32", 0x30).collect::<Vec<_>>(), [0x10]);
        assert_eq!(e.namesakes("main", 0x20).count(), 0);
        assert_eq!(e.namesakes("zzz", 0x40).count(), 0);
        assert_eq!(e.namesakes("nothing", 0x50).count(), 0);
        assert_eq!(
            e.functions_named("read32").collect::<Vec<_>>(),
            [0x10, 0x30]
        );
        assert_eq!(e.functions_named("main").collect::<Vec<_>>(), [0x20]);
        assert_eq!(e.functions_named("mai").count(), 0);
    }

    #[test]
    fn symbols_by_start_and_by_extent() {
        let e = elf();
        assert_eq!(e.symbol_at(0x1100).map(|s| &*s.name), Some("a"));
        assert_eq!(e.symbol_at(0x1101), None);
        assert_eq!(e.symbol_containing(0x110f).map(|s| &*s.name), Some("a"));
        assert_eq!(e.symbol_containing(0x1110), None);
        assert_eq!(e.symbol_containing(0x1300).map(|s| &*s.name), Some("b"));
        assert_eq!(e.symbol_containing(0x10ff), None);
    }
}

#[cfg(test)]
mod instrumented_tests {
    use super::*;

    /// A program built with `-finstrument-functions` is the user's; an
    /// object that never calls the hook (this test binary, like a system
    /// library) is not, and gets no "rebuild with -g" warning.
    #[test]
    fn an_even_address_finds_the_odd_symbol_of_a_thumb_function_in_arm_objects_only() {
        let sym = |addr, size, name: &str| Symbol {
            addr,
            size,
            name: name.to_string(),
            ..Symbol::default()
        };
        // Thumb `t` at 0x8141 (odd), A32 `a` at 0x8200, Thumb `u` at 0x8301.
        let mut e = Elf {
            symbols: vec![
                sym(0x8141, 0x20, "t"),
                sym(0x8200, 0x40, "a"),
                sym(0x8301, 8, "u"),
            ],
            func_starts: vec![0x8141, 0x8200, 0x8301],
            thumb: true,
            ..Elf::default()
        };
        let at = |e: &Elf, a| e.symbol_at(a).map(|s| s.name.clone());
        let within = |e: &Elf, a| e.symbol_containing(a).map(|s| s.name.clone());
        for (addr, name) in [(0x8140, "t"), (0x8141, "t"), (0x8200, "a"), (0x8300, "u")] {
            assert_eq!(at(&e, addr).as_deref(), Some(name), "{addr:#x}");
            assert_eq!(within(&e, addr).as_deref(), Some(name), "{addr:#x}");
            assert!(e.is_func_start(addr), "{addr:#x}");
        }
        assert_eq!(within(&e, 0x823e).as_deref(), Some("a"));
        assert_eq!(within(&e, 0x8240), None);
        assert!(!e.is_func_start(0x8201));
        // Elsewhere an odd symbol is no even address's.
        e.thumb = false;
        assert_eq!(at(&e, 0x8140), None);
        assert_eq!(within(&e, 0x8140), None);
        assert!(!e.is_func_start(0x8140));
    }

    #[test]
    fn only_objects_that_call_the_entry_hook_count_as_instrumented() {
        let own = std::env::current_exe().expect("the test binary");
        assert!(!Elf::open(&own).expect("read the test binary").instrumented);
        let dir = tempfile::tempdir().expect("temp dir");
        let src = dir.path().join("a.c");
        std::fs::write(
            &src,
            "int f(int x) { return x + 1; }\nint main(void) { return f(0) - 1; }\n",
        )
        .expect("write a.c");
        let exe = dir.path().join("a");
        let built = std::process::Command::new("gcc")
            .args(["-finstrument-functions", "-o"])
            .arg(&exe)
            .arg(&src)
            .status();
        if !built.is_ok_and(|s| s.success()) {
            assert!(
                std::env::var_os("CALLTRACE_REQUIRE_TOOLS").is_none(),
                "gcc is needed"
            );
            return;
        }
        assert!(Elf::open(&exe).expect("read the program").instrumented);
    }
}
