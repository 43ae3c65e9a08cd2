//! Unit tests of the per-call distributions.

use super::*;

#[test]
fn buckets_cover_every_value_once_and_stay_narrow() {
    let mut prev_high = None::<u64>;
    for b in 0..MAX_BUCKETS as u16 {
        let (low, high) = bucket_range(b);
        if let Some(p) = prev_high {
            assert_eq!(low, p + 1, "bucket {b} starts after the previous one");
        }
        assert_eq!(bucket_of(low), b);
        assert_eq!(bucket_of(high), b);
        assert!(
            (high - low) as f64 <= low as f64 / 64.0,
            "bucket {b} too wide"
        );
        prev_high = Some(high);
    }
    assert_eq!(prev_high, Some(u64::MAX));
}

#[test]
fn quantiles_are_within_one_percent_and_extremes_exact() {
    let mut d = Dist::default();
    for i in 1..=100_000u64 {
        d.add(
            i * 37,
            At {
                thread: 0,
                start: i,
            },
        );
    }
    assert_eq!((d.min, d.max, d.count), (37, 3_700_000, 100_000));
    assert_eq!(d.max_at.start, 100_000);
    for (q, exact) in [(0.5, 1_850_000.0), (0.9, 3_330_000.0), (0.99, 3_663_000.0)] {
        let got = d.quantile(q) as f64;
        assert!((got - exact).abs() / exact < 0.01, "q{q}: {got} vs {exact}");
    }
    assert!(d.buckets.len() <= MAX_BUCKETS);
    assert!(matches!(d.buckets, Buckets::Dense { .. }));
    assert_eq!(d.buckets().map(|b| b.2).sum::<u64>(), 100_000);
}

#[test]
fn small_values_are_exact_and_merge_keeps_the_first_maximum() {
    let mut a = Dist::default();
    let mut b = Dist::default();
    for v in [5, 9, 9, 3] {
        a.add(
            v,
            At {
                thread: 1,
                start: v,
            },
        );
    }
    for v in [9, 1] {
        b.add(
            v,
            At {
                thread: 2,
                start: 100,
            },
        );
    }
    a.merge(&b);
    assert_eq!((a.min, a.max, a.count, a.sum), (1, 9, 6, 36));
    assert_eq!(
        a.max_at,
        At {
            thread: 1,
            start: 9
        }
    );
    assert_eq!(a.quantile(0.5), 5);
    assert_eq!(a.quantile(1.0), 9);
    assert_eq!(a.quantile(0.01), 1);
}

#[test]
fn the_order_calls_come_in_changes_nothing() {
    let values: Vec<u64> = (0..500u64).map(|i| (i * 7919) % 100_000 + 1).collect();
    let (mut up, mut down, mut halves) = (Dist::default(), Dist::default(), Dist::default());
    let at = At::default();
    for &v in &values {
        up.add(v, at);
    }
    for &v in values.iter().rev() {
        down.add(v, at);
    }
    let mut second = Dist::default();
    for (i, &v) in values.iter().enumerate() {
        match i % 2 {
            0 => halves.add(v, at),
            _ => second.add(v, at),
        }
    }
    halves.merge(&second);
    assert_eq!(up, down);
    assert_eq!(up, halves);
    assert_eq!(format!("{up:?}"), format!("{halves:?}"));
    let mut few = Dist::default();
    few.add(3, at);
    assert!(matches!(few.buckets, Buckets::Sparse(_)));
    assert_ne!(few, up);
}

#[test]
fn the_last_rank_is_the_exact_maximum() {
    let mut d = Dist::default();
    for v in [200, 281, 23_650, 23_790] {
        d.add(v, At::default());
    }
    assert_eq!(d.quantile(0.99), 23_790);
    assert_eq!(d.quantile(0.01), 200);
}
