use super::assigned::system_library;
use super::*;

fn module_of(globs: &str, name: &str) -> Option<String> {
    let t = ModuleTable::parse("m.csv", globs).unwrap();
    t.module_of(name).map(str::to_string)
}

#[test]
fn system_headers_are_one_module_per_library() {
    let cases = [
        (
            "/usr/include/c++/12/bits/stl_vector.h",
            "/usr/include/c++/12",
        ),
        (
            "/usr/include/c++/12/ext/new_allocator.h",
            "/usr/include/c++/12",
        ),
        (
            "/opt/gcc-14/include/c++/14.1.0/tuple",
            "/opt/gcc-14/include/c++/14.1.0",
        ),
        (
            "/usr/include/x86_64-linux-gnu/bits/byteswap.h",
            "/usr/include",
        ),
        (
            "/usr/lib/gcc/x86_64-linux-gnu/12/include/xmmintrin.h",
            "/usr/lib/gcc/x86_64-linux-gnu/12/include",
        ),
        ("/usr/local/include/zlib.h", "/usr/local/include"),
    ];
    for (file, library) in cases {
        assert_eq!(system_library(file).as_deref(), Some(library), "{file}");
        assert_eq!(source_file_module(file), library);
        assert_eq!(source_dir_module(file), library);
    }
    assert_eq!(system_library("/home/me/re2/re2/re2.cc"), None);
    assert_eq!(source_file_module("re2/re2.cc"), "re2/re2.cc");
    assert_eq!(source_dir_module("re2/re2.cc"), "re2");
    assert_eq!(source_dir_module("/usr/src/app/main.c"), "/usr/src/app");
}

#[test]
fn globs_match() {
    assert_eq!(module_of("lua_*,l", "lua_call").as_deref(), Some("l"));
    assert_eq!(module_of("*_area,a", "rect_area").as_deref(), Some("a"));
    assert_eq!(module_of("f?o*x,f", "fooBARx").as_deref(), Some("f"));
    assert_eq!(module_of("lua_*,l", "luaL_x"), None);
    assert_eq!(module_of("op*[],o", "operator[]").as_deref(), Some("o"));
    assert_eq!(module_of("op*[],o", "operatorx"), None);
    assert_eq!(module_of("a\\*,o", "a\\b").as_deref(), Some("o"));
    assert_eq!(module_of("ns::*,n", "ns::a/b").as_deref(), Some("n"));
}

#[test]
fn names_led_by_a_return_type_match_by_their_short_form() {
    let full = "bool OT::ArrayOf<OT::Record, OT::IntType<unsigned short, 2u> >::sanitize<>(hb_sanitize_context_t*) const";
    assert_eq!(module_of("OT::*,ot", full).as_deref(), Some("ot"));
    assert_eq!(
        module_of("OT::ArrayOf::sanitize,s", full).as_deref(),
        Some("s")
    );
    assert_eq!(module_of("bool *,b\nOT::*,ot", full).as_deref(), Some("b"));
    assert_eq!(module_of("hb::*,h", full), None);
    assert_eq!(
        module_of("read32,r", "read32 [lz4.c]").as_deref(),
        Some("r")
    );
}

#[test]
fn thousands_of_globs_cost_one_pass() {
    let table: String = (0..5000).map(|i| format!("fn{i}_*,m{i}\n")).collect();
    let t = ModuleTable::parse("big.csv", &table).unwrap();
    let start = std::time::Instant::now();
    for i in 0..5000 {
        assert_eq!(
            t.module_of(&format!("fn{i}_x")),
            Some(format!("m{i}").as_str())
        );
    }
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
}

#[test]
fn broken_quoting_is_located() {
    for (text, line, what) in [
        ("main,core\n\"foo,bar\n", 2, "unterminated quoted field"),
        ("main,core\nfo\"o,bar\n", 2, "found one inside column 1"),
        (
            "\"main\"x,core\n",
            1,
            "expected a closing quote in column 1",
        ),
    ] {
        let err = ModuleTable::parse("m.csv", text).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("m.csv:{line}: ")) && err.contains(what),
            "{err}"
        );
    }
    let ok = ModuleTable::parse("m.csv", "\"a,b\",core\n\"x\"\"y\",io\n").unwrap();
    assert_eq!(ok.module_of("a,b"), Some("core"));
    assert_eq!(ok.module_of("x\"y"), Some("io"));
}

#[test]
fn exact_beats_glob_and_first_glob_wins() {
    let t = ModuleTable::parse(
        "m.csv",
        "function,module\nraster_*,raster\nr*,other\nraster_fax,fax\n",
    )
    .unwrap();
    assert_eq!(t.module_of("raster_fax"), Some("fax"));
    assert_eq!(t.module_of("raster_line"), Some("raster"));
    assert_eq!(t.module_of("rest"), Some("other"));
    assert_eq!(t.module_of("main"), None);
}

#[test]
fn bad_rows_are_located() {
    let err = ModuleTable::parse("m.csv", "main,core\nfoo\n")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("m.csv:2: expected two columns"), "{err}");
    let err = ModuleTable::parse("m.csv", "main,core\nmain,io\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("m.csv:2:") && err.contains("already in module `core`"),
        "{err}"
    );
}

#[test]
fn unmatched_functions_are_unassigned() {
    let mut funcs = FuncTable::default();
    funcs.name("main");
    funcs.name("helper");
    let names = crate::symbols::names_without_binary(&funcs);
    let src = ModuleSource::Table(ModuleTable::parse("m", "main,core\n").unwrap());
    let m = src.assign(&funcs, &names).unwrap();
    assert_eq!(m.of, [NO_MODULE, 0, 1]);
    assert_eq!(m.names, ["core", UNASSIGNED]);
}
