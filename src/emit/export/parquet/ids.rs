//! The stable ids of the Parquet export: FNV-1a 64 (offset basis
//! 0xcbf29ce484222325, prime 0x100000001b3) over documented bytes, the
//! 64 bits read as a signed integer (Spark misreads unsigned 64-bit
//! columns). The same function or calling context gets the same id in
//! runs exported separately, on any machine (`docs/scale.md`).

/// FNV-1a 64 of `bytes`.
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A function's id: FNV-1a 64 of its linkage name, a NUL byte and the base
/// name of its source file (nothing when unknown).
pub(super) fn function_id(linkage_name: &str, file: Option<&str>) -> i64 {
    let base = file
        .map(|f| f.rsplit('/').next().unwrap_or(f))
        .unwrap_or("");
    let mut bytes = Vec::with_capacity(linkage_name.len() + 1 + base.len());
    bytes.extend_from_slice(linkage_name.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(base.as_bytes());
    fnv1a(&bytes) as i64
}

/// A calling context's id: FNV-1a 64 of its parent's id (0 at a thread's
/// root) and its function's id, each as 8 little-endian bytes.
pub(super) fn context_id(parent: i64, function: i64) -> i64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&parent.to_le_bytes());
    bytes[8..].copy_from_slice(&function.to_le_bytes());
    fnv1a(&bytes) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn a_function_id_depends_on_the_file_name_but_not_its_directory() {
        let a = function_id("parse", Some("/home/a/src/job.c"));
        assert_eq!(a, function_id("parse", Some("/build/x/job.c")));
        assert_ne!(a, function_id("parse", Some("/home/a/src/util.c")));
        assert_ne!(a, function_id("parse", None));
        assert_ne!(function_id("ab", None), function_id("a", Some("b")));
    }

    #[test]
    fn a_context_id_depends_on_the_whole_path() {
        let (main, f) = (function_id("main", None), function_id("f", None));
        let top = context_id(0, main);
        assert_ne!(context_id(top, f), context_id(0, f));
        assert_eq!(context_id(top, f), context_id(context_id(0, main), f));
    }
}
