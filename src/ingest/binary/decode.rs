//! Decoding an event block's payload: zigzag address deltas and time
//! deltas as LEB128 varints, leaf calls taken as one.

use crate::ingest::{Event, EventConsumer, EventKind};

/// Decodes one block's payload, interning addresses with `intern`, into
/// `out`, calling `beside` as each event is read (work to run alongside,
/// the block's checksum); on error returns the offset within the payload,
/// or None when `out` gave up.
#[inline(always)]
pub(super) fn decode_block<C: EventConsumer>(
    payload: &[u8],
    nevents: u32,
    timed: bool,
    thread: u32,
    mut intern: impl FnMut(u64) -> u32,
    out: &mut C,
    mut beside: impl FnMut(),
) -> Result<(), Option<usize>> {
    let mut pos = 0;
    let (mut addr, mut time) = (0u64, 0u64);
    let mut left = nevents;
    while left > 0 {
        left -= 1;
        let v = varint(payload, &mut pos).ok_or(Some(pos))?;
        beside();
        let kind = if v & 1 == 0 {
            EventKind::Enter
        } else {
            EventKind::Exit
        };
        let zz = v >> 1;
        let delta = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
        addr = addr.wrapping_add(delta as u64);
        if timed {
            let dt = varint(payload, &mut pos).ok_or(Some(pos))?;
            time = time.checked_add(dt).ok_or(Some(pos))?;
        }
        let event = Event {
            time,
            func: intern(addr),
            thread,
            kind,
        };
        // An entry whose exit comes next (the same address: a zero delta,
        // the one-byte varint 1) is a leaf call, taken as one: most calls
        // are leaves.
        if kind == EventKind::Enter && left > 0 && payload.get(pos) == Some(&1) {
            pos += 1;
            left -= 1;
            if timed {
                let dt = varint(payload, &mut pos).ok_or(Some(pos))?;
                time = time.checked_add(dt).ok_or(Some(pos))?;
            }
            if !out.leaf(event, time) {
                return Err(None);
            }
            continue;
        }
        if !out.event(event) {
            return Err(None);
        }
    }
    if pos != payload.len() {
        return Err(Some(pos));
    }
    Ok(())
}

/// Reads an unsigned LEB128 number: one or two bytes (the usual deltas)
/// directly, up to eight (56 bits) at once from one word without a
/// branch per byte; longer ones, and those near the end of `data`, a byte
/// at a time.
#[inline(always)]
pub(super) fn varint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let first = *data.get(*pos)?;
    if first < 0x80 {
        *pos += 1;
        return Some(first as u64);
    }
    if let Some(&second) = data.get(*pos + 1)
        && second < 0x80
    {
        *pos += 2;
        return Some((first & 0x7f) as u64 | (second as u64) << 7);
    }
    if let Some(bytes) = data.get(*pos..*pos + 8) {
        let w = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        let ends = !w & 0x8080_8080_8080_8080;
        if ends != 0 {
            let len = (ends.trailing_zeros() / 8 + 1) as usize;
            *pos += len;
            return Some(compact(w & (u64::MAX >> (64 - 8 * len))));
        }
    }
    varint_slow(data, pos)
}

/// The 7-bit groups of up to eight LEB128 bytes joined, lowest first.
#[inline(always)]
pub(super) fn compact(w: u64) -> u64 {
    let x = w & 0x7f7f_7f7f_7f7f_7f7f;
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

/// [`varint`] a byte at a time.
#[cold]
pub(super) fn varint_slow(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}
