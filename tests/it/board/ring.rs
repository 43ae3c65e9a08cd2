//! The flight recorder: `CALLTRACE_MODE_RING` with 1,024 slots over a run
//! of a million calls keeps exactly the last 1,024 entries and exits (the
//! dump's slots, decoded here by the buffer format of docs/binary-format.md,
//! are the run's last events in order), and calltrace repairs the cut
//! trace into a balanced tree.

use std::collections::BTreeMap;

use super::*;

/// Rounds of testdata/board/ring.c: 375,000 rounds make 10^6 calls.
const ROUNDS: u32 = 375_000;
/// Slots of the ring.
const SLOTS: usize = 1024;

/// An event: the function's name and whether it is an exit.
type Event = (String, bool);

/// The last `n` events of ring.c's run of `rounds` rounds (main's exit last).
fn expected_tail(rounds: u32, n: usize) -> Vec<Event> {
    let mut rev: Vec<Event> = vec![("main".into(), true)];
    let ev = |f: &str, exit: bool| (f.to_string(), exit);
    for i in (0..rounds).rev() {
        let mut round = vec![
            ev("ring_step", false),
            ev("ring_leaf", false),
            ev("ring_leaf", true),
        ];
        if i % 3 == 0 {
            round.extend([ev("ring_odd", false), ev("ring_leaf", false)]);
            round.extend([ev("ring_leaf", true), ev("ring_odd", true)]);
        }
        round.push(ev("ring_step", true));
        rev.extend(round.into_iter().rev());
        if rev.len() >= n {
            break;
        }
    }
    rev.truncate(n);
    rev.reverse();
    rev
}

/// The ELF's function symbols by address (the Thumb bit cleared).
fn symbols(elf: &Path) -> BTreeMap<u32, String> {
    let out = Command::new("arm-none-eabi-nm")
        .arg(elf)
        .output()
        .expect("run nm");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (addr, kind, name) = (f.next()?, f.next()?, f.next()?);
            let addr = u32::from_str_radix(addr, 16).ok()?;
            ["T", "t"]
                .contains(&kind)
                .then(|| (addr & !1, name.to_string()))
        })
        .collect()
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().expect("4 bytes"))
}

/// The function events of a 32-bit dump in slot order, named.
fn decode(dump: &[u8], syms: &BTreeMap<u32, String>) -> Vec<Event> {
    assert_eq!(&dump[..8], b"CALLTRF\0");
    assert_eq!(
        (dump[12], dump[13], dump[14]),
        (4, 8, 1),
        "P = 4, 8-byte slots, ring"
    );
    let header = u16::from_le_bytes([dump[10], dump[11]]) as usize;
    let (capacity, write) = (u32_at(dump, 20) as usize, u32_at(dump, 28) as usize);
    let wrapped = u32_at(dump, 44) & 4 != 0;
    assert!(wrapped, "the ring wrapped");
    assert_eq!(capacity, SLOTS);
    assert_eq!(
        dump.len(),
        header + capacity * 8,
        "the dump is the whole buffer"
    );
    (write..capacity)
        .chain(0..write)
        .map(|slot| {
            let word0 = u32_at(dump, header + slot * 8);
            assert_ne!(
                word0 | 0xF,
                u32::MAX,
                "slot {slot}: no special records in this run"
            );
            let name = syms
                .get(&(word0 & !1))
                .unwrap_or_else(|| panic!("slot {slot}: {word0:#x}"));
            (name.clone(), word0 & 1 == 1)
        })
        .collect()
}

#[test]
fn the_ring_keeps_exactly_the_last_1024_entries_and_exits_of_a_million_calls() {
    if !have_tools() {
        return;
    }
    let elf = build_firmware(&Recipe {
        name: "ring",
        sources: vec![board_file("ring.c")],
        runtime: vec![
            "-DCALLTRACE_MODE=CALLTRACE_MODE_RING".into(),
            format!("-DCALLTRACE_EVENTS={SLOTS}"),
        ],
        ..Recipe::default()
    });
    let dir = elf
        .parent()
        .expect("the firmware's directory")
        .to_path_buf();
    let rounds = ROUNDS.to_string();
    let run = qemu_ok(&elf, &dir, &["semi:ring.bin", &rounds], &[]);
    assert_eq!(run.stdout, format!("rounds={ROUNDS}\n"));
    let calls: u32 = (0..ROUNDS).map(|i| if i % 3 == 0 { 4 } else { 2 }).sum();
    assert_eq!(calls, 1_000_000);

    let dump = std::fs::read(dir.join("ring.bin")).expect("the dump");
    assert_eq!(
        u32_at(&dump, 24),
        2 * calls + 2,
        "count: every entry and exit, main's too"
    );
    let got = decode(&dump, &symbols(&elf));
    assert_eq!(
        got,
        expected_tail(ROUNDS, SLOTS),
        "the last {SLOTS} events, in order"
    );

    let (edges, notes) = read_graph(&elf, &dir.join("ring.bin"), &[]);
    let (want, orphans) = repaired_edges(&got);
    assert_eq!(edges, want, "the window's calls\n{notes}");
    assert!(orphans > 0, "the window starts mid-stack");
    let said = format!("{orphans} exit(s) without a matching entry");
    assert!(notes.contains(&said), "the repair is reported: {notes}");
    assert!(notes.contains("wrapped"), "{notes}");
}

/// The edges of `events` read as a cut trace is repaired: an exit with no
/// entry before it in the window is left out; and how many there are.
fn repaired_edges(events: &[Event]) -> (Vec<Edge>, usize) {
    let (mut stack, mut orphans) = (Vec::<&str>::new(), 0);
    let mut calls: BTreeMap<(String, String), u64> = BTreeMap::new();
    for (f, exit) in events {
        match (exit, stack.last()) {
            (false, top) => {
                if let Some(top) = top {
                    *calls.entry((top.to_string(), f.clone())).or_insert(0) += 1;
                }
                stack.push(f);
            }
            (true, Some(top)) if top == f => {
                stack.pop();
            }
            (true, Some(top)) => panic!("{f} exits inside {top}"),
            (true, None) => orphans += 1,
        }
    }
    assert!(stack.is_empty(), "the run ends with main's exit");
    let edges = calls.into_iter().map(|((a, b), n)| (a, b, n)).collect();
    (edges, orphans)
}
