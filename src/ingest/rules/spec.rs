//! The rules file: its JSON shape (serde) and its compiled form. Reading
//! checks everything that can be checked before the log is: each regex
//! compiles, each template names only groups of its rule's regex, units are
//! known, radixes are 2 to 36, `enter` and `complete` events have a name and
//! `complete` events a duration. Errors name the file, the rule and the field.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use super::template::Template;
use super::time::unit_factor;
use crate::error::{Error, Result};

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
    #[serde(default)]
    unit: Option<String>,
    #[serde(default)]
    radix: Option<u32>,
    #[serde(default)]
    state: BTreeMap<String, String>,
    rules: Vec<RuleSpec>,
}

/// One rule as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    #[serde(default)]
    name: Option<String>,
    regex: String,
    #[serde(default)]
    when: Vec<String>,
    #[serde(default)]
    emit: Vec<EventSpec>,
    #[serde(default)]
    set: BTreeMap<String, String>,
}

/// One event of a rule as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventSpec {
    kind: Kind,
    #[serde(default)]
    time: Option<String>,
    #[serde(default)]
    unit: Option<String>,
    #[serde(default)]
    radix: Option<u32>,
    #[serde(default)]
    thread: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    duration: Option<String>,
    #[serde(default)]
    duration_unit: Option<String>,
}

/// What an emitted event does to the thread's call stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Kind {
    /// A function is entered.
    Enter,
    /// A function returns (the innermost one when no name is given).
    Exit,
    /// A whole call: entry at `time`, exit `duration` later.
    Complete,
}

/// A compiled rules file.
#[derive(Debug)]
pub(super) struct RuleSet {
    /// Rules in file order; the first that matches a line (and whose
    /// conditions hold) applies.
    pub rules: Vec<Rule>,
    /// Initial values of the state variables.
    pub state: HashMap<String, String>,
    /// True when some event has a time or a duration.
    pub timed: bool,
}

/// A compiled rule.
#[derive(Debug)]
pub(super) struct Rule {
    /// `rule N` or `rule N (name)`, for messages.
    pub label: String,
    /// The line pattern.
    pub regex: regex::Regex,
    /// Conditions that must all hold.
    pub when: Vec<Cond>,
    /// Events to emit, in order.
    pub emit: Vec<Emit>,
    /// State assignments (variable name template, value template), applied after `emit`.
    pub set: Vec<(Template, Template)>,
}

/// A condition: `A == B`, `A != B`, or `A` (true when not empty).
#[derive(Debug)]
pub(super) enum Cond {
    /// Both sides expand to the same text.
    Eq(Template, Template),
    /// The sides differ.
    Ne(Template, Template),
    /// The template expands to something.
    NonEmpty(Template),
}

/// A compiled event of a rule.
#[derive(Debug)]
pub(super) struct Emit {
    /// Enter, exit or complete.
    pub kind: Kind,
    /// The event's time; None means the thread's clock (the last event's time).
    pub time: Option<Template>,
    /// Unit of `time`.
    pub unit: Template,
    /// Radix of `time`.
    pub radix: u32,
    /// Thread or resource the event happens on.
    pub thread: Template,
    /// Function name; None on an exit means the innermost open call.
    pub name: Option<Template>,
    /// Duration of a complete event, or of the call an exit closes.
    pub duration: Option<Template>,
    /// Unit of `duration`.
    pub duration_unit: Template,
}

/// Reads and compiles the rules in `text` (the contents of `path`).
pub(super) fn compile(path: &str, text: &str) -> Result<RuleSet> {
    let spec: FileSpec = serde_json::from_str(text)
        .map_err(|e| Error::parse(path, e.line() as u64, format!("rules file: {e}")))?;
    let unit = spec.unit.unwrap_or_else(|| "ns".to_string());
    let radix = spec.radix.unwrap_or(10);
    let file_err =
        |field: &str, msg: String| Error::Input(format!("{path}: field `{field}`: {msg}"));
    unit_factor(&unit).map_err(|m| file_err("unit", m))?;
    check_radix(radix).map_err(|m| file_err("radix", m))?;
    if spec.rules.is_empty() {
        return Err(file_err("rules", "expected at least one rule".to_string()));
    }
    let defaults = Defaults { unit, radix };
    let mut rules = Vec::with_capacity(spec.rules.len());
    for (i, r) in spec.rules.into_iter().enumerate() {
        let label = match &r.name {
            Some(n) => format!("rule {} ({n})", i + 1),
            None => format!("rule {}", i + 1),
        };
        let rule = compile_rule(r, &label, &defaults).map_err(|(field, msg)| {
            Error::Input(format!("{path}: {label}: field `{field}`: {msg}"))
        })?;
        rules.push(rule);
    }
    let timed = rules
        .iter()
        .flat_map(|r| &r.emit)
        .any(|e| e.time.is_some() || e.duration.is_some());
    Ok(RuleSet {
        rules,
        state: spec.state.into_iter().collect(),
        timed,
    })
}

struct Defaults {
    unit: String,
    radix: u32,
}

type FieldError = (String, String);

