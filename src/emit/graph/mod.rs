//! What `graph` and `abstract` draw: the call graph as DOT
//! ([`dot`], with its edge list as CSV in [`edges_csv`]) and the
//! (abstracted) call tree as DOT ([`tree_dot`]), with the one escaping rule
//! of every DOT output ([`dot_escape`]).

pub mod dot;
pub mod edges_csv;
pub mod tree_dot;

use crate::error::escape_controls;

/// Escapes a string for a quoted DOT attribute, the one rule of the DOT
/// outputs (call graph and tree): `\` becomes `\\`, `"` becomes `\"`, and
/// every control character, newline and carriage return included, is
/// shown as `\xNN` (`\u{NN}` above ASCII), so a name can never add a line
/// to a label (Graphviz reads `\n`, `\l` and `\r` as line breaks). `<`,
/// `>` and `&` need nothing in a quoted label; invalid UTF-8 was already
/// replaced by U+FFFD when the trace was read.
pub fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            // Graphviz rejects NUL and chokes on other controls: show them.
            c if c.is_control() => {
                out.push_str(&escape_controls(&c.to_string()).replace('\\', "\\\\"))
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_labels_get_no_line_break_from_a_name() {
        assert_eq!(
            dot_escape("evil\nx\r\t\0\"q\"\\n<a>"),
            r#"evil\\x0ax\\x0d\\x09\\x00\"q\"\\n<a>"#
        );
    }

    #[test]
    fn dot_strings_escape_quotes_and_backslashes() {
        assert_eq!(
            dot_escape("operator\"\"_x\\n\r\n"),
            "operator\\\"\\\"_x\\\\n\\\\x0d\\\\x0a"
        );
        assert_eq!(dot_escape("a\0b\x1b"), "a\\\\x00b\\\\x1b");
        assert_eq!(
            dot_escape("ns::Box<int>::get() const"),
            "ns::Box<int>::get() const"
        );
    }
}
