//! Demangling of linkage names for display. Only names that are mangled
//! (`_Z...` Itanium C++ and legacy Rust, `_R...` Rust v0) are demangled: the
//! C++ demangler also accepts bare type codes, so a C function named `a` or
//! `d` would otherwise come out as `signed char` or `double`. Also repairs
//! one known mistake of cpp_demangle 0.5 (literal operators).

/// The display name of the linkage name `raw`.
pub fn demangle(raw: &str) -> String {
    if !(raw.starts_with("_Z") || raw.starts_with("_R")) {
        return raw.to_string();
    }
    let name = addr2line::demangle_auto(raw.into(), None);
    fix_literal_operator(&name)
}

/// cpp_demangle 0.5 prints the literal operator `operator"" _km` (`_Zli3_kmy`)
/// as `operator_km::operator ""`; c++filt prints `operator"" _km`.
fn fix_literal_operator(name: &str) -> String {
    const WRONG: &str = "::operator \"\"";
    let Some(end) = name.find(WRONG) else {
        return name.to_string();
    };
    let Some(start) = name[..end].rfind("operator") else {
        return name.to_string();
    };
    let suffix = &name[start + "operator".len()..end];
    if suffix.is_empty() || !suffix.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return name.to_string();
    }
    format!(
        "{}operator\"\" {suffix}{}",
        &name[..start],
        &name[end + WRONG.len()..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_names_that_look_like_type_codes_stay_as_they_are() {
        for name in ["a", "b", "c", "d", "e", "main", "Z"] {
            assert_eq!(demangle(name), name);
        }
    }

    #[test]
    fn cpp_names_demangle_like_cxxfilt() {
        assert_eq!(
            demangle("_ZN12_GLOBAL__N_16helperEi"),
            "(anonymous namespace)::helper(int)"
        );
        assert_eq!(
            demangle("_ZZ4mainENKUliE_clEi"),
            "main::{lambda(int)#1}::operator()(int) const"
        );
        assert_eq!(
            demangle("_Zli3_kmy"),
            "operator\"\" _km(unsigned long long)"
        );
        assert_eq!(
            demangle("_ZN2nsli3_kmEy"),
            "ns::operator\"\" _km(unsigned long long)"
        );
    }
}
