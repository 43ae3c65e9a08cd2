//! How the user names functions: every flag that takes a function
//! (`graph`/`tree`/`view` `--focus` and `--root`, `stats --histogram`,
//! `--keep`, and the `--function`/`--exclude` filters) is one
//! [`FuncPattern`], parsed once at the command line and matched by one
//! rule (README, "Naming functions"):
//!
//! - a pattern matches a function whose name as shown it matches;
//! - or whose short form (what `--demangle simple` shows, without the
//!   ` [a.c]` that tells namesakes apart: `ns::Plan::init` for
//!   `void ns::Plan::init(int) [plan.cc]`) or a `::`-scoped end of it
//!   (`Plan::init`, `init`) it matches; a namesake suffix given in the
//!   pattern (`read32 [b.c]`) must then be the function's own;
//! - `*` (any run of characters) and `?` (any one character) are the only
//!   wildcards; every other character stands for itself.
//!
//! A flag that takes a set of functions takes every match ([`FuncPattern::matching`]);
//! one that needs a single function ([`FuncPattern::pick_one`]) takes the
//! function whose name is exactly the pattern, else the only match, and
//! otherwise says which functions it could mean. Globs are compiled by
//! [`glob`], the one glob compiler (module tables use it too). Errors are
//! plain messages: the caller names the flag.

use globset::{Glob, GlobBuilder, GlobMatcher};

use super::{FuncInfo, short_form};
use crate::ingest::{FuncId, FuncTable};

/// A function pattern as the user gave it, compiled.
#[derive(Debug, Clone)]
pub struct FuncPattern {
    /// The text as given.
    text: String,
    /// The whole pattern, matched against names as shown.
    whole: GlobMatcher,
    /// The pattern without its namesake suffix, matched against short
    /// forms and their scoped ends.
    base: GlobMatcher,
    /// The ` [a.c]` suffix the pattern ends with, if any.
    suffix: Option<String>,
    /// The short form of a pattern without wildcards (a full name with
    /// other parameters still names the function).
    own: Option<String>,
}

impl PartialEq for FuncPattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for FuncPattern {}

impl std::fmt::Display for FuncPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Written as the text the user gave (the `view` page shows it).
impl serde::Serialize for FuncPattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl std::str::FromStr for FuncPattern {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        FuncPattern::parse(s)
    }
}

