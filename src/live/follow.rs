//! Following a trace while it is written, like `tail -f`: a thread reads
//! the file (or FIFO) as it grows, in reads of up to [`READ`] bytes, and
//! hands what it read to the parsing side through a channel, cut anywhere
//! (`pieces` makes whole lines or records of it). It reads ahead of the
//! parser by up to [`IN_FLIGHT`] reads, so that a program writing a FIFO
//! is held up only when the parser falls that far behind. A regular file
//! that does not exist yet is waited for; one that shrinks (the program
//! restarted and truncated it) is read again from the start. A FIFO ends
//! when its writer closes it; a regular file when asked (`--batch`) at its
//! end, else never.

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

/// What the reading thread reports.
#[derive(Debug, PartialEq, Eq)]
pub enum Msg {
    /// The next bytes of the trace.
    Bytes(Vec<u8>),
    /// The file was truncated: what was read before is gone.
    Restart,
    /// The writer closed the FIFO (or a file read to its end was asked
    /// for); nothing more will come.
    Ended,
    /// Reading failed.
    Failed(String),
}

/// How long the reader sleeps when there is nothing new.
const IDLE: Duration = Duration::from_millis(50);

/// The most one read takes, in bytes.
pub const READ: usize = 1 << 20;

/// Reads in flight at most: when the parser falls this far behind (64 MiB
/// at most), the reader waits, and so does the program writing a FIFO.
pub const IN_FLIGHT: usize = 64;

/// The reading thread's two channels: what it read, and buffers given back.
pub struct Follower {
    /// What the reader reports.
    pub rx: Receiver<Msg>,
    spares: SyncSender<Vec<u8>>,
}

impl Follower {
    /// Gives a [`Msg::Bytes`] buffer back to be read into again: a buffer
    /// that was used stays in memory, a new one is fresh pages to fault in.
    pub fn give_back(&self, buf: Vec<u8>) {
        let _ = self.spares.try_send(buf);
    }
}

/// Starts following `path`; messages arrive on the returned follower's
/// channel. With `to_end`, a regular file ends at its end instead of
/// being waited on.
pub fn follow(path: &Path, to_end: bool) -> Follower {
    let (tx, rx) = sync_channel(IN_FLIGHT);
    let (spares, spare_rx) = sync_channel(4);
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        if let Err(e) = run(&path, to_end, &tx, &spare_rx) {
            let _ = tx.send(Msg::Failed(format!("{}: {e}", path.display())));
        }
    });
    Follower { rx, spares }
}

fn run(
    path: &PathBuf,
    to_end: bool,
    tx: &SyncSender<Msg>,
    spares: &Receiver<Vec<u8>>,
) -> std::io::Result<()> {
    let mut file = open_when_present(path, tx)?;
    let fifo = file.metadata()?.file_type().is_fifo();
    if fifo {
        widen_pipe(&file);
    }
    let mut pos = 0u64;
    let mut buf = Vec::new();
    loop {
        if buf.len() < READ {
            buf = spares.try_recv().unwrap_or_default();
            buf.resize(READ, 0);
        }
        let n = read_some(&mut file, &mut buf)?;
        if n > 0 {
            pos += n as u64;
            buf.truncate(n);
            if tx.send(Msg::Bytes(std::mem::take(&mut buf))).is_err() {
                return Ok(());
            }
            continue;
        }
        if fifo || to_end {
            let _ = tx.send(Msg::Ended);
            return Ok(());
        }
        std::thread::sleep(IDLE);
        if std::fs::metadata(path).is_ok_and(|m| m.len() < pos) {
            file.seek(SeekFrom::Start(0))?;
            pos = 0;
            if tx.send(Msg::Restart).is_err() {
                return Ok(());
            }
        }
    }
}

/// Reads what is there into `buf`, going on while reads come back full
/// (a pipe gives at most its capacity per read): fewer, bigger messages.
fn read_some(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        if got > 0 && got < buf.len() / 2 {
            break; // the writer is slower than us: hand over what came
        }
    }
    Ok(got)
}

/// Asks for a pipe buffer of [`READ`] bytes (Linux caps it for
/// unprivileged users at `/proc/sys/fs/pipe-max-size`, 1 MiB by default):
/// the writer then blocks less often while the reader is between reads.
fn widen_pipe(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: F_SETPIPE_SZ on a descriptor we own; failure leaves the pipe as it was.
    unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETPIPE_SZ, READ as libc::c_int) };
}

/// Opens `path`, waiting while it does not exist (the program has not started).
fn open_when_present(path: &Path, tx: &SyncSender<Msg>) -> std::io::Result<File> {
    loop {
        match File::open(path) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                // Stop waiting once the view is gone.
                if tx.send(Msg::Bytes(Vec::new())).is_err() {
                    return Err(e);
                }
                std::thread::sleep(IDLE);
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn next_bytes(rx: &Receiver<Msg>) -> Msg {
        loop {
            match rx.recv_timeout(Duration::from_secs(5)).expect("a message") {
                Msg::Bytes(l) if l.is_empty() => continue,
                m => return m,
            }
        }
    }

    #[test]
    fn hands_over_what_the_file_grows_by() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        let rx = follow(&path, false).rx;
        let mut f = File::create(&path).unwrap();
        f.write_all(b"E main 1 1\nX ma").unwrap();
        f.flush().unwrap();
        assert_eq!(next_bytes(&rx), Msg::Bytes(b"E main 1 1\nX ma".to_vec()));
        f.write_all(b"in 2 1\n").unwrap();
        assert_eq!(next_bytes(&rx), Msg::Bytes(b"in 2 1\n".to_vec()));
        drop(f);
        std::fs::write(&path, b"E a\n").unwrap();
        assert_eq!(next_bytes(&rx), Msg::Restart);
        assert_eq!(next_bytes(&rx), Msg::Bytes(b"E a\n".to_vec()));
    }

    #[test]
    fn a_file_read_to_its_end_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        std::fs::write(&path, b"E a\n").unwrap();
        let rx = follow(&path, true).rx;
        assert_eq!(next_bytes(&rx), Msg::Bytes(b"E a\n".to_vec()));
        assert_eq!(next_bytes(&rx), Msg::Ended);
    }
}
