//! A flame graph as SVG, drawn by the inferno crate from the collapsed
//! stacks of [`super::folded`]. Widths are self weights in the trace's unit
//! (the SVG's tooltips name it: `ns`, or `calls` for untimed traces).
//!
//! Escaping: names are the frames of [`super::folded`] and follow its rule
//! ([`super::folded::frame`]: `;` as `:`, control characters as `\xNN`, the
//! space before a final number as a no-break space); inferno then escapes
//! `<`, `>`, `&` and `"` for the SVG. The title (the program's name and
//! the trace's path) has its control characters shown as `\xNN` too.

use std::io::{self, Write};

use super::folded::{folded_bytes, for_each_stack};
use super::{Exported, Exporter, TreeExporter};

/// The most bytes of stacks drawn, with or without `--max-depth`: inferno
/// holds them all, and a 60k-deep recursion needed 7.3 GB (256 MiB).
const MAX_STACKS: u64 = 256 << 20;

/// `--to flamegraph`.
pub(super) struct FlameGraph;

impl Exporter for FlameGraph {
    fn name(&self) -> &'static str {
        "flamegraph"
    }
    fn about(&self) -> &'static str {
        "flame graph as SVG (inferno)"
    }
}

impl TreeExporter for FlameGraph {
    fn check(&self, t: &Exported<'_>) -> crate::error::Result<Option<String>> {
        // The stacks as cut by --max-depth, if given.
        let bytes = folded_bytes(t);
        if bytes <= MAX_STACKS {
            return Ok(None);
        }
        let gib = bytes as f64 / (1u64 << 30) as f64;
        let depth = t.tree.depths().iter().max().copied().unwrap_or(0);
        let msg = match t.max_depth {
            None => format!(
                "the flame graph's stacks would take {gib:.1} GiB of memory (every stack repeats its whole path; the tree is {depth} levels deep): give --max-depth N to end the stacks at depth N"
            ),
            Some(n) => format!(
                "the flame graph's stacks would take {gib:.1} GiB of memory even when they end at depth {n} (every stack repeats its whole path; at most {} MiB are drawn): give a smaller --max-depth",
                MAX_STACKS >> 20
            ),
        };
        Err(crate::error::Error::Input(msg))
    }
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut lines = Vec::new();
        for_each_stack(t, |stack, value| {
            lines.push(format!("{stack} {value}"));
            Ok(())
        })?;
        if lines.is_empty() {
            return Err(io::Error::other(
                "the trace has no call with a self weight: nothing to draw",
            ));
        }
        let mut opts = inferno::flamegraph::Options::default();
        opts.title = format!("calltrace: {}", crate::error::escape_controls(&title(t)));
        opts.count_name = t.tree.unit.suffix().to_string();
        inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), out)
    }
}

/// What the flame graph is of: the program's file name, then the trace
/// (`app (trace.txt)`); the trace alone when no program is known.
fn title(t: &Exported<'_>) -> String {
    let program = std::path::Path::new(t.command)
        .file_name()
        .map_or_else(|| t.command.into(), |n| n.to_string_lossy());
    match t.command == t.title {
        true => t.title.to_string(),
        false => format!("{program} ({})", t.title),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Shape;
    use super::super::testing::{TRACE, export};
    use super::*;

    #[test]
    fn the_svg_is_well_formed_and_names_every_function() {
        let svg = String::from_utf8(export(Shape::Tree(&FlameGraph), TRACE)).unwrap();
        let opts = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        let doc = roxmltree::Document::parse_with_options(&svg, opts).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let titles: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("title"))
            .filter_map(|n| n.text())
            .collect();
        for f in ["main (40 ns", "f (18 ns", "g ("] {
            assert!(titles.iter().any(|t| t.starts_with(f)), "{f} in {titles:?}");
        }
    }

    #[test]
    fn the_title_names_the_program_then_the_trace() {
        let svg = String::from_utf8(export(Shape::Tree(&FlameGraph), TRACE)).unwrap();
        assert!(svg.contains(">calltrace: app (t.trace)<"), "{svg}");
    }
}
