//! What `live` keeps of the events it has read: each thread's current
//! stack, the self time (or calls, untimed) of each function over the
//! current interval and overall, and the calls of each function. A batch's
//! events are applied in one pass: weights sit in vectors indexed by
//! function id, and each thread of the batch is looked up once, not once
//! per event, so that an event costs a few stores.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ingest::{Event, EventKind, FuncId};

/// One thread as the view sees it.
#[derive(Debug, Default)]
pub(super) struct ThreadState {
    pub(super) stack: Vec<FuncId>,
    last_time: Option<u64>,
    /// A snapshot showed it with no open call: the next one drops it.
    pub(super) shown_ended: bool,
}

/// The running figures of a followed trace.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) threads: FxHashMap<u64, ThreadState>,
    /// Threads dropped from the view because they ended.
    pub(super) ended: FxHashSet<u64>,
    /// Self time (timed) or calls (untimed) by function, since the start.
    pub(super) self_all: Vec<u64>,
    /// The same over the current interval.
    pub(super) self_now: Vec<u64>,
    /// Whether `self_now` holds anything.
    pub(super) now_touched: bool,
    /// Calls by function, since the start.
    pub(super) calls: Vec<u64>,
    pub(super) events: u64,
    pub(super) events_now: u64,
}

impl Tally {
    /// Applies a batch's `events`, whose thread indexes name the threads
    /// of `tids`, in order.
    pub(super) fn apply(&mut self, tids: &[u64], events: &[Event], timed: bool, funcs: usize) {
        for v in [&mut self.self_all, &mut self.self_now, &mut self.calls] {
            if v.len() < funcs {
                v.resize(funcs, 0);
            }
        }
        let mut slots: Vec<Option<ThreadState>> = Vec::new();
        slots.resize_with(tids.len(), || None);
        for e in events {
            let Some(slot) = slots.get_mut(e.thread as usize) else {
                continue;
            };
            let th = slot.get_or_insert_with(|| {
                let tid = tids[e.thread as usize];
                // A thread id the system gave again, or a thread that went on.
                self.ended.remove(&tid);
                self.threads.remove(&tid).unwrap_or_default()
            });
            step(
                th,
                e,
                timed,
                &mut self.self_all,
                &mut self.self_now,
                &mut self.calls,
            );
        }
        for (slot, &tid) in slots.into_iter().zip(tids) {
            if let Some(mut th) = slot {
                th.shown_ended = false;
                self.threads.insert(tid, th);
            }
        }
        self.events += events.len() as u64;
        self.events_now += events.len() as u64;
        self.now_touched |= !events.is_empty();
    }
}

/// One event of thread `th`.
#[inline]
fn step(
    th: &mut ThreadState,
    e: &Event,
    timed: bool,
    self_all: &mut [u64],
    self_now: &mut [u64],
    calls: &mut [u64],
) {
    if timed {
        if let (Some(&top), Some(last)) = (th.stack.last(), th.last_time) {
            let dt = e.time.saturating_sub(last);
            self_all[top as usize] += dt;
            self_now[top as usize] += dt;
        }
        th.last_time = Some(e.time);
    }
    match e.kind {
        EventKind::Enter => {
            th.stack.push(e.func);
            calls[e.func as usize] += 1;
            if !timed {
                self_all[e.func as usize] += 1;
                self_now[e.func as usize] += 1;
            }
        }
        EventKind::Exit => {
            if let Some(i) = th.stack.iter().rposition(|&f| f == e.func) {
                th.stack.truncate(i);
            }
        }
    }
}
