//! Chunk-local ids of the addresses and threads the scanner reads, through
//! direct-mapped caches in front of hash maps.

use super::*;

impl Parser {
    /// The chunk-local id of the address whose hex digits start at `j`, and
    /// where they end. The digits' text is the cache key, so a known
    /// address costs two loads and a compare instead of a hex conversion.
    pub(super) fn func(
        &mut self,
        b: &[u8],
        j: usize,
        addrs: &mut Vec<u64>,
    ) -> Option<(u32, usize)> {
        let Some((key, len)) = hex_key(b, j) else {
            // Near the chunk end or 16 digits: no caching.
            let (addr, end) = hex(b, j)?;
            return Some((self.local_addr(addr, addrs), end));
        };
        let id = self.lookup(key).or_else(|| self.miss(b, j, key, addrs))?;
        Some((id, j + len))
    }

    /// The cache slot of the address text `key`.
    #[inline(always)]
    pub(super) fn slot(key: (u64, u64)) -> usize {
        ((key.0 ^ key.1.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize % SLOTS
    }

    /// The local id of the address or name text `key` of a predicted line,
    /// when the last line had it (a leaf's exit follows its entry, and
    /// needs no lookup) or the cache has it. Misses go to a cold function
    /// with plain arguments, which then calls [`Parser::remember`]: a
    /// closure for them made the compiler build its captures on the stack
    /// for every line.
    #[inline(always)]
    pub(super) fn known(&mut self, key: (u64, u64)) -> Option<u32> {
        if key == self.last_key.0 {
            return Some(self.last_key.1);
        }
        let id = self.lookup(key)?;
        self.last_key = (key, id);
        Some(id)
    }

    /// Caches the text `key` under local id `id`, as the last line's too.
    pub(super) fn remember(&mut self, key: (u64, u64), id: u32) -> u32 {
        self.slots[Self::slot(key)] = Slot { key, id };
        self.last_key = (key, id);
        id
    }

    /// The local id of the address text `key`, if the cache has it.
    #[inline(always)]
    pub(super) fn lookup(&self, key: (u64, u64)) -> Option<u32> {
        let slot = &self.slots[Self::slot(key)];
        (slot.key == key).then_some(slot.id)
    }

    /// Converts and checks the address text `key` (at `j`) that the cache
    /// does not have, and caches it under a new local id.
    #[cold]
    pub(super) fn miss(
        &mut self,
        b: &[u8],
        j: usize,
        key: (u64, u64),
        addrs: &mut Vec<u64>,
    ) -> Option<u32> {
        let len = key_len(key);
        let (addr, end) = hex(b, j)?;
        if end != j + len {
            return None;
        }
        // A colliding address may have evicted this one: it keeps its id.
        let id = self.local_addr(addr, addrs);
        Some(self.remember(key, id))
    }

    /// The chunk-local id of address `addr`.
    pub(super) fn local_addr(&mut self, addr: u64, addrs: &mut Vec<u64>) -> u32 {
        let next = addrs.len() as u32;
        let id = *self.addr_index.entry(addr).or_insert(next);
        if id == next {
            addrs.push(addr);
        }
        id
    }

    /// The chunk-local index of thread `tid`.
    pub(super) fn thread(&mut self, tid: u64, tids: &mut Vec<u64>) -> u32 {
        if let Some((last, i)) = self.last_thread
            && last == tid
        {
            return i;
        }
        let next = tids.len() as u32;
        let i = *self.tid_index.entry(tid).or_insert(next);
        if i == next {
            tids.push(tid);
        }
        self.last_thread = Some((tid, i));
        i
    }
}
