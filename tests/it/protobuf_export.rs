//! `export --to pprof` and `--to perfetto`, decoded by independent
//! decoders: Python's `protobuf` with pprof's `profile.proto` (written
//! below in upstream's shape, every field at upstream's number) compiled
//! at test time by `grpc_tools.protoc`, and the `perfetto` package's own
//! compiled trace protos. Both come from PyPI (`.ci/run` installs them);
//! without them the tests skip, unless `CALLTRACE_REQUIRE_TOOLS=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::*;

/// github.com/google/pprof proto/profile.proto: every message and field at
/// its upstream number (comments left out).
const PROFILE_PROTO: &str = r#"
syntax = "proto3";
package perftools.profiles;

message Profile {
  repeated ValueType sample_type = 1;
  repeated Sample sample = 2;
  repeated Mapping mapping = 3;
  repeated Location location = 4;
  repeated Function function = 5;
  repeated string string_table = 6;
  int64 drop_frames = 7;
  int64 keep_frames = 8;
  int64 time_nanos = 9;
  int64 duration_nanos = 10;
  ValueType period_type = 11;
  int64 period = 12;
  repeated int64 comment = 13;
  int64 default_sample_type = 14;
  int64 doc_url = 15;
}
message ValueType {
  int64 type = 1;
  int64 unit = 2;
}
message Sample {
  repeated uint64 location_id = 1;
  repeated int64 value = 2;
  repeated Label label = 3;
}
message Label {
  int64 key = 1;
  int64 str = 2;
  int64 num = 3;
  int64 num_unit = 4;
}
message Mapping {
  uint64 id = 1;
  uint64 memory_start = 2;
  uint64 memory_limit = 3;
  uint64 file_offset = 4;
  int64 filename = 5;
  int64 build_id = 6;
  bool has_functions = 7;
  bool has_filenames = 8;
  bool has_line_numbers = 9;
  bool has_inline_frames = 10;
}
message Location {
  uint64 id = 1;
  uint64 mapping_id = 2;
  uint64 address = 3;
  repeated Line line = 4;
  bool is_folded = 5;
}
message Line {
  uint64 function_id = 1;
  int64 line = 2;
  int64 column = 3;
}
message Function {
  uint64 id = 1;
  int64 name = 2;
  int64 system_name = 3;
  int64 filename = 4;
  int64 start_line = 5;
}
"#;

/// Decodes a gzipped profile with the compiled .proto; prints it as JSON
/// with every string resolved. Unknown fields (a field at a wrong number)
/// make it fail.
const DECODE_PPROF: &str = r#"
import gzip, json, sys
from grpc_tools import protoc
d, prof = sys.argv[1], sys.argv[2]
assert protoc.main(["protoc", "-I" + d, "--python_out=" + d, d + "/profile.proto"]) == 0
sys.path.insert(0, d)
import profile_pb2
p = profile_pb2.Profile()
p.ParseFromString(gzip.open(prof).read())
from google.protobuf.unknown_fields import UnknownFieldSet
def known(m):
    assert len(UnknownFieldSet(m)) == 0, "unknown field in " + type(m).__name__
    for f, v in m.ListFields():
        if f.message_type is None:
            continue
        for x in ([v] if hasattr(v, "ListFields") else v):
            known(x)
known(p)
S = p.string_table
fn = {f.id: f for f in p.function}
loc = {l.id: l for l in p.location}
maps = {m.id: m for m in p.mapping}
def frame(l):
    line = loc[l].line[0]
    assert line.line == fn[line.function_id].start_line
    return S[fn[line.function_id].name]
print(json.dumps({
  "string0": S[0],
  "sample_type": [[S[v.type], S[v.unit]] for v in p.sample_type],
  "default_sample_type": S[p.default_sample_type],
  "period_type": [S[p.period_type.type], S[p.period_type.unit]],
  "duration_nanos": p.duration_nanos,
  "comment": [S[c] for c in p.comment],
  "samples": [{"stack": [frame(l) for l in s.location_id], "value": list(s.value),
               "labels": {S[x.key]: S[x.str] for x in s.label}} for s in p.sample],
  "functions": [{"name": S[f.name], "system_name": S[f.system_name],
                 "file": S[f.filename], "line": f.start_line} for f in p.function],
  "mappings": [{"file": S[m.filename], "build_id": S[m.build_id], "start": m.memory_start,
                "limit": m.memory_limit, "symbolized": m.has_functions} for m in p.mapping],
  "located": sum(1 for l in p.location if l.mapping_id in maps and
                 maps[l.mapping_id].memory_start <= l.address < maps[l.mapping_id].memory_limit),
}))
"#;