/// A glob in which only `*` and `?` are wildcards (C++ names are full of
/// brackets and braces): the one glob compiler of function patterns and
/// module tables.
pub fn glob(text: &str) -> Result<Glob, String> {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '*' | '?' => escaped.push(c),
            c => escaped.push_str(&globset::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    GlobBuilder::new(&escaped)
        .backslash_escape(false)
        .build()
        .map_err(|e| format!("expected a function name or glob, found `{text}`: {e}"))
}

/// The ` [a.c]` that tells a name's namesakes apart, if it has one.
pub fn namesake_suffix(name: &str) -> Option<&str> {
    name.rfind(" [")
        .filter(|_| name.ends_with(']'))
        .map(|i| &name[i..])
}

impl FuncPattern {
    /// Compiles `text`; an empty pattern is refused.
    pub fn parse(text: &str) -> Result<FuncPattern, String> {
        if text.is_empty() {
            return Err("expected a function name or glob, found an empty value".to_string());
        }
        let suffix = namesake_suffix(text);
        let base_text = suffix.map_or(text, |s| &text[..text.len() - s.len()]);
        let wild = text.contains(['*', '?']);
        Ok(FuncPattern {
            text: text.to_string(),
            whole: glob(text)?.compile_matcher(),
            base: glob(base_text)?.compile_matcher(),
            suffix: suffix.map(str::to_string),
            own: (!wild).then(|| short_form(base_text)),
        })
    }

    /// The pattern as the user gave it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the pattern matches the function named `name` (as shown).
    pub fn matches(&self, name: &str) -> bool {
        self.matches_with(name, &short_form(name))
    }

    /// [`FuncPattern::matches`] with the short form of `name` given.
    pub fn matches_with(&self, name: &str, short: &str) -> bool {
        if self.whole.is_match(name) {
            return true;
        }
        if self.suffix.is_some() && self.suffix.as_deref() != namesake_suffix(name) {
            return false;
        }
        self.own.as_deref() == Some(short)
            || self.base.is_match(short)
            || short
                .match_indices("::")
                .any(|(i, _)| self.base.is_match(&short[i + 2..]))
    }

    /// The ids of the functions in `names` (id, name as shown) the
    /// pattern matches.
    pub fn matching<'a>(&self, names: impl IntoIterator<Item = (usize, &'a str)>) -> Vec<usize> {
        names
            .into_iter()
            .filter(|(_, n)| self.matches(n))
            .map(|(i, _)| i)
            .collect()
    }

    /// The one function of `names` the pattern names: the one whose name
    /// is exactly the pattern, else the only match. Otherwise a message
    /// saying what it found and which names it could mean.
    pub fn pick_one<'a>(
        &self,
        names: impl IntoIterator<Item = (usize, &'a str)> + Clone,
    ) -> Result<usize, String> {
        if let Some((i, _)) = names.clone().into_iter().find(|(_, n)| *n == self.text) {
            return Ok(i);
        }
        let matched: Vec<(usize, &str)> = names
            .clone()
            .into_iter()
            .filter(|(_, n)| self.matches(n))
            .collect();
        if let [(i, _)] = matched[..] {
            return Ok(i);
        }
        let near: Vec<&str> = match matched.is_empty() {
            false => matched.iter().map(|(_, n)| *n).collect(),
            true => self.similar(names.into_iter().map(|(_, n)| n)),
        };
        let what = match matched.len() {
            0 => "expected the name of a function in the trace",
            _ => "expected the name of one function in the trace",
        };
        Err(format!(
            "{what}, found `{}`{}",
            self.text,
            did_you_mean(near)
        ))
    }

    /// [`FuncPattern::pick_one`] among a trace's functions, named `names`.
    pub fn pick_function(&self, names: &[FuncInfo]) -> Result<FuncId, String> {
        let all = names.iter().map(|i| i.name.as_str()).enumerate();
        self.pick_one(all).map(|i| i as FuncId)
    }

    /// `hit[f]` for every function of `funcs` (named `names`) one of
    /// `patterns` matches, and which patterns matched none.
    pub fn mark<'p>(
        patterns: &'p [FuncPattern],
        funcs: &FuncTable,
        names: &[FuncInfo],
    ) -> (Vec<bool>, Vec<&'p FuncPattern>) {
        let mut used = vec![false; patterns.len()];
        let mut hit = vec![false; names.len()];
        if patterns.is_empty() {
            return (hit, Vec::new());
        }
        for (f, info) in names.iter().enumerate() {
            if funcs.is_synthetic(f as FuncId) {
                continue;
            }
            let short = short_form(&info.name);
            for (p, u) in patterns.iter().zip(&mut used) {
                if p.matches_with(&info.name, &short) {
                    *u = true;
                    hit[f] = true;
                }
            }
        }
        let unused = patterns
            .iter()
            .zip(used)
            .filter(|(_, u)| !u)
            .map(|(p, _)| p);
        (hit, unused.collect())
    }

    /// Names that contain the pattern's longest literal piece (ignoring
    /// case): what a misspelt or partial name may have meant.
    fn similar<'a>(&self, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        let base = self.suffix.as_ref().map_or(self.text.as_str(), |s| {
            &self.text[..self.text.len() - s.len()]
        });
        let piece = base
            .split(['*', '?'])
            .max_by_key(|p| p.len())
            .unwrap_or("")
            .to_lowercase();
        if piece.len() < MIN_PIECE {
            return Vec::new();
        }
        names
            .filter(|n| n.to_lowercase().contains(&piece))
            .collect()
    }
}

/// A literal piece shorter than this suggests nothing (every name has an `a`).
const MIN_PIECE: usize = 3;

/// Names suggested at most.
const SHOWN: usize = 5;

