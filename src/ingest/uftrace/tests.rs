use std::path::Path;

use super::files::{parse_info, parse_map, parse_tasks};
use super::syms::SymTable;
use super::*;
use crate::ingest::testing::Collect;
use crate::ingest::{EventKind, FuncKey};

/// An `info` file's bytes: the header, then `exename:` and another line.
fn info(version: u32, features: u64) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend(version.to_le_bytes());
    b.extend(40u16.to_le_bytes());
    b.extend([1, 2]);
    b.extend(features.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend([0; 8]);
    b.extend(b"exename:/x/app\nexit_status:0\n");
    b
}

/// A record of `kind` (0 entry, 1 exit, 2 lost, 3 event) at `addr`.
fn record(time: u64, kind: u64, more: u64, addr: u64) -> Vec<u8> {
    let word = kind | more << 2 | 5 << 3 | addr << 16;
    [time.to_le_bytes(), word.to_le_bytes()].concat()
}

/// A recording in `dir`: the app mapped at 0x10000 with `f` at 0x1100
/// (0x20 long) and a PLT entry `puts` at 0x1010; thread 7 calls f (the
/// records at 0x1108, inside it) and puts, thread 9 calls f once.
fn recording(dir: &Path) {
    std::fs::write(dir.join("info"), info(4, 1 << 5)).unwrap();
    std::fs::write(
        dir.join("task.txt"),
        "SESS timestamp=1.000000000 pid=7 sid=00ab exename=\"/x/app\"\n\
         TASK timestamp=1.000000001 tid=7 pid=7\nTASK timestamp=1.5 tid=9 pid=7\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("sid-00ab.map"),
        "00010000-00015000 r-xp 00000000 08:01 12 /x/app build-id:AB12\n\
         7ffd000-7ffe000 rw-p 00000000 00:00 0 [stack]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("app.sym"),
        "# symbols: 3\n0000000000001010 P puts\n0000000000001100 00000020 T f\n\
         0000000000001200 ? __func_end\n",
    )
    .unwrap();
    let t7 = [
        record(10, 0, 0, 0x11108),
        record(0, 2, 0, 3),
        record(20, 3, 1, 0x55),
        vec![4, 0, 1, 2, 3, 4, 0, 0],
        record(30, 0, 0, 0x11010),
        record(40, 1, 0, 0x11010),
        record(50, 1, 0, 0x11108),
    ]
    .concat();
    std::fs::write(dir.join("7.dat"), t7).unwrap();
    let t9 = [record(15, 0, 0, 0x11100), record(16, 1, 0, 0x11100)].concat();
    std::fs::write(dir.join("9.dat"), t9).unwrap();
}

fn read(dir: &Path) -> Result<(Collect, TraceMeta, FuncTable)> {
    let input = crate::ingest::guess::open_trace(dir)?;
    let mut funcs = FuncTable::default();
    let mut sink = Collect::default();
    let meta = UftraceFormat.parse(&input, &ParseOptions::default(), &mut funcs, &mut sink)?;
    Ok((sink, meta, funcs))
}

#[test]
fn a_recording_reads_as_time_ordered_events_on_function_starts() {
    let dir = tempfile::tempdir().unwrap();
    recording(dir.path());
    let (sink, meta, funcs) = read(dir.path()).unwrap();
    let seen: Vec<(u64, u32, EventKind, &FuncKey)> = sink
        .events
        .iter()
        .map(|e| (e.time, e.thread, e.kind, funcs.key(e.func)))
        .collect();
    let (f, puts) = (FuncKey::Addr(0x11100), FuncKey::Name("puts".into()));
    use EventKind::{Enter, Exit};
    assert_eq!(
        seen,
        [
            (10, 0, Enter, &f),
            (15, 1, Enter, &f),
            (16, 1, Exit, &f),
            (30, 0, Enter, &puts),
            (40, 0, Exit, &puts),
            (50, 0, Exit, &f),
        ]
    );
    assert_eq!(meta.threads, [7, 9]);
    assert_eq!(meta.exe_path.as_deref(), Some("/x/app"));
    assert_eq!(meta.unit, Unit::Nanos);
    assert_eq!(meta.format, "uftrace");
    let map = Mapping {
        start: 0x10000,
        end: 0x15000,
        offset: 0,
        path: "/x/app".into(),
        build_id: Some("ab12".into()),
    };
    assert_eq!(meta.maps, [map]);
    assert_eq!(meta.warnings.len(), 1, "{:?}", meta.warnings);
    assert!(meta.warnings[0].contains("lost 3 record(s)"));
}

