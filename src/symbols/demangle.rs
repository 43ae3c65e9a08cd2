//! Demangling of linkage names for display, in three styles ([`Demangle`]).
//!
//! C++ names (`_Z...`) go through `__cxa_demangle` of the system's
//! libstdc++: the same libiberty code binutils uses, called with the same
//! options as `nm -C` (parameters, no verbose expansion of `std::string`
//! and friends), so names are identical to `nm -C`'s. (`c++filt` differs
//! from `nm -C` only in that verbose expansion.) Legacy Rust names are
//! Itanium names to it too; Rust v0 names (`_R...`) go through
//! `rustc-demangle`, with crate disambiguators, as `nm -C` prints them. Only names that are mangled are demangled:
//! the C++ demangler also accepts bare type codes, so a C function named
//! `a` or `d` would otherwise come out as `signed char` or `double`.

use std::ffi::{CStr, CString, c_char, c_int, c_void};

/// How linkage names are shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Demangle {
    /// Like `nm -C`: `int ns::twice<int>(int)`. The default.
    #[default]
    Full,
    /// Without return type, template arguments and parameters, like
    /// uftrace's default: `ns::twice`.
    Simple,
    /// The linkage name as in the symbol table: `_ZN2ns5twiceIiEET_S1_`.
    None,
}

#[link(name = "stdc++")]
unsafe extern "C" {
    fn __cxa_demangle(
        mangled: *const c_char,
        buf: *mut c_char,
        len: *mut usize,
        status: *mut c_int,
    ) -> *mut c_char;
    fn free(ptr: *mut c_void);
}

/// The display name of the linkage name `raw` in style `style`.
pub fn demangle(raw: &str, style: Demangle) -> String {
    match style {
        Demangle::None => raw.to_string(),
        Demangle::Full => full(raw),
        Demangle::Simple => simplify(&full(raw)),
    }
}

/// `nm -C`'s name for `raw`; `raw` itself when it is not a mangled name
/// or does not demangle.
fn full(raw: &str) -> String {
    if raw.starts_with("_R") {
        return rustc_demangle::try_demangle(raw)
            .map_or_else(|_| raw.to_string(), |d| d.to_string());
    }
    if !raw.starts_with("_Z") {
        return raw.to_string();
    }
    cxa_demangle(raw).unwrap_or_else(|| raw.to_string())
}

fn cxa_demangle(raw: &str) -> Option<String> {
    let c = CString::new(raw).ok()?;
    let mut status: c_int = 0;
    // SAFETY: `c` is a NUL-terminated string; with a null buffer
    // __cxa_demangle allocates the result with malloc (or returns null and
    // sets `status`), and the result is freed once copied.
    unsafe {
        let out = __cxa_demangle(
            c.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut status,
        );
        if out.is_null() {
            return None;
        }
        let name = CStr::from_ptr(out).to_string_lossy().into_owned();
        free(out.cast());
        (status == 0).then_some(name)
    }
}

/// The demangler's words for functions it makes itself, kept before the
/// simple name of what they are for: `TLS wrapper function for
/// ns::counter` is not the variable `ns::counter`.
const SPECIAL: [&str; 6] = [
    "TLS wrapper function for ",
    "TLS init function for ",
    "non-virtual thunk to ",
    "virtual thunk to ",
    "covariant return thunk to ",
    "transaction clone for ",
];

