use super::*;
use crate::calltree::{At, CallDist, Keep};

fn row(name: &str, values: &[u64]) -> Row {
    let mut dist = CallDist::default();
    for (i, &v) in values.iter().enumerate() {
        dist.add(
            v,
            v / 2,
            At {
                thread: 1,
                start: i as u64 * 1000,
            },
            Keep::TotalAndSelf,
        );
    }
    Row {
        name: name.to_string(),
        context: None,
        calls: values.len() as u64,
        total: values.iter().sum(),
        self_time: values.iter().sum::<u64>() / 2,
        dist,
    }
}

#[test]
fn csv_has_the_documented_columns_and_a_leading_path_for_contexts() {
    let rows = Rows::by_hand(vec![(&["main", "f"], row("f", &[10, 20, 30]))]);
    let text = String::from_utf8(csv(&rows, true, false).unwrap()).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "path,function,calls,total_ns,self_ns,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns"
    );
    assert_eq!(lines.next().unwrap(), "main;f,f,3,60,30,10,20,20,30,30,30");
    let text = String::from_utf8(csv(&rows, false, true).unwrap()).unwrap();
    assert!(text.starts_with("function,calls,total_ns,"));
    // Self time per call: 5, 10, 15.
    assert!(
        text.lines().nth(1).unwrap().ends_with(",5,10,10,15,15,15"),
        "{text}"
    );
}

#[test]
fn times_in_cycles_say_so_in_the_table_the_csvs_and_the_histogram() {
    let mut rows = Rows::by_hand(vec![(&[], row("f", &[10, 20, 30]))]);
    rows.unit = Unit::Cycles;
    let text = String::from_utf8(csv(&rows, false, false).unwrap()).unwrap();
    assert!(
        text.starts_with("function,calls,total_cycles,self_cycles,min_cycles,"),
        "{text}"
    );
    let text = String::from_utf8(histogram_csv(&rows, false, false).unwrap()).unwrap();
    assert!(
        text.starts_with("function,low_cycles,high_cycles,count\n"),
        "{text}"
    );
    let table = String::from_utf8(table(&rows, "function", &TableOptions::default(), &|t| {
        t.to_string()
    }))
    .unwrap();
    assert!(
        table.contains("60 cycles") && !table.contains(" ns"),
        "{table}"
    );
    let units = (Unit::Cycles, TimeUnit::Auto);
    let text = String::from_utf8(histogram(&rows.rows[0], "f", false, units)).unwrap();
    assert!(text.contains("cycles") && !text.contains(" ns"), "{text}");
}

#[test]
fn histogram_lines_cover_min_to_max_and_sum_to_the_calls() {
    let values: Vec<u64> = (1..=1000).map(|i| i * 100).collect();
    let r = row("f", &values);
    let text = String::from_utf8(histogram(&r, "f", false, (Unit::Nanos, TimeUnit::Ns))).unwrap();
    let counts: Vec<u64> = text
        .lines()
        .skip(2)
        .map(|l| {
            l.split(':')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), 1000, "{text}");
    // 100 ns .. 100,000 ns: octaves 64..127 through 65536..131071.
    assert_eq!(counts.len(), 11, "{text}");
    assert!(
        text.lines().nth(2).unwrap().contains("64 ns -> 127 ns"),
        "{text}"
    );
    let csv =
        String::from_utf8(histogram_csv(&Rows::by_hand(vec![(&[], r)]), false, false).unwrap())
            .unwrap();
    let sum: u64 = csv
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1000);
}

#[test]
fn table_names_the_thread_and_start_of_the_slowest_call() {
    let rows = Rows::by_hand(vec![(&[], row("f", &[5, 900, 7]))]);
    let text = String::from_utf8(table(&rows, "function", &TableOptions::default(), &|t| {
        format!("tid {t}")
    }))
    .unwrap();
    let line = text.lines().nth(2).unwrap();
    assert!(line.contains("tid 1 +1.00 us"), "{text}");
    assert!(line.ends_with("  f"), "{text}");
}
