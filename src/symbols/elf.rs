//! What bias inference needs from the ELF file itself, read with `object`:
//! the lowest loadable segment address and the sorted start addresses of
//! the functions in the symbol tables.

use std::path::Path;

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};

use crate::error::{Error, Result};

/// Layout facts of an executable.
#[derive(Debug, Clone, Default)]
pub struct Elf {
    /// Lowest address of a loadable segment (0 for a PIE, 0x400000 for a typical -no-pie).
    pub min_vaddr: u64,
    /// Start addresses of function symbols, sorted and deduplicated.
    pub func_starts: Vec<u64>,
}

impl Elf {
    /// Reads `path`.
    pub fn open(path: &Path) -> Result<Elf> {
        let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let file = object::File::parse(&*data).map_err(|e| {
            Error::Input(format!(
                "{}: not an executable this tool can read: {e}",
                path.display()
            ))
        })?;
        let min_vaddr = file.segments().map(|s| s.address()).min().unwrap_or(0);
        let mut func_starts: Vec<u64> = file
            .symbols()
            .chain(file.dynamic_symbols())
            .filter(|s| s.kind() == SymbolKind::Text && s.is_definition() && s.address() != 0)
            .map(|s| s.address())
            .collect();
        func_starts.sort_unstable();
        func_starts.dedup();
        Ok(Elf {
            min_vaddr,
            func_starts,
        })
    }

    /// True when `addr` (a file address) is the start of a function.
    pub fn is_func_start(&self, addr: u64) -> bool {
        self.func_starts.binary_search(&addr).is_ok()
    }
}
