//! pprof's `profile.proto`, gzipped: what `pprof -top`, `-list`,
//! `-diff_base` and Grafana Pyroscope read. The messages are written with
//! `prost` derives from the field numbers of upstream
//! `github.com/google/pprof/proto/profile.proto` (no protoc, no build
//! script); the integration tests decode the output with an independent
//! decoder compiled from an upstream-shaped `.proto`.
//!
//! One sample per calling context (a node of the contexts view, or of an
//! abstracted tree), its locations leaf-first and a `thread` label (the
//! thread's name when the trace names it, else its id). Values are
//! `[calls/count, self/nanoseconds]` for timed traces; an untimed trace
//! weighs each call 1, so its values are `[calls/count, self/count]`
//! (`self/units` for indented text of unknown unit). One function and one
//! location per traced function: the location carries the function's
//! entry address and the mapping it lies in when the trace has addresses.
//! Mappings are the trace's `# map` records with their build-ids (the
//! command alone when it has none), all marked symbolized so pprof does not
//! look names up again. `Function.system_name` is the name as the object
//! spells it (a C++ function's mangled linkage name, `_ZN2ns5twiceIiEET_S1_`),
//! `Function.name` the one `--demangle` shows.
//! Names need no escaping: protobuf strings are length-prefixed.
//!
//! Samples are encoded into the gzip stream as they are made (the other
//! fields follow them: protobuf fields may come in any order), so memory
//! holds one sample's path, never every path: a sample repeats its whole
//! calling context, and a 40,000-deep recursion's paths hold 800 million
//! frames. Past [`super::MAX_FRAMES`] the export is refused.

use std::collections::HashMap;
use std::io::{self, Write};

use flate2::Compression;
use flate2::write::GzEncoder;
use prost::Message;

use super::{Exported, Exporter, TreeExporter};
use crate::calltree::NodeId;
use crate::ingest::{FuncId, FuncKey, Unit};

/// `--to pprof`.
pub(super) struct Pprof;

impl Exporter for Pprof {
    fn name(&self) -> &'static str {
        "pprof"
    }
    fn about(&self) -> &'static str {
        "gzipped profile.proto for pprof and Pyroscope: one sample per calling context, [calls, self]"
    }
}

impl TreeExporter for Pprof {
    fn wants_linkage_names(&self) -> bool {
        true
    }
    fn check(&self, t: &Exported<'_>) -> crate::error::Result<Option<String>> {
        super::check_frames(t, "the pprof samples")?;
        Ok(None)
    }
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut gz = GzEncoder::new(io::BufWriter::new(out), Compression::default());
        let mut buf = Vec::new();
        let rest = build(t, &mut |sample| {
            buf.clear();
            prost::encoding::message::encode(2, sample, &mut buf);
            gz.write_all(&buf)
        })?;
        buf.clear();
        rest.encode_raw(&mut buf);
        gz.write_all(&buf)?;
        gz.finish()?.flush()
    }
}

/// `profile.proto`'s `Profile`, the fields calltrace writes.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Profile {
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    pub period: i64,
    #[prost(int64, repeated, tag = "13")]
    pub comment: Vec<i64>,
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

/// A value's type and unit (string table indices).
#[derive(Clone, PartialEq, Message)]
pub(super) struct ValueType {
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

/// A calling context: locations leaf-first, values, labels.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

/// A string (`str`) or numeric label of a sample.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Label {
    #[prost(int64, tag = "1")]
    pub key: i64,
    #[prost(int64, tag = "2")]
    pub str: i64,
}

/// A loaded object.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Mapping {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub memory_start: u64,
    #[prost(uint64, tag = "3")]
    pub memory_limit: u64,
    #[prost(uint64, tag = "4")]
    pub file_offset: u64,
    #[prost(int64, tag = "5")]
    pub filename: i64,
    #[prost(int64, tag = "6")]
    pub build_id: i64,
    #[prost(bool, tag = "7")]
    pub has_functions: bool,
    #[prost(bool, tag = "8")]
    pub has_filenames: bool,
    #[prost(bool, tag = "9")]
    pub has_line_numbers: bool,
}

