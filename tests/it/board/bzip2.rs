//! A third-party C library on the Cortex-M3: bzip2 (from the bzip2-sys
//! crate's sources) compresses and decompresses a generated buffer with
//! `testdata/arch/bzbuf.c`, at -O2 as a real firmware would be built, and
//! makes the calls its x86-64 build makes.

use std::path::PathBuf;

use super::*;

/// bzip2's library sources and the driver.
fn sources() -> (PathBuf, Vec<PathBuf>) {
    let bz = third_party("bzip2");
    let mut v: Vec<PathBuf> = [
        "blocksort.c",
        "huffman.c",
        "crctable.c",
        "randtable.c",
        "compress.c",
        "decompress.c",
        "bzlib.c",
    ]
    .iter()
    .map(|f| bz.join(f))
    .collect();
    v.push(root().join("testdata/arch/bzbuf.c"));
    (bz, v)
}

#[test]
fn bzip2_compressing_a_buffer_on_the_cortex_m3_makes_the_calls_of_x86_64() {
    if !have_tools() {
        return;
    }
    let (bz, files) = sources();
    let include = format!("-I{}", bz.display());
    let dir = fresh_dir("board", "bzip2-x86");
    // the two builds in parallel: they are most of this test's time
    let (elf, exe) = std::thread::scope(|s| {
        let x86 = s.spawn(|| build_x86(&dir, "bzip2", &files, &["-O2", &include]));
        let elf = build_firmware(&Recipe {
            name: "bzip2",
            sources: files.clone(),
            flags: vec![include.clone()],
            opt: "-O2",
            runtime: vec!["-DCALLTRACE_EVENTS=131072".into()],
            ..Recipe::default()
        });
        (elf, x86.join().expect("the x86-64 build"))
    });
    let fw_dir = elf.parent().expect("the firmware's directory");
    let run = qemu_ok(&elf, fw_dir, &["semi:bzip2.bin", "20000"], &[]);
    assert_eq!(run.stdout, "20000 -> 7856 -> 20000 same\n");
    let trace = dir.join("bzip2.txt");
    let out = output_within(
        Command::new(&exe).arg("20000").env("CALLTRACE_OUT", &trace),
        60,
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), run.stdout);

    let x86 = graph(exe.to_str().unwrap(), &trace).edges();
    let (m3, _) = read_graph(&elf, &fw_dir.join("bzip2.bin"), &[]);
    assert_eq!(m3, x86, "call counts, Cortex-M3 (left) and x86-64");
    let calls: u64 = m3.iter().map(|e| e.2).sum();
    assert!(calls > 40_000, "{calls} calls");
}
