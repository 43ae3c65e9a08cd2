//! One run, three ways off the board: the printer firmware (fax pattern)
//! dumps `calltrace_buffer` by semihosting, then through a write callback
//! into UART0 (QEMU `-serial file:`), then stops at `board_done` where
//! GDB (`gdb-multiarch`, QEMU's gdbstub on a pipe, like `-s -S` without a
//! port to collide on) dumps the buffer from memory. All three read to the
//! same call counts; they are the same bytes.

use super::*;

/// The fax pattern's job file.
fn fax() -> String {
    root().join("testdata/printer/patterns/fax.job").display().to_string()
}

/// Checks that `other` reads as the semihosting dump `semi` does.
#[track_caller]
fn reads_the_same(elf: &Path, semi: &Path, other: &Path) {
    let (want, _) = read_graph(elf, semi, &[]);
    let (got, _) = read_graph(elf, other, &[]);
    assert!(want.len() > 10, "{want:?}");
    assert_eq!(got, want, "{} (left) and the semihosting dump", other.display());
    let bytes = |p: &Path| std::fs::read(p).expect("read a dump");
    assert!(bytes(other) == bytes(semi), "{} holds the same bytes", other.display());
}

#[test]
fn a_dump_through_the_uart_reads_as_the_semihosting_dump_of_the_same_run() {
    if !have_tools() {
        return;
    }
    let elf = printer::firmware();
    let dir = fresh_dir("board", "uart");
    let run = qemu_ok(elf, &dir, &["semi:semi.bin,uart", &fax()], &["-serial", "file:uart.bin"]);
    assert!(run.stdout.starts_with("fax: line 17 released\n"), "{}", run.stdout);
    reads_the_same(elf, &dir.join("semi.bin"), &dir.join("uart.bin"));
}

#[test]
fn a_gdb_dump_reads_as_the_semihosting_dump_of_the_same_run() {
    if !have_tools() || tool("gdb-multiarch").is_none() {
        return;
    }
    let elf = printer::firmware();
    let dir = fresh_dir("board", "gdb");
    let qemu = format!(
        "target remote | exec {QEMU} -M mps2-an385 -display none -monitor none -serial none \
         -chardev file,id=con,path=console.txt \
         -semihosting-config enable=on,target=native,chardev=con \
         -icount shift=4,sleep=off -kernel {} -append 'semi:semi.bin {}' -gdb stdio -S",
        elf.display(),
        fax()
    );
    let dump = "dump binary memory gdb.bin &calltrace_buffer \
                ((char *)&calltrace_buffer) + sizeof(calltrace_buffer)";
    let out = output_within(
        Command::new("gdb-multiarch")
            .current_dir(&dir)
            .args(["-batch", "-nx", "-ex", &qemu])
            .args(["-ex", "break board_done", "-ex", "continue", "-ex", dump, "-ex", "kill"])
            .arg(elf),
        60,
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("Breakpoint 1, board_done"), "{said}");
    let console = std::fs::read_to_string(dir.join("console.txt")).expect("the console");
    assert!(console.starts_with("fax: line 17 released\n"), "{console}");
    reads_the_same(elf, &dir.join("semi.bin"), &dir.join("gdb.bin"));
}
