//! Applying a [`RuleSet`] to a log, line by line: the first rule whose
//! regex matches and whose conditions hold emits its events and then sets
//! its state variables. The engine keeps each thread's open calls so that an
//! exit may omit the name (ftrace's `}`) or give a duration instead of a
//! time (uftrace's `} /* f */` lines carry only the call's duration), and a
//! clock per thread for events without a time.

use std::collections::{HashMap, HashSet};

use super::spec::{Cond, Emit, Kind, Rule, RuleSet};
use super::template::Env;
use super::time::to_ns;
use crate::ingest::funcs::{MAX_NAME, name_bound};
use crate::ingest::{Event, EventKind, FuncId, FuncTable};

/// One thread (resource) as the rules named it.
#[derive(Debug, Default)]
struct ThreadState {
    /// Open calls: function and start time.
    stack: Vec<(FuncId, u64)>,
    /// Time of the thread's last event.
    clock: u64,
}

/// The most bytes a state variable may hold: a rule that appends a
/// variable to itself doubles it on every line and would exhaust memory
/// after a few dozen lines; real state is a task or CPU name.
const MAX_STATE: usize = 1 << 20;

/// The state of a conversion in progress.
pub(super) struct Engine<'r> {
    rules: &'r RuleSet,
    state: HashMap<String, String>,
    by_name: HashMap<String, u32>,
    threads: Vec<ThreadState>,
    /// Thread ids, by thread index.
    pub tids: Vec<u64>,
    /// The same ids as a set, and the lowest id that may be free: a search
    /// of `tids` per new thread was quadratic in threads.
    taken: HashSet<u64>,
    next_free: u64,
    /// Thread names, by thread index (empty for numeric threads).
    pub names: Vec<String>,
    /// Lines no rule applied to.
    pub unmatched: u64,
    /// The first of them: line number and text.
    pub first_unmatched: Option<(u64, String)>,
    /// Exits without a name on a thread with no open call.
    pub orphan_exits: u64,
}