/// Decodes a Perfetto trace with the perfetto package's protos, following
/// each thread's open slices; prints counts and the begun slices as JSON.
const DECODE_PERFETTO: &str = r#"
import json, sys
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
t = pb.Trace()
t.ParseFromString(open(sys.argv[1], "rb").read())
names, tracks, stacks, last = {}, {}, {}, {}
begun, ends, snapshots = [], 0, 0
for p in t.packet:
    assert p.trusted_packet_sequence_id == 1
    if p.HasField("clock_snapshot"):
        snapshots += 1
    if p.HasField("track_descriptor") and p.track_descriptor.HasField("thread"):
        tracks[p.track_descriptor.uuid] = p.track_descriptor.thread.tid
    for n in p.interned_data.event_names:
        assert n.iid not in names, "a name is interned once"
        names[n.iid] = n.name
    if not p.HasField("track_event"):
        continue
    e = p.track_event
    tid = tracks[e.track_uuid]
    assert p.timestamp >= last.get(tid, 0), "times run forward per track"
    last[tid] = p.timestamp
    stack = stacks.setdefault(tid, [])
    if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
        stack.append(names[e.name_iid])
        begun.append([names[e.name_iid], tid])
    else:
        assert e.type == pb.TrackEvent.TYPE_SLICE_END
        assert stack, "an end closes an open slice"
        stack.pop()
        ends += 1
print(json.dumps({
    "first_flags": t.packet[0].sequence_flags,
    "snapshots": snapshots,
    "tracks": len(tracks),
    "begun": begun,
    "ends": ends,
    "left_open": sum(len(s) for s in stacks.values()),
}))
"#;

/// python3 when it can import `modules`; None (the test skips) otherwise,
/// unless the tools are required.
fn python_with(modules: &str) -> Option<PathBuf> {
    let python = tool("python3")?;
    let ok = Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CALLTRACE_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "python3 modules {modules} are required (CALLTRACE_REQUIRE_TOOLS=1): pip install protobuf perfetto grpcio-tools"
        );
        eprintln!("skipped: python3 cannot import {modules}");
        return None;
    }
    Some(python)
}