/// A code location: here, one function's entry.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Location {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    #[prost(uint64, tag = "3")]
    pub address: u64,
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
}

/// A function and line of a location.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Line {
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    #[prost(int64, tag = "2")]
    pub line: i64,
}

/// A function: names, file and start line (string table indices).
#[derive(Clone, PartialEq, Message)]
pub(super) struct Function {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(int64, tag = "2")]
    pub name: i64,
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    #[prost(int64, tag = "4")]
    pub filename: i64,
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}

/// The string table: index 0 is "", each string once.
#[derive(Default)]
struct Strings {
    table: Vec<String>,
    index: HashMap<String, i64>,
}

impl Strings {
    fn new() -> Strings {
        let mut s = Strings::default();
        s.get("");
        s
    }

    fn get(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// The profile of `t`, samples included.
#[cfg(test)]
pub(super) fn profile(t: &Exported<'_>) -> Profile {
    let mut samples = Vec::new();
    let mut p = build(t, &mut |s| {
        samples.push(s.clone());
        Ok(())
    })
    .expect("collecting samples cannot fail");
    p.sample = samples;
    p
}

/// The profile of `t` without its samples, each of which goes to `sample`
/// as it is made.
fn build(
    t: &Exported<'_>,
    sample: &mut dyn FnMut(&Sample) -> io::Result<()>,
) -> io::Result<Profile> {
    let mut b = Builder {
        t,
        strings: Strings::new(),
        location_of: vec![0; t.funcs.len()],
        thread_index: thread_index(t.meta),
        p: Profile::default(),
    };
    b.header();
    b.mappings();
    b.samples(sample)?;
    b.p.string_table = std::mem::take(&mut b.strings.table);
    Ok(b.p)
}

/// Builds a [`Profile`]; function and location ids are `1..` in order of
/// first use, so the output is the same on every run.
struct Builder<'a, 't> {
    t: &'a Exported<'t>,
    strings: Strings,
    /// Location (and function) id per function id, 0 until used.
    location_of: Vec<u64>,
    /// Index in the trace's thread list of each thread id (its first).
    thread_index: rustc_hash::FxHashMap<u64, usize>,
    p: Profile,
}

/// The index of each thread id in `meta.threads` (a search per sample was
/// quadratic in threads).
fn thread_index(meta: &crate::ingest::TraceMeta) -> rustc_hash::FxHashMap<u64, usize> {
    let mut index = rustc_hash::FxHashMap::default();
    for (i, &tid) in meta.threads.iter().enumerate() {
        index.entry(tid).or_insert(i);
    }
    index
}

impl Builder<'_, '_> {
    fn value_type(&mut self, kind: &str, unit: &str) -> ValueType {
        ValueType {
            r#type: self.strings.get(kind),
            unit: self.strings.get(unit),
        }
    }

    fn header(&mut self) {
        let unit = match self.t.tree.unit {
            Unit::Nanos => "nanoseconds",
            Unit::Calls => "count",
            Unit::Number => "units",
            Unit::Cycles => "cycles",
        };
        let calls = self.value_type("calls", "count");
        let own = self.value_type("self", unit);
        self.p.default_sample_type = own.r#type;
        self.p.period_type = Some(own.clone());
        self.p.period = 1;
        self.p.sample_type = vec![calls, own];
        let tree = self.t.tree;
        if tree.unit == Unit::Nanos {
            let run = tree
                .children(0)
                .fold(0u64, |s, n| s.saturating_add(tree.total(n)));
            self.p.duration_nanos = run.min(i64::MAX as u64) as i64;
        }
        let comment = format!("calltrace export of {}", self.t.title);
        self.p.comment = vec![self.strings.get(&comment)];
    }

    fn mappings(&mut self) {
        let maps = &self.t.meta.maps;
        if maps.is_empty() {
            let filename = self.strings.get(self.t.command);
            self.p.mapping.push(symbolized(Mapping {
                id: 1,
                filename,
                ..Mapping::default()
            }));
        }
        for (i, m) in maps.iter().enumerate() {
            let filename = self.strings.get(&m.path);
            let build_id = self.strings.get(m.build_id.as_deref().unwrap_or(""));
            self.p.mapping.push(symbolized(Mapping {
                id: i as u64 + 1,
                memory_start: m.start,
                memory_limit: m.end,
                file_offset: m.offset,
                filename,
                build_id,
                ..Mapping::default()
            }));
        }
    }

    /// One sample per non-synthetic node, in preorder, each given to `out`.
    fn samples(&mut self, out: &mut dyn FnMut(&Sample) -> io::Result<()>) -> io::Result<()> {
        let tree = self.t.tree;
        let parents = tree.parents();
        let thread_key = self.strings.get("thread");
        let main_thread = self.thread_label(self.t.meta.threads.first().copied());
        let mut stack = Vec::new();
        for n in 1..tree.len() as NodeId {
            if self.t.funcs.is_synthetic(tree.func(n)) {
                continue;
            }
            stack.clear();
            let mut thread = main_thread;
            let mut at = n;
            while at != 0 {
                let f = tree.func(at);
                match self.t.funcs.key(f) {
                    FuncKey::Thread(tid) => thread = self.thread_label(Some(*tid)),
                    FuncKey::Root => {}
                    _ => stack.push(self.location(f)),
                }
                at = parents[at as usize];
            }
            let value = [tree.calls(n), tree.self_time(n)]
                .map(|v| v.min(i64::MAX as u64) as i64)
                .to_vec();
            let sample = Sample {
                location_id: std::mem::take(&mut stack),
                value,
                label: vec![Label {
                    key: thread_key,
                    str: thread,
                }],
            };
            out(&sample)?;
            stack = sample.location_id;
        }
        Ok(())
    }

    /// The label of thread `tid`: its name when the trace gives one, else
    /// its id ("0" when the trace records none).
    fn thread_label(&mut self, tid: Option<u64>) -> i64 {
        let meta = self.t.meta;
        let tid = tid.unwrap_or(0);
        let named = self
            .thread_index
            .get(&tid)
            .and_then(|&i| meta.thread_names.get(i))
            .filter(|n| !n.is_empty());
        match named {
            Some(name) => self.strings.get(name),
            None => self.strings.get(&tid.to_string()),
        }
    }

    /// The location (and function) id of `f`, made on first use.
    fn location(&mut self, f: FuncId) -> u64 {
        let id = self.location_of[f as usize];
        if id != 0 {
            return id;
        }
        let id = self.p.location.len() as u64 + 1;
        self.location_of[f as usize] = id;
        let info = &self.t.names[f as usize];
        let name = self.strings.get(&info.name);
        let linkage = self.t.linkage.and_then(|l| l.get(f as usize));
        let system_name = match linkage {
            Some(l) if l.name != info.name => self.strings.get(&l.name),
            _ => name,
        };
        let filename = self.strings.get(info.file.as_deref().unwrap_or(""));
        let start_line = info.line.unwrap_or(0) as i64;
        self.p.function.push(Function {
            id,
            name,
            system_name,
            filename,
            start_line,
        });
        let address = match self.t.funcs.key(f) {
            FuncKey::Addr(a) => *a,
            _ => 0,
        };
        let mapping_id = self.mapping_of(address);
        self.p.location.push(Location {
            id,
            mapping_id,
            address,
            line: vec![Line {
                function_id: id,
                line: start_line,
            }],
        });
        id
    }

    /// The mapping holding `address`: the last one recorded (a later load
    /// replaces an earlier one), the only mapping when the trace records
    /// none.
    fn mapping_of(&self, address: u64) -> u64 {
        let maps = &self.t.meta.maps;
        if maps.is_empty() {
            return 1;
        }
        maps.iter()
            .rposition(|m| (m.start..m.end).contains(&address))
            .map_or(0, |i| i as u64 + 1)
    }
}

/// `m`, marked as already symbolized: pprof then shows our names and does
/// not look the addresses up again.
fn symbolized(m: Mapping) -> Mapping {
    Mapping {
        has_functions: true,
        has_filenames: true,
        has_line_numbers: true,
        ..m
    }
}

#[cfg(test)]
mod tests {
    use super::super::Shape;
    use super::super::testing::{TRACE, export};
    use super::*;
    use flate2::read::GzDecoder;
    use std::io::Read;

    fn decoded(text: &str) -> Profile {
        let gz = export(Shape::Tree(&Pprof), text);
        let mut bytes = Vec::new();
        GzDecoder::new(&gz[..]).read_to_end(&mut bytes).unwrap();
        Profile::decode(&bytes[..]).unwrap()
    }

    /// Each sample as (frames leaf-first, values).
    fn samples(p: &Profile) -> Vec<(Vec<String>, Vec<i64>)> {
        let s = |i: i64| p.string_table[i as usize].clone();
        let func = |loc: u64| {
            let l = &p.location[loc as usize - 1];
            s(p.function[l.line[0].function_id as usize - 1].name)
        };
        p.sample
            .iter()
            .map(|x| {
                (
                    x.location_id.iter().map(|&l| func(l)).collect(),
                    x.value.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn one_sample_per_context_leaf_first_with_calls_and_self() {
        let p = decoded(TRACE);
        assert_eq!(p.string_table[0], "");
        let types: Vec<_> = p
            .sample_type
            .iter()
            .map(|v| {
                (
                    p.string_table[v.r#type as usize].as_str(),
                    p.string_table[v.unit as usize].as_str(),
                )
            })
            .collect();
        assert_eq!(types, [("calls", "count"), ("self", "nanoseconds")]);
        let v =
            |f: &[&str], calls, own| (f.iter().map(|s| s.to_string()).collect(), vec![calls, own]);
        assert_eq!(
            samples(&p),
            [
                v(&["main"], 1, 19),
                v(&["f", "main"], 2, 14),
                v(&["g", "f", "main"], 2, 4),
                v(&["g", "main"], 1, 3)
            ]
        );
        assert_eq!(p.duration_nanos, 40);
        assert_eq!(p.function.len(), 3, "one function per traced function");
    }

    #[test]
    fn untimed_traces_weigh_self_in_calls() {
        let p = decoded("E main\nE f\nX f\nE f\nX f\nX main\n");
        let unit = p.sample_type[1].unit as usize;
        assert_eq!(p.string_table[unit], "count");
        assert_eq!(p.duration_nanos, 0);
        let own: i64 = p.sample.iter().map(|s| s.value[1]).sum();
        assert_eq!(own, 3, "every call weighs 1");
    }

    #[test]
    fn threads_label_their_samples() {
        let p = decoded("E main 0 7\nE w 1 8\nX w 3 8\nX main 4 7\n");
        let labels: Vec<_> = p
            .sample
            .iter()
            .map(|s| p.string_table[s.label[0].str as usize].as_str())
            .collect();
        assert_eq!(labels, ["7", "8"]);
    }

    #[test]
    fn hostile_names_read_back_exactly() {
        let (b, mut names) = super::super::testing::built(TRACE, Pprof.view());
        let hostile = "a\nb;c\"<\\\0 123 \u{fffd}";
        for n in &mut names {
            n.name = hostile.to_string();
        }
        let t = super::super::testing::exported(&b, &names, "t");
        let p = profile(&t);
        let back = Profile::decode(&p.encode_to_vec()[..]).unwrap();
        let name = back.function[0].name as usize;
        assert_eq!(back.string_table[name], hostile);
    }
}
