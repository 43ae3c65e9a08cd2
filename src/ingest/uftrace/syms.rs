//! The `<object>.sym` files uftrace saves beside the records: each
//! object's symbols as `ADDR TYPE NAME` lines (`ADDR SIZE TYPE NAME` from
//! uftrace v0.14 on), addresses relative to the object's load address.
//! They serve two purposes here. A `-pg` program's records carry the
//! address where `mcount` was called, inside the function, where
//! `-finstrument-functions` gives its first byte: the containing symbol's
//! start puts both on function starts, as the `symbols` stage expects and
//! as uftrace itself looks them up. And the PLT entries (`P`), which no
//! ELF symbol table names, are named by these files (`printf` called
//! through the PLT is a call to `printf`, as uftrace reports it).

/// One symbol of a `.sym` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sym {
    /// Address relative to the object's load address.
    pub start: u64,
    /// Length, when the file gives one (0 when it does not).
    pub size: u64,
    /// nm-style type: `T`/`t`/`W`/`w` functions, `P` PLT entries, `?` ends.
    pub kind: u8,
    /// The name as uftrace saved it.
    pub name: String,
}

impl Sym {
    fn is_code(&self) -> bool {
        matches!(self.kind, b'T' | b't' | b'W' | b'w' | b'P' | b'i' | b'u')
    }
}

/// The symbols of one object, by address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SymTable {
    syms: Vec<Sym>,
}

impl SymTable {
    /// Reads a `.sym` file's text. Comment and malformed lines are
    /// passed over: the file only refines what the ELF files say.
    pub(super) fn parse(text: &str) -> SymTable {
        let mut syms: Vec<Sym> = text.lines().filter_map(parse_line).collect();
        syms.sort_by_key(|s| s.start);
        SymTable { syms }
    }

    /// The code symbol that holds relative address `rel`: the last symbol
    /// starting at or below it, when it is code and (if its size is
    /// known) `rel` is inside it.
    pub(super) fn function_at(&self, rel: u64) -> Option<&Sym> {
        let i = self
            .syms
            .partition_point(|s| s.start <= rel)
            .checked_sub(1)?;
        let sym = &self.syms[i];
        let inside = sym.size == 0 || rel - sym.start < sym.size;
        (sym.is_code() && inside).then_some(sym)
    }

    /// The PLT entries.
    pub(super) fn plt(&self) -> impl Iterator<Item = &Sym> {
        self.syms.iter().filter(|s| s.kind == b'P')
    }
}

/// `ADDR TYPE NAME` or `ADDR SIZE TYPE NAME`.
fn parse_line(line: &str) -> Option<Sym> {
    if line.starts_with('#') {
        return None;
    }
    let (addr, rest) = line.split_once(' ')?;
    let start = u64::from_str_radix(addr, 16).ok()?;
    let (size, rest) = match rest.split_once(' ') {
        Some((size, rest)) if size.len() > 1 => (u64::from_str_radix(size, 16).ok()?, rest),
        _ => (0, rest),
    };
    let (kind, name) = rest.split_once(' ')?;
    let &[kind] = kind.as_bytes() else {
        return None;
    };
    Some(Sym {
        start,
        size,
        kind,
        name: name.trim_end().to_string(),
    })
}