impl<'r> Engine<'r> {
    /// A conversion starting from the rules' initial state.
    pub(super) fn new(rules: &'r RuleSet) -> Engine<'r> {
        Engine {
            rules,
            state: rules.state.clone(),
            by_name: HashMap::new(),
            threads: Vec::new(),
            tids: Vec::new(),
            taken: HashSet::new(),
            next_free: 1,
            names: Vec::new(),
            unmatched: 0,
            first_unmatched: None,
            orphan_exits: 0,
        }
    }

    /// Applies the rules to one line, appending its events to `out`.
    /// Errors say which rule and field could not be used.
    pub(super) fn line(
        &mut self,
        lineno: u64,
        line: &str,
        funcs: &mut FuncTable,
        out: &mut Vec<Event>,
    ) -> Result<(), String> {
        for rule in &self.rules.rules {
            let Some(caps) = rule.regex.captures(line) else {
                continue;
            };
            let env = Env {
                caps: &caps,
                state: &self.state,
            };
            if !rule.when.iter().all(|c| holds(c, &env)) {
                continue;
            }
            let sets = assignments(rule, &env);
            if let Some((k, v)) = sets.iter().find(|(_, v)| v.len() > MAX_STATE) {
                return Err(format!(
                    "{}: field `set`: state variable `{k}` would hold {} bytes, over the limit of {} MiB (does it append to itself on every line?)",
                    rule.label,
                    v.len(),
                    MAX_STATE >> 20
                ));
            }
            let events = rule
                .emit
                .iter()
                .enumerate()
                .map(|(j, e)| {
                    resolve(e, &env).map_err(|m| format!("{}: field `emit[{j}].{m}", rule.label))
                })
                .collect::<Result<Vec<_>, _>>()?;
            for ev in events {
                self.emit(ev, funcs, out);
            }
            self.state.extend(sets);
            return Ok(());
        }
        self.unmatched += 1;
        if self.first_unmatched.is_none() {
            self.first_unmatched = Some((lineno, line.chars().take(80).collect()));
        }
        Ok(())
    }

    fn thread(&mut self, name: String) -> u32 {
        if let Some(&i) = self.by_name.get(&name) {
            return i;
        }
        let i = self.threads.len() as u32;
        let numeric = name.parse::<u64>().ok();
        let tid = match numeric {
            Some(n) if !self.taken.contains(&n) => n,
            _ => {
                while self.taken.contains(&self.next_free) {
                    self.next_free += 1;
                }
                self.next_free
            }
        };
        self.taken.insert(tid);
        // A number keeps the default `[thread N]` unless its id was taken.
        let shown = if numeric == Some(tid) {
            String::new()
        } else {
            name.clone()
        };
        self.threads.push(ThreadState::default());
        self.tids.push(tid);
        self.names.push(shown);
        self.by_name.insert(name, i);
        i
    }

    fn emit(&mut self, ev: Resolved, funcs: &mut FuncTable, out: &mut Vec<Event>) {
        let thread = self.thread(ev.thread);
        let func = ev.name.as_deref().map(|n| funcs.name(n));
        let t = &mut self.threads[thread as usize];
        let time = ev.time.unwrap_or(t.clock);
        let mut push = |time, func, kind| {
            out.push(Event {
                time,
                func,
                thread,
                kind,
            })
        };
        match ev.kind {
            Kind::Enter => {
                let func = func.expect("checked when compiled");
                t.stack.push((func, time));
                push(time, func, EventKind::Enter);
                t.clock = time;
            }
            Kind::Complete => {
                let func = func.expect("checked when compiled");
                let end = time + ev.duration.unwrap_or(0);
                push(time, func, EventKind::Enter);
                push(end, func, EventKind::Exit);
                t.clock = end;
            }
            Kind::Exit => {
                let depth = match func {
                    Some(f) => t.stack.iter().rposition(|&(g, _)| g == f),
                    None => t.stack.len().checked_sub(1),
                };
                let Some(depth) = depth else {
                    match func {
                        // The builder counts and repairs exits it cannot match.
                        Some(f) => push(time, f, EventKind::Exit),
                        None => self.orphan_exits += 1,
                    }
                    return;
                };
                let (f, start) = t.stack[depth];
                let end = match (ev.time, ev.duration) {
                    (None, Some(d)) => start + d,
                    _ => time,
                };
                t.stack.truncate(depth);
                push(end, f, EventKind::Exit);
                t.clock = end;
            }
        }
    }
}

/// An event with its templates expanded and its times converted.
struct Resolved {
    kind: Kind,
    time: Option<u64>,
    thread: String,
    name: Option<String>,
    duration: Option<u64>,
}

fn resolve(e: &Emit, env: &Env) -> Result<Resolved, String> {
    // An empty time (an optional group that did not match) means the clock.
    let time = match e.time.as_ref().map(|t| t.expand(env)) {
        Some(t) if !t.trim().is_empty() => {
            let unit = e.unit.expand(env);
            Some(to_ns(&t, &unit, e.radix).map_err(|m| format!("time`: {m}"))?)
        }
        _ => None,
    };
    let duration = match &e.duration {
        Some(d) => {
            let unit = e.duration_unit.expand(env);
            Some(to_ns(&d.expand(env), &unit, 10).map_err(|m| format!("duration`: {m}"))?)
        }
        None => None,
    };
    // An exit with an empty name (an optional group) leaves the innermost call.
    let name = e
        .name
        .as_ref()
        .map(|n| n.expand(env))
        .filter(|n| !n.is_empty());
    if name.is_none() && e.kind != Kind::Exit {
        return Err("name`: the name is empty".to_string());
    }
    if let Some(n) = name.as_ref().filter(|n| n.len() > MAX_NAME) {
        return Err(format!("name`: expected {}", name_bound(n.len())));
    }
    Ok(Resolved {
        kind: e.kind,
        time,
        thread: e.thread.expand(env),
        name,
        duration,
    })
}

fn holds(c: &Cond, env: &Env) -> bool {
    match c {
        Cond::Eq(a, b) => a.expand(env) == b.expand(env),
        Cond::Ne(a, b) => a.expand(env) != b.expand(env),
        Cond::NonEmpty(a) => !a.expand(env).is_empty(),
    }
}

fn assignments(rule: &Rule, env: &Env) -> Vec<(String, String)> {
    rule.set
        .iter()
        .map(|(k, v)| (k.expand(env), v.expand(env)))
        .collect()
}