/// Runs a Python decoder script on `args`; its JSON output.
fn decode(python: &Path, script: &str, args: &[&Path]) -> serde_json::Value {
    let mut cmd = Command::new(python);
    cmd.args(["-c", script]).args(args);
    let out = output_within(&mut cmd, 120);
    assert!(
        out.status.success(),
        "decoder failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("decoder prints JSON")
}

/// Runs `calltrace export BINARY --trace TRACE --to FORMAT -o OUT`.
fn export_to(binary: &str, trace: &Path, to: &str, out: &Path) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["export".as_ref()];
    if !binary.is_empty() {
        args.push(binary.as_ref());
    }
    args.extend([
        "--trace".as_ref(),
        trace.as_os_str(),
        "--to".as_ref(),
        to.as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    calltrace(args).run().success();
}

/// Per function name: (calls, self) summed over the nodes of the
/// contexts tree, from `--to json`; and the run's total.
fn tree_sums(binary: &str, trace: &Path) -> (BTreeMap<String, (u64, u64)>, u64) {
    let (dir, json) = temp_file("tree.json", "");
    export_to(binary, trace, "json", &json);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    drop(dir);
    let mut sums = BTreeMap::new();
    let mut todo: Vec<&serde_json::Value> = v["children"].as_array().unwrap().iter().collect();
    let total = todo.iter().map(|n| n["total"].as_u64().unwrap()).sum();
    while let Some(n) = todo.pop() {
        todo.extend(n["children"].as_array().into_iter().flatten());
        let name = n["name"].as_str().unwrap();
        if name.starts_with("[thread ") {
            continue;
        }
        let s = sums.entry(name.to_string()).or_insert((0, 0));
        s.0 += n["calls"].as_u64().unwrap();
        s.1 += n["self"].as_u64().unwrap();
    }
    (sums, total)
}

#[test]
fn pprof_decodes_with_upstream_field_numbers_and_sums_like_the_tree() {
    let Some(python) = python_with("google.protobuf, grpc_tools") else {
        return;
    };
    let p = threads();
    let trace = &p.text_trace().path;
    let dir = fresh_dir("protobuf_export", "pprof");
    std::fs::write(dir.join("profile.proto"), PROFILE_PROTO).unwrap();
    let out = dir.join("threads.pb.gz");
    export_to(p.exe(), trace, "pprof", &out);
    let v = decode(&python, DECODE_PPROF, &[&dir, &out]);

    assert_eq!(v["string0"], "");
    let types = serde_json::json!([["calls", "count"], ["self", "nanoseconds"]]);
    assert_eq!(v["sample_type"], types);
    assert_eq!(v["default_sample_type"], "self");
    assert_eq!(v["period_type"], types[1]);

    // Per function, the leaf samples add up to the tree's calls and self.
    let (tree, total) = tree_sums(p.exe(), trace);
    let mut sums: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut threads = BTreeSet::new();
    for s in v["samples"].as_array().unwrap() {
        let leaf = s["stack"][0].as_str().unwrap().to_string();
        let value = s["value"].as_array().unwrap();
        let e = sums.entry(leaf).or_default();
        e.0 += value[0].as_u64().unwrap();
        e.1 += value[1].as_u64().unwrap();
        let thread = s["labels"]["thread"].as_str().unwrap().to_string();
        // Leaf first: the last frame is the thread's start routine.
        let root = s["stack"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .as_str()
            .unwrap();
        let main_thread = thread == p.text_trace().pid.to_string();
        assert_eq!(root == "main", main_thread, "{s}");
        threads.insert(thread);
    }
    assert_eq!(sums, tree);
    assert_eq!(sums.values().map(|s| s.1).sum::<u64>(), total);
    assert_eq!(v["duration_nanos"], total);
    assert_eq!(threads.len(), 3, "main and two workers: {threads:?}");

    // Functions carry their file and line; mappings their build-ids.
    let funcs = v["functions"].as_array().unwrap();
    let main = funcs.iter().find(|f| f["name"] == "main").unwrap();
    assert_eq!(main["system_name"], "main");
    assert!(
        main["file"].as_str().unwrap().ends_with("threads.c"),
        "{main}"
    );
    assert!(main["line"].as_u64().unwrap() > 0);
    let maps = v["mappings"].as_array().unwrap();
    let exe = maps
        .iter()
        .find(|m| m["file"].as_str() == Some(p.exe()))
        .unwrap_or_else(|| panic!("the executable's mapping: {maps:?}"));
    assert!(exe["build_id"].as_str().unwrap().len() >= 16, "{exe}");
    assert!(exe["symbolized"].as_bool().unwrap());
    assert_eq!(
        v["located"].as_u64().unwrap(),
        funcs.len() as u64,
        "each address in its mapping"
    );
}

#[test]
fn pprof_functions_carry_the_linkage_name_as_system_name() {
    let Some(python) = python_with("google.protobuf, grpc_tools") else {
        return;
    };
    let p = cpp();
    let dir = fresh_dir("protobuf_export", "pprof-linkage");
    std::fs::write(dir.join("profile.proto"), PROFILE_PROTO).unwrap();
    let out = dir.join("names.pb.gz");
    export_to(p.exe(), &p.text_trace().path, "pprof", &out);
    let v = decode(&python, DECODE_PPROF, &[&dir, &out]);
    let funcs = v["functions"].as_array().unwrap();
    // Every C++ function: shown demangled, its system_name the mangled
    // name that demangles to it; C functions keep one name.
    let mut mangled = 0;
    for f in funcs {
        let (name, system) = (
            f["name"].as_str().unwrap(),
            f["system_name"].as_str().unwrap(),
        );
        if system.starts_with("_Z") {
            mangled += 1;
            let back = Command::new("c++filt").arg(system).output().unwrap();
            assert_eq!(String::from_utf8_lossy(&back.stdout).trim(), name, "{f}");
        } else {
            assert_eq!(name, system, "{f}");
        }
    }
    assert!(
        mangled >= 5,
        "C++ functions with linkage names: {mangled} in {funcs:?}"
    );
    assert!(
        funcs
            .iter()
            .any(|f| f["name"] == "main" && f["system_name"] == "main")
    );
}

#[test]
fn perfetto_decodes_into_a_slice_pair_per_call_on_one_track_per_thread() {
    let Some(python) = python_with("perfetto.protos.perfetto.trace.perfetto_trace_pb2") else {
        return;
    };
    let p = threads();
    let trace = &p.text_trace().path;
    let dir = fresh_dir("protobuf_export", "perfetto");
    let (out, chrome) = (dir.join("threads.pftrace"), dir.join("threads.json"));
    export_to(p.exe(), trace, "perfetto", &out);
    export_to(p.exe(), trace, "chrome", &chrome);
    let v = decode(&python, DECODE_PERFETTO, &[&out]);

    assert_eq!(v["first_flags"], 1, "SEQ_INCREMENTAL_STATE_CLEARED first");
    assert_eq!(v["snapshots"], 1);
    assert_eq!(v["left_open"], 0);
    // The same calls on the same threads as the Chrome trace.
    let chrome: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&chrome).unwrap()).unwrap();
    let mut want: Vec<(String, u64)> = chrome["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().into(),
                e["tid"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut got: Vec<(String, u64)> = v["begun"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b[0].as_str().unwrap().into(), b[1].as_u64().unwrap()))
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got.len(), 16, "16 calls");
    assert_eq!(got, want);
    assert_eq!(v["ends"], 16);
    let tids: BTreeSet<u64> = got.iter().map(|g| g.1).collect();
    assert_eq!(v["tracks"], tids.len() as u64, "one track per thread");
    assert_eq!(tids.len(), 3);
}

#[test]
fn perfetto_is_at_most_half_the_size_of_the_chrome_trace() {
    let trace = root().join("testdata/printer/traces/color-duplex.trace");
    let dir = fresh_dir("protobuf_export", "size");
    let (out, chrome) = (dir.join("t.pftrace"), dir.join("t.json"));
    export_to("", &trace, "perfetto", &out);
    export_to("", &trace, "chrome", &chrome);
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    let (perfetto, json) = (size(&out), size(&chrome));
    assert!(
        perfetto > 0 && 2 * perfetto <= json,
        "perfetto {perfetto} bytes, chrome {json}"
    );
}

#[test]
fn a_bad_trace_is_a_located_error_and_writes_nothing() {
    for to in ["pprof", "perfetto"] {
        let (dir, trace) = temp_file("bad.trace", "E main 0\nE f 10\nQ nonsense\n");
        let out = dir.path().join("out");
        let msg = calltrace(["export", "--trace"])
            .args([&trace])
            .args(["--to", to, "-o"])
            .args([&out])
            .run()
            .failure();
        assert!(
            msg.contains("bad.trace") && msg.contains(":3"),
            "{to}: {msg}"
        );
        assert!(!out.exists(), "{to}: no half-written output");
    }
}

#[test]
fn protobuf_exports_are_the_same_bytes_for_any_thread_count_and_from_a_pipe() {
    let trace = root().join("testdata/printer/traces/color-2page.trace");
    let dir = fresh_dir("protobuf_export", "determinism");
    for to in ["pprof", "perfetto"] {
        let run = |threads: &str| {
            let out = dir.join(format!("{to}-{threads}"));
            calltrace(["export", "--threads", threads, "--to", to, "-o"])
                .args([&out])
                .args(["--trace".as_ref(), trace.as_os_str()])
                .run()
                .success();
            std::fs::read(&out).unwrap()
        };
        let one = run("1");
        assert!(!one.is_empty());
        assert!(one == run("2") && one == run("1"), "{to}");
        if to == "perfetto" {
            // pprof names the trace it read; the packets do not.
            let piped = calltrace(["export", "--to", to, "--trace", "-", "-o", "-"])
                .stdin(std::fs::read(&trace).unwrap())
                .run()
                .success();
            assert!(piped.stdout == one, "{to} from a pipe");
        }
    }
}

/// pprof itself (`pprof -raw`, `-top`) reads the export: CI builds it from
/// Debian's sources (golang-github-google-pprof-dev) without a network.
#[test]
fn the_pprof_tool_reads_the_export_with_the_trees_totals() {
    let Some(pprof) = tool("pprof") else {
        return;
    };
    let p = threads();
    let trace = &p.text_trace().path;
    let dir = fresh_dir("protobuf_export", "pprof_tool");
    let out = dir.join("threads.pb.gz");
    export_to(p.exe(), trace, "pprof", &out);
    let (tree, total) = tree_sums(p.exe(), trace);
    let run = |args: &[&str]| {
        let o = Command::new(&pprof)
            .args(args)
            .arg(&out)
            .env("HOME", &dir)
            .output()
            .expect("run pprof");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    // -top with -unit=ns prints each function's flat self time exactly.
    let top = run(&[
        "-top",
        "-unit=ns",
        "-nodecount=1000",
        "-nodefraction=0",
        "-sample_index=self",
    ]);
    let line = top
        .lines()
        .find(|l| l.starts_with("Showing nodes accounting for"))
        .unwrap_or_else(|| panic!("{top}"));
    assert!(line.contains(&format!("of {total}ns total")), "{line}");
    let mut seen = 0;
    for (name, (_, self_ns)) in tree.iter().filter(|(_, s)| s.1 > 0) {
        let row = top
            .lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing from pprof -top:\n{top}"));
        assert_eq!(
            row.split_whitespace().next(),
            Some(format!("{self_ns}ns").as_str()),
            "{row}"
        );
        seen += 1;
    }
    assert!(seen >= 3, "{top}");
    let calls = run(&[
        "-top",
        "-nodecount=1000",
        "-nodefraction=0",
        "-sample_index=calls",
    ]);
    let main = calls.lines().find(|l| l.ends_with(" main")).unwrap();
    assert_eq!(
        main.split_whitespace().next(),
        Some(tree["main"].0.to_string().as_str()),
        "{main}"
    );
}

/// Thread ids that do not fit Perfetto's 32 bits, and an exit timed
/// before its entry, read with the perfetto package's own protos: three
/// tracks with three non-negative tids (4294967301 was cast to 5 and
/// merged with thread 5, 2147483648 turned negative), the substitutes
/// named after the real ids, and no slice ending before it began.
#[test]
fn perfetto_keeps_64_bit_threads_apart_and_clamps_backward_exits() {
    let Some(python) = python_with("perfetto.protos.perfetto.trace.perfetto_trace_pb2") else {
        return;
    };
    let text = "E a 0 5\nE b 10 5\nX b 4 5\nX a 20 5\nE c 1 4294967301\nX c 2 4294967301\nE d 3 2147483648\nX d 4 2147483648\n";
    let (dir, trace) = temp_file("wide.trace", text);
    let out = dir.path().join("wide.pftrace");
    export_to("", &trace, "perfetto", &out);
    let v = decode(&python, DECODE_PERFETTO_TRACKS, &[&out]);
    assert_eq!(
        v["tracks"],
        serde_json::json!([
            [5, "", ""],
            [2147483647, "thread 4294967301", "thread 4294967301"],
            [2147483646, "thread 2147483648", "thread 2147483648"]
        ])
    );
    assert_eq!(v["backward"], 0, "no slice ends before it begins");
    assert_eq!(v["slices"], 4);
}

/// The thread tracks (tid, track name, thread name) of a Perfetto trace,
/// the slices and the ends timed before their begin.
const DECODE_PERFETTO_TRACKS: &str = r#"
import json, sys
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
t = pb.Trace()
t.ParseFromString(open(sys.argv[1], "rb").read())
tracks, stacks, slices, backward = [], {}, 0, 0
for p in t.packet:
    d = p.track_descriptor
    if p.HasField("track_descriptor") and d.HasField("thread"):
        tracks.append([d.thread.tid, d.name, d.thread.thread_name])
    if not p.HasField("track_event"):
        continue
    e, stack = p.track_event, stacks.setdefault(p.track_event.track_uuid, [])
    if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
        stack.append(p.timestamp)
        slices += 1
    elif p.timestamp < stack.pop():
        backward += 1
print(json.dumps({"tracks": tracks, "backward": backward, "slices": slices}))
"#;
