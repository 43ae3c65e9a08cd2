//! The Perfetto export decoded with its own messages: slices, names sent
//! once, nesting, clamped exits and 64-bit thread ids.

use super::*;
use crate::emit::export::Shape;
use crate::emit::export::testing::{TRACE, export};

/// The `Trace` message: packets, field 1.
#[derive(Clone, PartialEq, Message)]
struct Trace {
    #[prost(message, repeated, tag = "1")]
    packet: Vec<TracePacket>,
}

/// (begin?, name or "", tid, time) of every slice event.
fn slices(bytes: &[u8]) -> Vec<(bool, String, u64, u64)> {
    let trace = Trace::decode(bytes).unwrap();
    let mut names = std::collections::HashMap::new();
    let mut tids = std::collections::HashMap::new();
    let mut out = Vec::new();
    for p in &trace.packet {
        assert_eq!(p.trusted_packet_sequence_id, Some(SEQUENCE));
        if let Some(d) = &p.track_descriptor
            && let Some(t) = &d.thread
        {
            tids.insert(d.uuid.unwrap(), t.tid.unwrap() as u64);
        }
        for n in p.interned_data.iter().flat_map(|i| &i.event_names) {
            names.insert(n.iid.unwrap(), n.name.clone().unwrap());
        }
        if let Some(e) = &p.track_event {
            let name = e.name_iid.map_or(String::new(), |i| names[&i].clone());
            let tid = tids[&e.track_uuid.unwrap()];
            out.push((
                e.r#type == Some(TYPE_SLICE_BEGIN),
                name,
                tid,
                p.timestamp.unwrap(),
            ));
        }
    }
    out
}

#[test]
fn calls_are_begin_end_pairs_with_names_sent_once() {
    let bytes = export(Shape::Stream(&Perfetto), TRACE);
    let s = slices(&bytes);
    assert_eq!(s.len(), 12, "a begin and an end per call");
    assert_eq!(s[0], (true, "main".to_string(), 0, 0));
    assert_eq!(s[1], (true, "f".to_string(), 0, 0), "laid out inside main");
    assert_eq!(s[11], (false, String::new(), 0, 40));
    let trace = Trace::decode(&bytes[..]).unwrap();
    let sent: usize = trace
        .packet
        .iter()
        .flat_map(|p| &p.interned_data)
        .map(|i| i.event_names.len())
        .sum();
    assert_eq!(sent, 3, "each of main, f, g once");
    assert_eq!(
        trace.packet[0].sequence_flags,
        Some(SEQ_INCREMENTAL_STATE_CLEARED)
    );
    assert!(trace.packet[0].clock_snapshot.is_some());
}

#[test]
fn a_tree_becomes_nested_slices() {
    let s = slices(&export(
        Shape::Stream(&Perfetto),
        "main (1 / 10)\n  f (2 / 4)\n  g (5 / 5)\n",
    ));
    let short: Vec<_> = s.iter().map(|x| (x.0, x.1.as_str(), x.3)).collect();
    assert_eq!(
        short,
        [
            (true, "main", 0),
            (true, "f", 0),
            (false, "", 4),
            (true, "g", 4),
            (false, "", 9),
            (false, "", 10)
        ]
    );
}

/// `text` streamed from its events, as `export` writes it.
fn streamed(text: &str) -> Vec<u8> {
    crate::emit::export::testing::streamed(&Perfetto, text)
}

#[test]
fn an_exit_timed_before_its_entry_ends_its_slice_where_it_began() {
    let s = slices(&streamed("E main 0\nE f 10\nX f 5\nX main 20\n"));
    let short: Vec<_> = s.iter().map(|x| (x.0, x.1.as_str(), x.3)).collect();
    assert_eq!(
        short,
        [
            (true, "main", 0),
            (true, "f", 10),
            (false, "", 10),
            (false, "", 20)
        ]
    );
}

#[test]
fn threads_whose_ids_do_not_fit_32_bits_keep_tracks_of_their_own() {
    let text = "E a 0 5\nX a 1 5\nE b 2 4294967301\nX b 3 4294967301\nE c 4 2147483648\nX c 5 2147483648\n";
    let trace = Trace::decode(&streamed(text)[..]).unwrap();
    let tracks: Vec<_> = trace
        .packet
        .iter()
        .filter_map(|p| p.track_descriptor.as_ref()?.thread.clone())
        .map(|t| (t.tid.unwrap(), t.thread_name))
        .collect();
    assert_eq!(tracks.len(), 3, "{tracks:?}");
    assert_eq!(tracks[0], (5, None));
    let tids: std::collections::BTreeSet<i32> = tracks.iter().map(|t| t.0).collect();
    assert_eq!(tids.len(), 3, "distinct: {tracks:?}");
    assert!(tids.iter().all(|&t| t >= 0), "{tracks:?}");
    assert_eq!(tracks[1].1.as_deref(), Some("thread 4294967301"));
    assert_eq!(tracks[2].1.as_deref(), Some("thread 2147483648"));
    let pid = trace.packet[1].track_descriptor.as_ref().unwrap();
    assert_eq!(pid.process.as_ref().unwrap().pid, Some(5));
}