#[test]
fn a_cut_off_record_names_the_file_and_byte_and_lenient_skips_it() {
    let dir = tempfile::tempdir().unwrap();
    recording(dir.path());
    let dat = dir.path().join("9.dat");
    let mut bytes = std::fs::read(&dat).unwrap();
    bytes.truncate(16 + 5);
    std::fs::write(&dat, bytes).unwrap();
    let err = read(dir.path()).err().unwrap().to_string();
    let want = format!(
        "{}: byte 16 (record 1): expected a 16-byte record, found 5 byte(s): the file is cut off",
        dat.display()
    );
    assert_eq!(err, want);
    let input = crate::ingest::guess::open_trace(dir.path()).unwrap();
    let lenient = ParseOptions {
        lenient: true,
        ..Default::default()
    };
    let mut sink = Collect::default();
    let meta = UftraceFormat
        .parse(&input, &lenient, &mut FuncTable::default(), &mut sink)
        .unwrap();
    assert_eq!(meta.skipped_lines, 1);
    assert_eq!(meta.first_skipped.as_deref(), Some(want.as_str()));
    assert_eq!(sink.events.len(), 5);
}

#[test]
fn damaged_records_and_argument_data_are_refused_with_their_offset() {
    let dir = tempfile::tempdir().unwrap();
    recording(dir.path());
    let dat = dir.path().join("9.dat");
    let mut bad_magic = record(15, 0, 0, 0x11100);
    bad_magic[8] = 0;
    std::fs::write(&dat, [record(1, 0, 0, 1), bad_magic].concat()).unwrap();
    let err = read(dir.path()).err().unwrap().to_string();
    assert!(
        err.ends_with(
            "9.dat: byte 16 (record 1): expected a record with magic 5 (bits 3-5), found 0"
        ),
        "{err}"
    );
    std::fs::write(&dat, record(15, 0, 1, 0x11100)).unwrap();
    let err = read(dir.path()).err().unwrap().to_string();
    assert!(err.contains("9.dat: byte 0 (record 0)"), "{err}");
    assert!(err.contains("uftrace record -A/-R/-a"), "{err}");
}

#[test]
fn missing_files_of_a_recording_are_named() {
    let dir = tempfile::tempdir().unwrap();
    recording(dir.path());
    std::fs::remove_file(dir.path().join("sid-00ab.map")).unwrap();
    let err = read(dir.path()).err().unwrap().to_string();
    assert!(err.contains("sid-00ab.map: No such file"), "{err}");
    std::fs::remove_file(dir.path().join("task.txt")).unwrap();
    let err = read(dir.path()).err().unwrap().to_string();
    assert!(err.contains("task.txt: No such file"), "{err}");
    for dat in ["7.dat", "9.dat"] {
        std::fs::remove_file(dir.path().join(dat)).unwrap();
    }
    std::fs::write(
        dir.path().join("task.txt"),
        "SESS timestamp=1.000000000 pid=7 sid=00ab exename=\"/x/app\"\n",
    )
    .unwrap();
    let err = read(dir.path()).err().unwrap().to_string();
    assert!(
        err.contains("expected the threads' records in `<TID>.dat` files"),
        "{err}"
    );
}

