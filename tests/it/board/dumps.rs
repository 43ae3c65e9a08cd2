//! One run, three ways off the board: the printer firmware (fax pattern)
//! dumps `calltrace_buffer` by semihosting, then through a write callback
//! into UART0 (QEMU `-serial file:`), then stops at `board_done` where
//! GDB (`gdb-multiarch`, QEMU's gdbstub on a socket file, like `-s -S`
//! without a port to collide on) dumps the buffer from memory. All three read to the
//! same call counts; they are the same bytes.

use super::*;

/// The fax pattern's job file.
fn fax() -> String {
    root()
        .join("testdata/printer/patterns/fax.job")
        .display()
        .to_string()
}

/// Checks that `other` reads as the semihosting dump `semi` does.
#[track_caller]
fn reads_the_same(elf: &Path, semi: &Path, other: &Path) {
    let (want, _) = read_graph(elf, semi, &[]);
    let (got, _) = read_graph(elf, other, &[]);
    assert!(want.len() > 10, "{want:?}");
    assert_eq!(
        got,
        want,
        "{} (left) and the semihosting dump",
        other.display()
    );
    let bytes = |p: &Path| std::fs::read(p).expect("read a dump");
    assert!(
        bytes(other) == bytes(semi),
        "{} holds the same bytes",
        other.display()
    );
}

#[test]
fn a_dump_through_the_uart_reads_as_the_semihosting_dump_of_the_same_run() {
    if !have_tools() {
        return;
    }
    let elf = printer::firmware();
    let dir = fresh_dir("board", "uart");
    let run = qemu_ok(
        elf,
        &dir,
        &["semi:semi.bin,uart", &fax()],
        &["-serial", "file:uart.bin"],
    );
    assert!(
        run.stdout.starts_with("fax: line 17 released\n"),
        "{}",
        run.stdout
    );
    reads_the_same(elf, &dir.join("semi.bin"), &dir.join("uart.bin"));
}

#[test]
fn a_gdb_dump_reads_as_the_semihosting_dump_of_the_same_run() {
    if !have_tools() || tool("gdb-multiarch").is_none() {
        return;
    }
    let elf = printer::firmware();
    let dir = fresh_dir("board", "gdb");
    // `-s -S`, on a socket of our own instead of the shared port 1234
    let mut cmd = qemu_command(elf, &dir, &["semi:semi.bin", &fax()]);
    let child = cmd
        .stdin(std::process::Stdio::null())
        .args(["-chardev", "socket,id=gdb,path=gdb.sock,server=on,wait=off"])
        .args(["-gdb", "chardev:gdb", "-S"])
        .stdout(std::fs::File::create(dir.join("stdout.txt")).expect("create stdout.txt"))
        .stderr(std::fs::File::create(dir.join("stderr.txt")).expect("create stderr.txt"))
        .spawn()
        .expect("start QEMU");
    let qemu = KillOnDrop(child);
    wait_for(&dir.join("gdb.sock"));
    let dump = "dump binary memory gdb.bin &calltrace_buffer \
                ((char *)&calltrace_buffer) + sizeof(calltrace_buffer)";
    let out = output_within(
        Command::new("gdb-multiarch")
            .current_dir(&dir)
            .args(["-batch", "-nx", "-ex", "target remote gdb.sock"])
            .args([
                "-ex",
                "break board_done",
                "-ex",
                "continue",
                "-ex",
                dump,
                "-ex",
                "detach",
            ])
            .arg(elf),
        60,
    );
    // gdb's status is 1: the firmware exits right after the detach, and
    // the remote link with it
    let said = String::from_utf8_lossy(&out.stdout);
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("Breakpoint 1, board_done"), "{said}{why}");
    let status = wait_within(qemu, 60);
    let stdout = std::fs::read_to_string(dir.join("stdout.txt")).expect("QEMU's stdout");
    assert_eq!(status, Some(0), "{stdout}");
    assert!(stdout.starts_with("fax: line 17 released\n"), "{stdout}");
    reads_the_same(elf, &dir.join("semi.bin"), &dir.join("gdb.bin"));
}

/// Kills the child process it holds when dropped (a failed test).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits up to 10 s for `path` to appear.
#[track_caller]
fn wait_for(path: &Path) {
    for _ in 0..1000 {
        if path.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} did not appear", path.display());
}

/// The exit status of the child, waited for up to `secs` (then killed).
fn wait_within(mut child: KillOnDrop, secs: u64) -> Option<i32> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if let Some(status) = child.0.try_wait().expect("wait for QEMU") {
            return status.code();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("QEMU did not exit within {secs} s");
}
