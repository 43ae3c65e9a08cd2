//! The integration tests: one test binary (fast to link, one place to look),
//! with a module per topic under `tests/it/`. They run the real `calltrace`
//! binary on traces of real C and C++ programs, compiled here with
//! `gcc -g -finstrument-functions` and the bundled runtime, and on the
//! hand-written traces and golden outputs in `tests/data/`
//! (`CALLTRACE_BLESS=1 cargo test` rewrites the goldens).

mod it {
    pub mod util;

    mod abstraction;
    mod arch;
    mod bench;
    mod board;
    mod cancel;
    mod clang;
    mod cli;
    mod compare;
    mod config_flags;
    mod context_paths;
    mod coverage;
    mod coverage_names;
    mod dataset_files;
    mod debug_files;
    mod defaults;
    mod diff;
    mod diff_noise;
    mod errors;
    mod export;
    mod export_edges;
    mod filter_parallel;
    mod filters;
    mod first_use;
    mod formats;
    mod freestanding_read;
    mod freestanding_runtime;
    mod front_door;
    mod fuzz;
    mod golden;
    mod hostile;
    mod hostile_limits;
    mod house;
    mod info;
    mod live;
    mod live_follow;
    mod lua;
    mod memory;
    mod mistakes;
    mod naming;
    mod object_flag;
    mod outputs_once;
    mod parquet_export;
    mod perf_map;
    mod processes;
    mod programs;
    mod protobuf_export;
    mod report_html;
    mod roundtrip;
    mod rules;
    mod runtime;
    mod runtime_clang;
    mod runtime_maps;
    mod runtime_progress;
    mod safety;
    mod scaling;
    mod stats;
    mod symbols;
    mod thumb;
    mod tlv;
    mod uftrace_data;
    mod uftrace_files;
    mod view;
    mod xray;
}