#[test]
fn info_headers_of_other_versions_and_machines_are_refused() {
    let ok = parse_info("i", &info(4, 1 << 5)).unwrap();
    assert_eq!(ok.exe.as_deref(), Some("/x/app"));
    assert!(ok.relative_symbols());
    assert_eq!(parse_info("i", &info(3, 0)).unwrap().version, 3);
    let err = parse_info("i", &info(5, 0)).unwrap_err().to_string();
    assert!(
        err.starts_with("i: byte 8: expected uftrace data version 3 or 4, found 5"),
        "{err}"
    );
    let mut big_endian = info(4, 0);
    big_endian[14] = 2;
    let err = parse_info("i", &big_endian).unwrap_err().to_string();
    assert!(
        err.contains("byte 14: expected a recording of a little-endian 64-bit program"),
        "{err}"
    );
    let err = parse_info("i", &info(4, 0)[..20]).unwrap_err().to_string();
    assert!(
        err.contains("byte 20: expected the 40-byte header"),
        "{err}"
    );
    let err = parse_info("i", b"Ftrace?\0...........................................").unwrap_err();
    assert!(
        err.to_string().contains("byte 0: expected the magic"),
        "{err}"
    );
}

#[test]
fn task_lines_give_sessions_and_dlopens_and_bad_ones_their_line() {
    let text = "TASK timestamp=1.000000000 tid=1 pid=1\n\
                SESS timestamp=2.000000005 pid=1 sid=abc exename=\"/a b/app\"\n\
                DLOP timestamp=3.000000000 tid=1 sid=abc base=7f0000 libname=\"/l/x.so\"\n\
                NEWKIND whatever\n";
    let tasks = parse_tasks("t", text).unwrap();
    assert_eq!(tasks.sessions[0].time, 2_000_000_005);
    assert_eq!(tasks.sessions[0].exe, "/a b/app");
    assert_eq!(tasks.sessions[0].sid, "abc");
    assert_eq!(
        (tasks.dlopens[0].base, tasks.dlopens[0].path.as_str()),
        (0x7f0000, "/l/x.so")
    );
    let err = parse_tasks("t", "SESS timestamp=2 pid=1 sid=abc exename=\"x\"\n").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("t:1: expected `SESS timestamp="),
        "{err}"
    );
    let err = parse_tasks("t", "TASK timestamp=1.000000000 tid=1 pid=1\n").unwrap_err();
    assert!(err.to_string().contains("expected a `SESS` line"), "{err}");
}

#[test]
fn map_lines_keep_executable_objects_and_bad_ones_give_their_line() {
    let maps = parse_map(
        "m",
        "1000-2000 r--p 00000000 00:00 0 /data\n3000-4000 r-xp 0 00:00 0 /a/lib.so\n\n",
    )
    .unwrap();
    assert_eq!(maps.len(), 1);
    assert_eq!(
        (maps[0].start, maps[0].end, maps[0].build_id.clone()),
        (0x3000, 0x4000, None)
    );
    let err = parse_map("m", "\nzz-2000 r-xp 0 00:00 0 /x\n").unwrap_err();
    assert!(
        err.to_string().starts_with("m:2: expected `START-END"),
        "{err}"
    );
}

#[test]
fn symbols_put_addresses_on_the_start_of_the_function_holding_them() {
    let old = SymTable::parse("# c\n100 T f\n180 t g\n200 ? __func_end\n300 D data\n");
    assert_eq!(old.function_at(0x108).map(|s| s.start), Some(0x100));
    assert_eq!(old.function_at(0x1ff).map(|s| &s.name[..]), Some("g"));
    assert_eq!(old.function_at(0x200), None);
    assert_eq!(old.function_at(0x50), None);
    let sized = SymTable::parse("0000100 00000010 T f\n0000180 00000008 P puts\n");
    assert_eq!(sized.function_at(0x10f).map(|s| s.start), Some(0x100));
    assert_eq!(sized.function_at(0x110), None);
    assert_eq!(
        sized.plt().map(|s| &s.name[..]).collect::<Vec<_>>(),
        ["puts"]
    );
}