/// `; did you mean 'a', 'b'?` for `near` (quoted for the shell, sorted,
/// at most [`SHOWN`]), or nothing.
fn did_you_mean(mut near: Vec<&str>) -> String {
    if near.is_empty() {
        return String::new();
    }
    near.sort_unstable();
    near.dedup();
    let more = near.len().saturating_sub(SHOWN);
    let mut shown: Vec<String> = near
        .iter()
        .take(SHOWN)
        .map(|n| format!("'{}'", n.replace('\'', "'\\''")))
        .collect();
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    format!("; did you mean {}?", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 8] = [
        "main",
        "read32 [a.c]",
        "read32 [b.c]",
        "ns::Plan::init(int, char const*)",
        "it's",
        "re2::BeginPtr(re2::StringPiece const&) [dfa.cc]",
        "re2::BeginPtr(re2::StringPiece const&) [nfa.cc]",
        "bool OT::ArrayOf<int>::sanitize<>(int) const",
    ];

    fn names() -> impl Iterator<Item = (usize, &'static str)> + Clone {
        NAMES.iter().copied().enumerate()
    }

    fn one(p: &str) -> Result<usize, String> {
        FuncPattern::parse(p).unwrap().pick_one(names())
    }

    fn all(p: &str) -> Vec<usize> {
        FuncPattern::parse(p).unwrap().matching(names())
    }

    #[test]
    fn a_function_is_found_by_its_name_or_its_one_short_form() {
        assert_eq!(one("main"), Ok(0));
        assert_eq!(one("read32 [b.c]"), Ok(2));
        assert_eq!(one("ns::Plan::init"), Ok(3));
        assert_eq!(one("Plan::init"), Ok(3));
        assert_eq!(one("init"), Ok(3));
        assert_eq!(
            one("ns::Plan::init(long)"),
            Ok(3),
            "another full name's short form"
        );
        assert_eq!(one("it's"), Ok(4));
        assert_eq!(one("BeginPtr [nfa.cc]"), Ok(6));
        assert_eq!(one("re2::BeginPtr [dfa.cc]"), Ok(5));
        assert_eq!(one("OT::*::sanitize"), Ok(7), "a glob on the short form");
        assert!(one("BeginPtr [x.cc]").is_err());
    }

    #[test]
    fn several_or_no_matches_say_what_was_meant() {
        let err = one("read32").unwrap_err();
        assert!(
            err.ends_with("found `read32`; did you mean 'read32 [a.c]', 'read32 [b.c]'?"),
            "{err}"
        );
        let err = one("BeginPtr").unwrap_err();
        assert!(err.contains("one function"), "{err}");
        let err = one("nothing").unwrap_err();
        assert!(err.ends_with("found `nothing`"), "{err}");
        let err = one("Main").unwrap_err();
        assert!(err.ends_with("did you mean 'main'?"), "{err}");
        assert!(
            !one("ai").unwrap_err().contains("did you"),
            "too short a piece"
        );
    }

    #[test]
    fn sets_take_every_match_on_full_and_short_names() {
        assert_eq!(all("read32"), [1, 2]);
        assert_eq!(all("read*"), [1, 2]);
        assert_eq!(all("*Begin*"), [5, 6]);
        assert_eq!(all("m?in"), [0]);
        assert_eq!(all("init"), [3]);
        assert_eq!(all("re2::*"), [5, 6]);
        assert_eq!(all("[a.c]"), Vec::<usize>::new(), "brackets are no class");
    }

    #[test]
    fn many_near_names_are_cut_to_five_quoted_for_the_shell() {
        let mut list: Vec<String> = (0..8).map(|i| format!("f [u{i}.c]")).collect();
        list.push("f [it's.c]".to_string());
        let names = list.iter().map(String::as_str).enumerate();
        let err = FuncPattern::parse("f")
            .unwrap()
            .pick_one(names)
            .unwrap_err();
        assert!(
            err.ends_with("did you mean 'f [it'\\''s.c]', 'f [u0.c]', 'f [u1.c]', 'f [u2.c]', 'f [u3.c]', and 4 more?"),
            "{err}"
        );
    }

    #[test]
    fn an_empty_pattern_is_refused() {
        assert!(FuncPattern::parse("").is_err());
    }
}
