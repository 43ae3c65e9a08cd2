//! Perfetto's thread and process ids are 32-bit signed (`int32 tid`), a
//! trace's are 64-bit: [`Ids`] gives every thread id of the trace its own
//! 32-bit id, the same one each time it is asked. An id that fits
//! (0 to 2^31 - 1) is kept unless another thread already took it; any
//! other gets a substitute counted down from 2^31 - 1, skipping the ids
//! the trace's own threads have, so thread 4294967301 never merges with
//! thread 5 and 2147483648 never turns negative. A substituted thread's
//! track is named after its real id ([`Ids::name`]).
//!
//! Tracks are looked up by thread id in a hash map (a 120k-thread trace
//! searched a list per event before).

use rustc_hash::{FxHashMap, FxHashSet};

/// The 32-bit ids handed out so far.
pub(super) struct Ids {
    /// The id given to each thread id asked about.
    given: FxHashMap<u64, i32>,
    /// Ids given.
    taken: FxHashSet<i32>,
    /// Ids of the trace's own threads that fit: never a substitute.
    reserved: FxHashSet<i32>,
    /// The next substitute to try, counting down.
    next: i32,
}

impl Ids {
    /// A table for a trace whose threads are `threads` (those that fit
    /// keep their id even when a substitute is handed out first).
    pub(super) fn new(threads: &[u64]) -> Ids {
        Ids {
            given: FxHashMap::default(),
            taken: FxHashSet::default(),
            reserved: threads.iter().filter_map(|&t| fits(t)).collect(),
            next: i32::MAX,
        }
    }

    /// The 32-bit id of thread `tid`.
    pub(super) fn get(&mut self, tid: u64) -> i32 {
        if let Some(&id) = self.given.get(&tid) {
            return id;
        }
        let id = match fits(tid) {
            Some(id) if !self.taken.contains(&id) => id,
            _ => self.substitute(),
        };
        self.taken.insert(id);
        self.given.insert(tid, id);
        id
    }

    /// The next id neither given nor kept for a thread of the trace.
    fn substitute(&mut self) -> i32 {
        while self.taken.contains(&self.next) || self.reserved.contains(&self.next) {
            self.next -= 1;
        }
        let id = self.next;
        self.next -= 1;
        id
    }

    /// The track name of thread `tid` when its id was substituted: its
    /// real id, which the track's `tid` no longer shows.
    pub(super) fn name(&mut self, tid: u64) -> Option<String> {
        let id = self.get(tid);
        (fits(tid) != Some(id)).then(|| format!("thread {tid}"))
    }
}

/// `tid` as a non-negative 32-bit id, when it is one.
fn fits(tid: u64) -> Option<i32> {
    i32::try_from(tid).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_do_not_fit_get_free_substitutes_named_after_them() {
        let big = [4_294_967_301u64, 2_147_483_648, u64::MAX];
        let mut ids = Ids::new(&[5, big[0], i32::MAX as u64, big[1], big[2]]);
        assert_eq!(ids.get(5), 5);
        let got: Vec<i32> = big.iter().map(|&t| ids.get(t)).collect();
        assert_eq!(got, [i32::MAX - 1, i32::MAX - 2, i32::MAX - 3]);
        assert_eq!(ids.get(i32::MAX as u64), i32::MAX, "kept for its thread");
        assert_eq!(ids.get(big[0]), i32::MAX - 1, "the same each time");
        assert_eq!(ids.name(big[0]).as_deref(), Some("thread 4294967301"));
        assert_eq!(ids.name(5), None);
    }

    #[test]
    fn a_thread_seen_only_later_never_shares_a_substitute() {
        // Thread 2147483646 is not in the list, and comes after a
        // substitute took its id.
        let mut ids = Ids::new(&[]);
        assert_eq!(ids.get(1 << 40), i32::MAX);
        assert_eq!(ids.get(i32::MAX as u64 - 1), i32::MAX - 1);
        let late = ids.get(i32::MAX as u64);
        assert_ne!(late, i32::MAX);
        assert!(late >= 0);
        assert_eq!(
            ids.name(i32::MAX as u64).as_deref(),
            Some("thread 2147483647")
        );
    }
}