/// A program that execs another starts a second session: its map holds
/// from its start on, and the first program's symbols no longer apply.
#[test]
fn a_later_session_maps_its_own_objects_from_its_start() {
    let dir = tempfile::tempdir().unwrap();
    recording(dir.path());
    let mut tasks = std::fs::read_to_string(dir.path().join("task.txt")).unwrap();
    tasks.push_str("SESS timestamp=0.000000100 pid=11 sid=00cd exename=\"/x/other\"\n");
    std::fs::write(dir.path().join("task.txt"), tasks).unwrap();
    std::fs::write(
        dir.path().join("sid-00cd.map"),
        "00010000-00015000 r-xp 00000000 08:01 13 /x/other\n",
    )
    .unwrap();
    let t11 = [record(200, 0, 0, 0x11108), record(210, 1, 0, 0x11108)].concat();
    std::fs::write(dir.path().join("11.dat"), t11).unwrap();
    let (sink, meta, funcs) = read(dir.path()).unwrap();
    let paths: Vec<&str> = meta.maps.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["/x/app", "/x/other"]);
    let f_of = |thread: u32| {
        sink.events
            .iter()
            .find(|e| e.thread == thread && e.kind == EventKind::Enter)
            .map(|e| e.func)
            .unwrap()
    };
    assert_eq!(meta.threads, [7, 9, 11]);
    assert_eq!(funcs.key(f_of(1)), &FuncKey::Addr(0x11100));
    assert_eq!(funcs.key(f_of(2)), &FuncKey::Addr(0x11108));
    assert_eq!(funcs.maps_seen(f_of(2)), 2);
}

#[test]
fn a_file_closed_between_chunks_reads_on_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("1.dat");
    // Three chunks and a bit: each later chunk is read after a reopen.
    let recs: Vec<u8> = (0..3100u64)
        .flat_map(|i| record(i, i % 2, 0, 0x1000 + i / 2))
        .collect();
    std::fs::write(&path, recs).unwrap();
    let all = |keep_open| {
        let mut file = records::DatFile::open(&path, keep_open).unwrap();
        std::iter::from_fn(|| file.next().unwrap()).collect::<Vec<_>>()
    };
    let reopened = all(false);
    assert_eq!(reopened.len(), 3100);
    assert_eq!(reopened[3099].addr, 0x1000 + 3099 / 2);
    assert_eq!(reopened, all(true));
}

#[test]
fn libraries_loaded_with_dlopen_and_not_found_are_warned_about_once() {
    let dlop = |libs: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        recording(dir.path());
        let mut tasks = std::fs::read_to_string(dir.path().join("task.txt")).unwrap();
        for (i, lib) in libs.iter().enumerate() {
            tasks.push_str(&format!(
                "DLOP timestamp=0.00000001{i} tid=7 sid=00ab base={:x} libname=\"/gone/{lib}\"\n",
                0x100000 * (i + 1)
            ));
        }
        std::fs::write(dir.path().join("task.txt"), tasks).unwrap();
        let (_, meta, _) = read(dir.path()).unwrap();
        meta.warnings
            .into_iter()
            .filter(|w| w.contains("dlopen"))
            .collect::<Vec<_>>()
    };
    // A plug-in loaded again and again is one warning.
    let two = dlop(&["a.so", "b.so", "a.so", "a.so"]);
    assert_eq!(two.len(), 2, "{two:?}");
    assert!(
        two[0].starts_with("/gone/a.so: loaded with dlopen"),
        "{two:?}"
    );
    let many = dlop(&["a.so", "b.so", "c.so", "d.so", "a.so"]);
    assert_eq!(
        many,
        [
            "4 libraries loaded with dlopen during the recording were not found (the first: \
          /gone/a.so, /gone/b.so, /gone/c.so, ...): their functions keep hex names"
        ]
    );
}

#[test]
fn a_short_file_buffers_its_length_and_an_ended_one_nothing() {
    // 16,000 threads of two records each took 16 KiB apiece: 290 MB.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("1.dat");
    std::fs::write(
        &path,
        [record(1, 0, 0, 0x10), record(2, 1, 0, 0x10)].concat(),
    )
    .unwrap();
    let mut file = records::DatFile::open(&path, false).unwrap();
    assert!(file.next().unwrap().is_some());
    assert!(file.buffered() < 1024, "{} bytes", file.buffered());
    assert!(file.next().unwrap().is_some());
    assert_eq!(file.next().unwrap(), None);
    assert_eq!(file.buffered(), 0);
}
