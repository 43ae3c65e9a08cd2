//! Templates of a rules file: text with `${group}` (a named capture of the
//! rule's regex) and `${state.var}` (a state variable) substituted when a
//! line matches; `$$` is a literal `$`. Templates are parsed once, when the
//! rules file is read, so a misspelt group is reported before any line is.

use std::collections::HashMap;

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Group(String),
    State(String),
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Template {
    parts: Vec<Part>,
}

/// What a template is expanded against: the line's captures and the state.
pub(super) struct Env<'a> {
    /// The regex match of the line.
    pub caps: &'a regex::Captures<'a>,
    /// The state variables as they were before the line.
    pub state: &'a HashMap<String, String>,
}

impl Template {
    /// Parses `text`; `groups` are the rule's named captures.
    pub(super) fn parse(text: &str, groups: &[&str]) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            lit.push_str(&rest[..i]);
            rest = &rest[i + 1..];
            if let Some(r) = rest.strip_prefix('$') {
                lit.push('$');
                rest = r;
                continue;
            }
            let Some(body) = rest.strip_prefix('{') else {
                return Err(format!(
                    "`$` must start `${{group}}`, `${{state.var}}` or `$$` in `{text}`"
                ));
            };
            let end = body
                .find('}')
                .ok_or_else(|| format!("unclosed `${{` in `{text}`"))?;
            if !lit.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut lit)));
            }
            parts.push(reference(&body[..end], groups)?);
            rest = &body[end + 1..];
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        Ok(Template { parts })
    }

    /// The template's text with every reference substituted; a group that
    /// did not take part in the match and an unset variable are empty.
    pub(super) fn expand(&self, env: &Env) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Group(g) => out.push_str(env.caps.name(g).map_or("", |m| m.as_str())),
                Part::State(v) => out.push_str(env.state.get(v).map_or("", String::as_str)),
            }
        }
        out
    }

    /// The literal text when the template has no reference.
    pub(super) fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                _ => return None,
            }
        }
        Some(out)
    }
}

fn reference(name: &str, groups: &[&str]) -> Result<Part, String> {
    if let Some(var) = name.strip_prefix("state.") {
        if var.is_empty() {
            return Err("`${state.}` names no variable".to_string());
        }
        return Ok(Part::State(var.to_string()));
    }
    if groups.contains(&name) {
        return Ok(Part::Group(name.to_string()));
    }
    let known = if groups.is_empty() {
        "the regex has no named group".to_string()
    } else {
        format!("the regex's named groups are {}", groups.join(", "))
    };
    Err(format!(
        "`${{{name}}}` is neither a named group nor `state.VAR`; {known}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(t: &str, re: &str, line: &str, state: &[(&str, &str)]) -> String {
        let re = regex::Regex::new(re).unwrap();
        let groups: Vec<&str> = re.capture_names().flatten().collect();
        let caps = re.captures(line).unwrap();
        let state = state
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let env = Env {
            caps: &caps,
            state: &state,
        };
        Template::parse(t, &groups).unwrap().expand(&env)
    }

    #[test]
    fn substitutes_groups_state_and_dollars() {
        let s = expand(
            "task ${id} of ${state.cpu} costs $$${n}",
            r"(?P<id>\d+) (?P<n>\d+)?",
            "4 ",
            &[("cpu", "0")],
        );
        assert_eq!(s, "task 4 of 0 costs $");
    }

    #[test]
    fn bad_templates_say_what_is_wrong() {
        let e = Template::parse("${nme}", &["name"]).unwrap_err();
        assert!(e.contains("`${nme}`") && e.contains("name"), "{e}");
        assert!(
            Template::parse("${name", &["name"])
                .unwrap_err()
                .contains("unclosed")
        );
        assert!(Template::parse("$x", &[]).unwrap_err().contains("`$$`"));
        assert_eq!(
            Template::parse("a$$b", &[]).unwrap().literal().unwrap(),
            "a$b"
        );
        assert_eq!(Template::parse("${x}", &["x"]).unwrap().literal(), None);
    }
}