fn compile_rule(r: RuleSpec, label: &str, d: &Defaults) -> Result<Rule, FieldError> {
    let regex = regex::Regex::new(&r.regex).map_err(|e| ("regex".to_string(), e.to_string()))?;
    let groups: Vec<&str> = regex.capture_names().flatten().collect();
    let tpl = |field: &str, text: &str| {
        Template::parse(text, &groups).map_err(|m| (field.to_string(), m))
    };
    let when = r
        .when
        .iter()
        .map(|c| cond(c, &groups).map_err(|m| ("when".to_string(), m)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut emit = Vec::with_capacity(r.emit.len());
    for (j, e) in r.emit.into_iter().enumerate() {
        let at = |f: &str| format!("emit[{j}].{f}");
        emit.push(compile_emit(e, d, &groups).map_err(|(f, m)| (at(&f), m))?);
    }
    let set = r
        .set
        .iter()
        .map(|(k, v)| Ok((tpl("set", k)?, tpl(&format!("set.{k}"), v)?)))
        .collect::<Result<Vec<_>, FieldError>>()?;
    Ok(Rule {
        label: label.to_string(),
        regex,
        when,
        emit,
        set,
    })
}

fn compile_emit(e: EventSpec, d: &Defaults, groups: &[&str]) -> Result<Emit, FieldError> {
    let tpl =
        |field: &str, text: &str| Template::parse(text, groups).map_err(|m| (field.to_string(), m));
    let opt =
        |field: &str, text: &Option<String>| text.as_deref().map(|t| tpl(field, t)).transpose();
    let unit = tpl("unit", e.unit.as_deref().unwrap_or(&d.unit))?;
    let duration_unit = match &e.duration_unit {
        Some(u) => tpl("duration_unit", u)?,
        None => unit.clone(),
    };
    for (field, t) in [("unit", &unit), ("duration_unit", &duration_unit)] {
        if let Some(u) = t.literal() {
            unit_factor(&u).map_err(|m| (field.to_string(), m))?;
        }
    }
    let radix = e.radix.unwrap_or(d.radix);
    check_radix(radix).map_err(|m| ("radix".to_string(), m))?;
    let name = opt("name", &e.name)?;
    let duration = opt("duration", &e.duration)?;
    if name.is_none() && e.kind != Kind::Exit {
        return Err((
            "name".to_string(),
            "enter and complete events need a name".to_string(),
        ));
    }
    if duration.is_none() && e.kind == Kind::Complete {
        return Err((
            "duration".to_string(),
            "complete events need a duration".to_string(),
        ));
    }
    Ok(Emit {
        kind: e.kind,
        time: opt("time", &e.time)?,
        unit,
        radix,
        thread: tpl("thread", e.thread.as_deref().unwrap_or(""))?,
        name,
        duration,
        duration_unit,
    })
}

fn cond(text: &str, groups: &[&str]) -> Result<Cond, String> {
    let tpl = |t: &str| Template::parse(t.trim(), groups);
    if let Some((a, b)) = text.split_once("!=") {
        return Ok(Cond::Ne(tpl(a)?, tpl(b)?));
    }
    if let Some((a, b)) = text.split_once("==") {
        return Ok(Cond::Eq(tpl(a)?, tpl(b)?));
    }
    Ok(Cond::NonEmpty(tpl(text)?))
}

fn check_radix(radix: u32) -> Result<(), String> {
    if (2..=36).contains(&radix) {
        Ok(())
    } else {
        Err(format!("radix {radix} is not in 2..=36"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(json: &str) -> String {
        compile("r.json", json).unwrap_err().to_string()
    }

    #[test]
    fn compiles_a_rule_with_every_field() {
        let rs = compile(
            "r.json",
            r#"{"unit": "us", "state": {"task": "1"}, "rules": [
                {"name": "call", "regex": "^(?P<t>\\d+) (?P<f>\\w+)$", "when": ["${state.task} != "],
                 "emit": [{"kind": "complete", "time": "${t}", "name": "${f}", "duration": "3"}],
                 "set": {"last": "${f}"}}]}"#,
        )
        .unwrap();
        assert!(rs.timed);
        assert_eq!(rs.state["task"], "1");
        let r = &rs.rules[0];
        assert_eq!(r.label, "rule 1 (call)");
        assert_eq!((r.when.len(), r.emit.len(), r.set.len()), (1, 1, 1));
        assert_eq!(r.emit[0].unit.literal().unwrap(), "us");
    }

    #[test]
    fn errors_name_the_file_the_rule_and_the_field() {
        let e = err(r#"{"rules": [{"regex": "a"}, {"name": "x", "regex": "("}]}"#);
        assert!(e.starts_with("r.json: rule 2 (x): field `regex`:"), "{e}");
        let e = err(
            r#"{"rules": [{"regex": "(?P<a>a)", "emit": [{"kind": "enter", "name": "${b}"}]}]}"#,
        );
        assert!(
            e.starts_with("r.json: rule 1: field `emit[0].name`:"),
            "{e}"
        );
        let e = err(r#"{"rules": [{"regex": "a", "emit": [{"kind": "complete", "name": "a"}]}]}"#);
        assert!(
            e.contains("`emit[0].duration`: complete events need a duration"),
            "{e}"
        );
        let e = err(
            r#"{"rules": [{"regex": "a", "emit": [{"kind": "enter", "name": "a", "unit": "weeks"}]}]}"#,
        );
        assert!(e.contains("`emit[0].unit`") && e.contains("weeks"), "{e}");
        let e = err(r#"{"radix": 40, "rules": [{"regex": "a"}]}"#);
        assert!(e.starts_with("r.json: field `radix`"), "{e}");
        let e = err("{\n\"rules\": [{\"regx\": \"a\"}]}");
        assert!(
            e.starts_with("r.json:2: rules file: unknown field `regx`"),
            "{e}"
        );
        let e = err(r#"{"rules": [{"regex": "a", "emit": [{"kind": "jump", "name": "a"}]}]}"#);
        assert!(e.contains("unknown variant `jump`"), "{e}");
    }
}