/// A full name without return type, template arguments and parameter
/// lists (and the qualifiers after them): `int ns::Box<int>::get() const`
/// becomes `ns::Box::get`. Operator names and `(anonymous namespace)` stay
/// as they are, a lambda is `{lambda#1}` (its parameters left out), a
/// conversion operator names its type without template arguments
/// (`operator std::basic_string_view`).
pub fn simplify(full: &str) -> String {
    if let Some(prefix) = SPECIAL.iter().find(|p| full.starts_with(*p)) {
        return format!("{prefix}{}", simplify(&full[prefix.len()..]));
    }
    let b = full.as_bytes();
    let mut out = String::with_capacity(full.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &full[i..];
        if rest.starts_with("operator") && !ident_before(b, i) {
            let n = 8 + operator_len(&rest[8..]);
            out.push_str(&without_templates(&rest[..n]));
            i += n;
            continue;
        }
        if rest.starts_with("{lambda(") {
            // `{lambda(std::pair<...> const&, ...)#1}`: the number tells
            // a scope's lambdas apart, the parameters only make it long.
            let end = skip_balanced(b, i);
            let params = skip_balanced(b, i + "{lambda".len());
            out.push_str("{lambda");
            out.push_str(&full[params.min(end)..end]);
            i = end;
            continue;
        }
        if rest.starts_with("decltype") && !ident_before(b, i) {
            // A `decltype (expr)` return type (`auto f() -> decltype(...)`):
            // its parentheses are not the parameter list.
            let after = i + "decltype".len();
            let open = after + full[after..].len() - full[after..].trim_start().len();
            if b.get(open) == Some(&b'(') {
                i = skip_parens(b, open);
                out.clear();
                continue;
            }
        }
        if rest.starts_with("(anonymous namespace)") {
            out.push_str("(anonymous namespace)");
            i += "(anonymous namespace)".len();
            continue;
        }
        match b[i] {
            b'<' => i = skip_balanced(b, i),
            b'{' => {
                let end = skip_balanced(b, i);
                out.push_str(&full[i..end]);
                i = end;
            }
            b'(' => {
                i = skip_balanced(b, i);
                // A local entity (`f(int)::x`) goes on; otherwise the
                // qualifiers after the parameters end the name.
                match full[i..].find("::") {
                    Some(p) if !full[i..i + p].contains('(') => i += p,
                    _ => break,
                }
            }
            b' ' if b.get(i + 1) == Some(&b'<') => i += 1,
            b' ' => {
                // What came before was the return type.
                out.clear();
                i += 1;
            }
            _ => {
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    // A shape this does not know must not leave a name empty.
    if out.is_empty() {
        return full.to_string();
    }
    out
}

/// The short form of a display name, as `--demangle simple` would draw
/// it and without the suffix that tells namesakes apart: `ns::Box::get`
/// for `int ns::Box<int>::get() const [a.cpp]`. Module tables, `--keep`
/// and `--focus` match it when the full name does not match.
pub fn short_form(name: &str) -> String {
    simplify(name.split(" [").next().unwrap_or(name))
}

/// `text` without its template argument lists (`<...>`, balanced), for a
/// conversion operator's type; operator tokens (`operator<<=`) and
/// `operator< <int>`'s list, which the caller handles, pass unchanged.
fn without_templates(text: &str) -> String {
    if !text.starts_with("operator ") {
        return text.to_string();
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'<' {
            i = skip_balanced(b, i);
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out.trim_end().to_string()
}

/// Whether the byte before `i` continues an identifier (`myoperator`).
fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The length of the operator token after the word `operator`:
/// `()`, `<<=`, `"" _km`, ` new[]`, ` bool`, ` std::string`.
fn operator_len(s: &str) -> usize {
    if s.starts_with("()") || s.starts_with("[]") {
        return 2;
    }
    if let Some(rest) = s.strip_prefix("\"\" ") {
        return 3 + rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
    }
    if s.starts_with(' ') {
        // Conversion, new, delete: up to the parameter list.
        return s.find('(').unwrap_or(s.len());
    }
    OPERATORS
        .iter()
        .find(|op| s.starts_with(*op))
        .map_or(0, |op| op.len())
}

/// Operator symbols, longest first (`operator!=<T>` is `!=` then `<T>`).
const OPERATORS: &[&str] = &[
    "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "->", "+", "-", "*", "/", "%", "^", "&", "|", "~",
    "!", "=", "<", ">", ",",
];

/// The index after the bracket that closes the one at `open`.
/// Where the parenthesised expression at `open` ends: only parentheses
/// count, since an expression's `<`, `<=` and `<<` open nothing.
fn skip_parens(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

fn skip_balanced(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'<' | b'(' | b'{' | b'[' => depth += 1,
            b'>' | b')' | b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(raw: &str) -> String {
        demangle(raw, Demangle::Full)
    }

    #[test]
    fn c_names_that_look_like_type_codes_stay_as_they_are() {
        for name in ["a", "b", "c", "d", "e", "main", "Z"] {
            for style in [Demangle::Full, Demangle::Simple, Demangle::None] {
                assert_eq!(demangle(name, style), name);
            }
        }
    }

    #[test]
    fn cpp_names_demangle_like_nm() {
        assert_eq!(
            full("_ZN12_GLOBAL__N_16helperEi"),
            "(anonymous namespace)::helper(int)"
        );
        assert_eq!(
            full("_ZZ4mainENKUliE_clEi"),
            "main::{lambda(int)#1}::operator()(int) const"
        );
        assert_eq!(full("_Zli3_kmy"), "operator\"\" _km(unsigned long long)");
        // cpp_demangle 0.5 got these wrong (issue 9).
        assert_eq!(
            full("_ZNKSi6gcountEv"),
            "std::istream::gcount() const",
            "abbreviations stay short, as in nm -C"
        );
        assert_eq!(
            full(
                "_ZNK10__cxxabiv120__si_class_type_info11__do_upcastEPKNS_17__class_type_infoEPKvRNS1_15__upcast_resultE"
            ),
            "__cxxabiv1::__si_class_type_info::__do_upcast(__cxxabiv1::__class_type_info const*, \
             void const*, __cxxabiv1::__class_type_info::__upcast_result&) const"
        );
        assert_eq!(full("_Z3fooILm0EEvv"), "void foo<0ul>()");
        assert_eq!(full("_Zbogus"), "_Zbogus");
    }

    #[test]
    fn rust_names_demangle_like_nm() {
        // Legacy names keep their hash and v0 names their crate
        // disambiguator, as in nm -C.
        assert_eq!(
            full("_ZN4core3fmt5write17h0123456789abcdefE"),
            "core::fmt::write::h0123456789abcdef"
        );
        assert_eq!(full("_RNvCs1234_7mycrate3foo"), "mycrate[3c1c0]::foo");
    }

    #[test]
    fn none_keeps_linkage_names() {
        assert_eq!(demangle("_Z3fooi", Demangle::None), "_Z3fooi");
    }

    #[test]
    fn simple_drops_return_type_templates_and_parameters() {
        let cases = [
            ("int ns::twice<int>(int)", "ns::twice"),
            ("ns::Box<int>::get() const", "ns::Box::get"),
            (
                "(anonymous namespace)::helper(int)",
                "(anonymous namespace)::helper",
            ),
            (
                "main::{lambda(int)#1}::operator()(int) const",
                "main::{lambda#1}::operator()",
            ),
            (
                "re2::RE2::Set::Compile(re2::Prog**)::{lambda(std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, re2::Regexp*> const&, std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, re2::Regexp*> const&)#1}::operator()(std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, re2::Regexp*> const&, std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, re2::Regexp*> const&) const",
                "re2::RE2::Set::Compile::{lambda#1}::operator()",
            ),
            (
                "f()::{lambda()#2}::operator()() const",
                "f::{lambda#2}::operator()",
            ),
            ("g()::{unnamed type#1}::run()", "g::{unnamed type#1}::run"),
            (
                "TLS wrapper function for re2::hooks::context",
                "TLS wrapper function for re2::hooks::context",
            ),
            (
                "non-virtual thunk to ns::Derived::run(int)",
                "non-virtual thunk to ns::Derived::run",
            ),
            (
                "re2::StringPiece::operator std::basic_string_view<char, std::char_traits<char> >() const",
                "re2::StringPiece::operator std::basic_string_view",
            ),
            (
                "ns::Wrap<int>::operator std::vector<int, std::allocator<int> > const&() const",
                "ns::Wrap::operator std::vector const&",
            ),
            (
                "ns::operator<<(ns::Printer&, ns::Point const&)",
                "ns::operator<<",
            ),
            (
                "bool ns::operator< <int>(ns::Box<int> const&)",
                "ns::operator<",
            ),
            ("operator\"\" _km(unsigned long long)", "operator\"\" _km"),
            (
                "ns::Point::operator bool() const",
                "ns::Point::operator bool",
            ),
            ("f(int)::Local::run()", "f::Local::run"),
            (
                "std::vector<int, std::allocator<int> >::~vector()",
                "std::vector::~vector",
            ),
            ("main", "main"),
            // `auto f() -> decltype(...)`: harfbuzz's dispatchers.
            (
                "decltype (({parm#1}.run)()) ns::Ctx::call<ns::Job>(ns::Job const&)",
                "ns::Ctx::call",
            ),
            (
                "decltype ({parm#2}({parm#1})) operator|<int, Pipe>(int const&, Pipe const&)",
                "operator|",
            ),
            ("decltype(f()) ns::g<int>(int)", "ns::g"),
            ("ns::my_decltype(int)", "ns::my_decltype"),
            // An expression's `<=` or `<<` opens no template list.
            (
                "decltype (({parm#1}<={parm#2})?{parm#1} : {parm#2}) ._anon_2::operator()<unsigned int&, unsigned int&>(unsigned int&, unsigned int&) const",
                "._anon_2::operator()",
            ),
            ("decltype ({parm#1}<<(2)) ns::shl<int>(int)", "ns::shl"),
            (
                "bool __gnu_cxx::operator!=<double*, std::vector<double> >(int const&)",
                "__gnu_cxx::operator!=",
            ),
            (
                "long __gnu_cxx::operator-<double*>(int const&)",
                "__gnu_cxx::operator-",
            ),
            ("X::operator<<=(int)", "X::operator<<="),
            ("X::operator->() const", "X::operator->"),
        ];
        for (full, simple) in cases {
            assert_eq!(simplify(full), simple, "{full}");
        }
    }
}
