//! Writing binary traces the way the runtime does, for tests and
//! benchmarks.

use super::framing::checksum;
use super::{FLAG_TIMED, MAGIC, SYNC, TAG_BLOCK, TAG_MAP, VERSION};
use crate::ingest::{EventKind, Mapping};

/// One thread's block for [`encode`]: thread id and (kind, address, time) events.
pub type Block = (u64, Vec<(EventKind, u64, u64)>);

/// Encodes events the way the runtime does (the newest version, timed,
/// no mappings); used by tests and benchmarks.
pub fn encode(base: u64, path: &str, blocks: &[Block]) -> Vec<u8> {
    encode_version(VERSION, base, path, &[], blocks)
}

/// Encodes a trace of format `version` (1 or 2) with mapping records (version 2 only).
pub fn encode_version(
    version: u16,
    base: u64,
    path: &str,
    maps: &[Mapping],
    blocks: &[Block],
) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&FLAG_TIMED.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&(path.len() as u32).to_le_bytes());
    out.extend_from_slice(path.as_bytes());
    for m in maps {
        let mut payload = Vec::new();
        for v in [m.start, m.end, m.offset] {
            payload.extend_from_slice(&v.to_le_bytes());
        }
        let id = m.build_id.as_deref().map(hex_bytes).unwrap_or_default();
        payload.push(id.len() as u8);
        payload.extend_from_slice(&id);
        payload.extend_from_slice(m.path.as_bytes());
        put_record(&mut out, version, TAG_MAP, 0, 0, &payload);
    }
    for (tid, events) in blocks {
        let mut payload = Vec::new();
        let (mut pa, mut pt) = (0u64, 0u64);
        for &(kind, addr, time) in events {
            let d = addr.wrapping_sub(pa) as i64;
            let zz = ((d << 1) ^ (d >> 63)) as u64;
            put_varint(&mut payload, (zz << 1) | (kind == EventKind::Exit) as u64);
            put_varint(&mut payload, time - pt);
            (pa, pt) = (addr, time);
        }
        put_record(
            &mut out,
            version,
            TAG_BLOCK,
            *tid,
            events.len() as u32,
            &payload,
        );
    }
    out
}

/// Appends one record in the framing of `version`.
pub(super) fn put_record(
    out: &mut Vec<u8>,
    version: u16,
    tag: u8,
    tid: u64,
    n: u32,
    payload: &[u8],
) {
    if version == 1 {
        out.push(tag);
    } else {
        out.extend_from_slice(SYNC);
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&[tag, 0, 0, 0]);
    }
    let sum_from = out.len() - 4;
    out.extend_from_slice(&tid.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    if version != 1 {
        let sum = checksum(&out[sum_from..]);
        out[sum_from - 4..sum_from].copy_from_slice(&sum.to_le_bytes());
    }
}

/// `"0a1b"` -> `[0x0a, 0x1b]` (test helper input; invalid digits read as 0).
fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}

pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
