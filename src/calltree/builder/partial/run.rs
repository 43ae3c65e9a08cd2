//! Runs of one leaf ([`LeafRun`]): a loop calling one helper costs the
//! summary only its sums, added to the node and the caller once the run
//! ends.

use super::*;

/// A run of one function's leaf calls on one thread with no other event
/// between them (a loop calling a helper, the commonest shape of a trace):
/// after the first, a call adds only to these sums, which go to its node
/// and its caller when the run ends ([`Summary::end_run`]), before any
/// other event. With a time window, calls outside it are not part of the
/// run, which they leave as it was.
#[derive(Clone, Copy)]
pub(super) struct LeafRun {
    /// The local thread and function of the last leaf call
    /// ([`LeafRun::key`]), [`LeafRun::NONE`] after any other event.
    pub(super) key: u64,
    /// That call's summary node.
    pub(super) node: u32,
    /// The calls since (0 when it was not called again), their summed
    /// time (saturating) and how many exited before they entered.
    pub(super) calls: u64,
    total: u64,
    backwards: u64,
    /// With a time window, the earliest start of those calls
    /// (`u64::MAX`: none), for the thread's first kept call.
    first_kept: u64,
}

impl LeafRun {
    /// The key of no run.
    pub(super) const NONE: u64 = u64::MAX;

    /// The key of `thread`'s calls of `func`: one compare for the two.
    #[inline(always)]
    pub(super) fn key(thread: u32, func: FuncId) -> u64 {
        u64::from(thread) << 32 | u64::from(func)
    }
}

impl Default for LeafRun {
    fn default() -> Self {
        LeafRun {
            key: LeafRun::NONE,
            node: 0,
            calls: 0,
            total: 0,
            backwards: 0,
            first_kept: u64::MAX,
        }
    }
}

impl Summary {
    /// Another call of the run's leaf ([`LeafRun`]), entered as `e` and
    /// exited at `exit`; with `W`, as [`Summary::leaf`] takes it.
    #[inline(always)]
    pub(super) fn run_leaf<const TIMED: bool, const W: bool, const F: bool>(
        &mut self,
        e: &Event,
        exit: u64,
        window: Window,
    ) {
        // A hidden call changes nothing, and leaves the run as it was.
        if W && !window.keeps(e.time) {
            return;
        }
        let r = &mut self.run;
        r.calls += 1;
        if W {
            r.first_kept = r.first_kept.min(e.time);
        }
        if TIMED {
            let exit = clamp::<W>(exit, window);
            r.backwards += u64::from(exit < e.time);
            let total = exit.saturating_sub(e.time);
            r.total = r.total.saturating_add(total);
            let at = At {
                thread: e.thread,
                start: e.time,
            };
            self.kept.add::<F>(r.node, e.func, (total, total), at);
        }
    }

    /// Ends the run of leaf calls, if any, adding its calls to their node
    /// and their caller: what [`Summary::leaf`] would have added call by
    /// call.
    #[inline(always)]
    pub(super) fn end_run(&mut self) {
        if self.run.calls != 0 {
            self.flush_run();
        }
        self.run.key = LeafRun::NONE;
    }

    /// Adds the run's calls since its first (some) and empties it.
    #[inline(never)]
    pub(super) fn flush_run(&mut self) {
        let r = self.run;
        (self.run.calls, self.run.total, self.run.backwards) = (0, 0, 0);
        self.run.first_kept = u64::MAX;
        let th = &mut self.threads[(r.key >> 32) as usize];
        th.backwards += r.backwards;
        th.first_kept = th.first_kept.min(r.first_kept);
        add_below(th, &mut self.anchors, r.total);
        let n = &mut self.nodes[r.node as usize];
        n.calls += r.calls;
        n.total = n.total.saturating_add(r.total);
        n.self_time = n.self_time.saturating_add(r.total);
    }
}
