//! `report.html` of `calltrace compare`: one self-contained page (inline
//! CSS and SVG, no script, nothing fetched) with the node counts per
//! pattern and method, both plots, the group and feature summaries, and
//! each pattern's heaviest functions with their times in their unit.
//! Every name and label is escaped by one rule ([`esc`]): `&`, `<`, `>`,
//! `"`, `'` as character references and control characters as `\xNN`.

use std::fmt::Write;

use crate::compare::{Report, Stage};
use crate::emit::format::{TimeUnit, counted, percent, quantity};

const STYLE: &str = "body{font-family:Helvetica,Arial,sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:0.5em 0}th,td{padding:0.2em 0.7em;border-bottom:1px solid #eee}
th{text-align:left;background:#f4f6fa;white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.name{white-space:nowrap}td.n small{color:#777}#rates th{text-align:right}#rates th:first-child{text-align:left}
.plots{display:flex;flex-wrap:wrap;gap:1em}.plots svg{max-width:100%;height:auto}
details{margin:0.3em 0}summary{cursor:pointer}.muted{color:#777}";

/// Renders the page; `plots` are the SVG figures to inline, with a title each.
pub fn report_html(report: &Report, plots: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<title>calltrace compare report</title>\n");
    let _ = writeln!(out, "<style>\n{STYLE}\n</style>\n</head>\n<body>");
    let c = &report.config;
    let _ = writeln!(
        out,
        "<h1>calltrace compare: {}</h1>\n<p class=\"muted\">threshold {}, view {}, sweep {}, \
         modules: {}, whole-trace threshold of the global methods (--min-total) {}{}</p>",
        counted(report.patterns.len(), "pattern", "patterns"),
        c.threshold.get(),
        c.view.name(),
        counted(c.sweep.points().len(), "point", "points"),
        esc(&c.modules.describe()),
        percent(c.min_total.get(), 2),
        if c.keep_features {
            ", distinguishing functions protected (--keep-features)"
        } else {
            ""
        }
    );
    rates(&mut out, report);
    out.push_str(
        "<p class=\"muted\">Each cell: nodes kept; below it, their share of the nodes before · the share of \
         the root's time (calls, untimed) outside the subtrees the method removed. Merging removes \
         no time. The global methods remove every subtree under --min-total of the whole trace: in \
         the calls view each call is its own subtree, so a trace of many small calls loses much of \
         its time in them (the contexts view adds up a context's calls first).</p>\n",
    );
    out.push_str("<h2>Figures</h2>\n<div class=\"plots\">\n");
    for (title, svg) in plots {
        let _ = writeln!(out, "<figure><figcaption>{}</figcaption>", esc(title));
        out.push_str(strip_prolog(&String::from_utf8_lossy(svg)));
        out.push_str("</figure>\n");
    }
    out.push_str("</div>\n");
    groups(&mut out, report);
    top_functions(&mut out, report);
    slowest(&mut out, report);
    never_called(&mut out, report);
    out.push_str("</body>\n</html>\n");
    out.into_bytes()
}

fn rates(out: &mut String, report: &Report) {
    out.push_str("<h2>Nodes before and after abstraction</h2>\n<table id=\"rates\">\n<tr><th>pattern</th><th>before</th>");
    for s in Stage::methods() {
        let _ = write!(out, "<th>{}</th>", esc(s.name()));
    }
    out.push_str("</tr>\n");
    for p in &report.patterns {
        let _ = write!(
            out,
            "<tr><td class=\"name\">{}</td><td class=\"n\">{}</td>",
            esc(&p.name),
            p.nodes_before
        );
        for s in Stage::methods() {
            match p.rate(s) {
                // Two short lines, not one long one: seven methods side by
                // side must fit a 1280-pixel window.
                Some(r) => write!(
                    out,
                    "<td class=\"n\">{}<br><small>{} · {}</small></td>",
                    r.nodes_after,
                    percent(r.kept_ratio(), 1),
                    percent(r.time_explained, 1)
                ),
                None => write!(out, "<td></td>"),
            }
            .expect("write to String");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn groups(out: &mut String, report: &Report) {
    let g = &report.groups;
    let total = report.features.len();
    out.push_str("<h2>Groups and distinguishing functions</h2>\n<table id=\"groups\">\n");
    out.push_str("<tr><th>stage</th><th>groups of equal function sets</th><th>patterns that changed group</th><th>distinguishing functions kept</th></tr>\n");
    for s in Stage::all() {
        let kept = report.features.iter().filter(|f| f.kept[s.index()]).count();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{kept} / {total}</td></tr>",
            esc(s.name()),
            g.count(s),
            g.changed_count(s)
        );
    }
    out.push_str("</table>\n");
    features(out, report);
}

/// Each pattern's distinguishing functions (in its trace and no other's)
/// and the stages that keep them.
fn features(out: &mut String, report: &Report) {
    if report.features.is_empty() {
        out.push_str(
            "<p class=\"muted\">No pattern has a function that no other pattern has.</p>\n",
        );
        return;
    }
    for (i, p) in report.patterns.iter().enumerate() {
        let own: Vec<_> = report.features.iter().filter(|f| f.pattern == i).collect();
        if own.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<details><summary>{}: {}</summary>\n<table class=\"features\">\n<tr><th>function</th>",
            esc(&p.name),
            counted(
                own.len(),
                "distinguishing function",
                "distinguishing functions"
            )
        );
        for s in Stage::methods() {
            let _ = write!(out, "<th>{}</th>", esc(s.name()));
        }
        out.push_str("</tr>\n");
        for f in own {
            let _ = write!(out, "<tr><td>{}</td>", esc(&f.function));
            for s in Stage::methods() {
                let mark = if f.kept[s.index()] { "kept" } else { "lost" };
                let _ = write!(out, "<td>{mark}</td>");
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table></details>\n");
    }
}

/// The functions no pattern called, per source file: what no test reached.
fn never_called(out: &mut String, report: &Report) {
    use crate::coverage::Status;
    let cov = &report.coverage;
    out.push_str("<h2>Functions no pattern called</h2>\n");
    if cov.entries.is_empty() {
        out.push_str("<p>No program or library built with -finstrument-functions could be read, so no function list to check.</p>\n");
        return;
    }
    let mut files: std::collections::BTreeMap<&str, (usize, Vec<&str>)> = Default::default();
    for e in cov
        .entries
        .iter()
        .filter(|e| e.status != Status::NotInstrumented)
    {
        let file = e.info.file.as_deref().unwrap_or("(no source file)");
        let entry = files.entry(file).or_default();
        entry.0 += 1;
        if e.status == Status::NeverCalled {
            entry.1.push(&e.info.name);
        }
    }
    let totals = cov.totals();
    let _ = writeln!(
        out,
        "<p>{} of {} instrumented functions were never called by any pattern (functions whose code never calls the entry hook are left out).</p>",
        totals.never_called, totals.instrumented
    );
    if totals.never_called == 0 {
        return;
    }
    out.push_str("<table id=\"never-called\">\n<tr><th>file</th><th>never called</th><th>functions</th></tr>\n");
    for (file, (instrumented, names)) in files.iter().filter(|(_, (_, n))| !n.is_empty()) {
        let list: Vec<String> = names.iter().map(|n| esc(n)).collect();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{} of {instrumented}</td><td>{}</td></tr>",
            esc(file),
            names.len(),
            list.join(", ")
        );
    }
    out.push_str("</table>\n");
}

fn top_functions(out: &mut String, report: &Report) {
    out.push_str("<h2>Top functions per pattern (by self time, before abstraction)</h2>\n");
    for p in &report.patterns {
        let _ = writeln!(
            out,
            "<details><summary>{}</summary>\n<table class=\"top\">\n<tr><th>function</th><th>calls</th><th>self</th><th>total</th></tr>",
            esc(&p.name)
        );
        let q = |v| quantity(v, p.unit, 0, TimeUnit::Auto);
        for f in &p.top {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&f.name),
                f.calls,
                esc(&q(f.self_weight)),
                esc(&q(f.total))
            );
        }
        out.push_str("</table></details>\n");
    }
}

/// Each pattern's functions with the slowest single call: the worst case.
fn slowest(out: &mut String, report: &Report) {
    if report.patterns.iter().all(|p| p.slowest.is_empty()) {
        return;
    }
    out.push_str("<h2>Slowest calls per pattern (top functions by maximum)</h2>\n");
    for p in report.patterns.iter().filter(|p| !p.slowest.is_empty()) {
        let known = p.slowest.iter().any(|f| f.at.is_some());
        let _ = writeln!(
            out,
            "<details><summary>{}</summary>\n<table class=\"slowest\">\n<tr><th>function</th><th>calls</th><th>p99</th><th>max</th>{}</tr>",
            esc(&p.name),
            if known { "<th>slowest call</th>" } else { "" }
        );
        let q = |v| quantity(v, p.unit, 0, TimeUnit::Auto);
        for f in &p.slowest {
            // The calls view keeps no start times: no column to show then.
            let at = match f.at {
                Some((tid, start)) => format!("<td>tid {tid} at +{}</td>", esc(&q(start))),
                None if known => "<td></td>".to_string(),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>{at}</tr>",
                esc(&f.name),
                f.calls,
                esc(&q(f.p99)),
                esc(&q(f.max)),
            );
        }
        out.push_str("</table></details>\n");
    }
}

/// An SVG document without its `<?xml ...?>` line, for inlining.
fn strip_prolog(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

/// Escapes text for HTML, the one rule of the page: `&`, `<`, `>`, `"`
/// and `'` as character references, control characters shown as `\xNN`.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => {
                out.push_str(&crate::error::escape_controls(&c.to_string()));
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_svg_inlined_without_prolog() {
        assert_eq!(esc("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
        assert_eq!(
            strip_prolog("<?xml version=\"1.0\"?>\n<svg x/>"),
            "<svg x/>"
        );
    }
}
