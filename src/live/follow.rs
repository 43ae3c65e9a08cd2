//! Following a trace while it is written, like `tail -f`: a thread reads
//! the file (or FIFO) as it grows and hands complete lines to the view
//! through a channel. A regular file that does not exist yet is waited for;
//! one that shrinks (the program restarted and truncated it) is read again
//! from the start. A FIFO ends when its writer closes it.

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

/// What the reading thread reports.
#[derive(Debug, PartialEq, Eq)]
pub enum Msg {
    /// Complete lines, newline included.
    Lines(Vec<u8>),
    /// The file was truncated: what was read before is gone.
    Restart,
    /// The writer closed the FIFO; nothing more will come.
    Ended,
    /// Reading failed.
    Failed(String),
}

/// How long the reader sleeps when there is nothing new.
const IDLE: Duration = Duration::from_millis(50);

/// Messages in flight at most (of up to 64 KiB each): when the view falls
/// behind, the reader waits, and so does the program writing a FIFO.
const IN_FLIGHT: usize = 64;

/// Starts following `path`; messages arrive on the returned channel.
pub fn follow(path: &Path) -> Receiver<Msg> {
    let (tx, rx) = sync_channel(IN_FLIGHT);
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        if let Err(e) = run(&path, &tx) {
            let _ = tx.send(Msg::Failed(format!("{}: {e}", path.display())));
        }
    });
    rx
}

fn run(path: &PathBuf, tx: &SyncSender<Msg>) -> std::io::Result<()> {
    let mut file = open_when_present(path, tx)?;
    let fifo = file.metadata()?.file_type().is_fifo();
    let mut pending = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n > 0 {
            pos += n as u64;
            pending.extend_from_slice(&buf[..n]);
            if let Some(end) = memchr::memrchr(b'\n', &pending) {
                let rest = pending.split_off(end + 1);
                let lines = std::mem::replace(&mut pending, rest);
                if tx.send(Msg::Lines(lines)).is_err() {
                    return Ok(());
                }
            }
            continue;
        }
        if fifo {
            let _ = tx.send(Msg::Ended);
            return Ok(());
        }
        std::thread::sleep(IDLE);
        if std::fs::metadata(path).is_ok_and(|m| m.len() < pos) {
            file.seek(SeekFrom::Start(0))?;
            (pos, pending) = (0, Vec::new());
            if tx.send(Msg::Restart).is_err() {
                return Ok(());
            }
        }
    }
}

/// Opens `path`, waiting while it does not exist (the program has not started).
fn open_when_present(path: &Path, tx: &SyncSender<Msg>) -> std::io::Result<File> {
    loop {
        match File::open(path) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                // Stop waiting once the view is gone.
                if tx.send(Msg::Lines(Vec::new())).is_err() {
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

    fn next_lines(rx: &Receiver<Msg>) -> Msg {
        loop {
            match rx.recv_timeout(Duration::from_secs(5)).expect("a message") {
                Msg::Lines(l) if l.is_empty() => continue,
                m => return m,
            }
        }
    }

    #[test]
    fn hands_over_complete_lines_as_the_file_grows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        let rx = follow(&path);
        let mut f = File::create(&path).unwrap();
        f.write_all(b"E main 1 1\nX ma").unwrap();
        f.flush().unwrap();
        assert_eq!(next_lines(&rx), Msg::Lines(b"E main 1 1\n".to_vec()));
        f.write_all(b"in 2 1\n").unwrap();
        assert_eq!(next_lines(&rx), Msg::Lines(b"X main 2 1\n".to_vec()));
        drop(f);
        std::fs::write(&path, b"E a\n").unwrap();
        assert_eq!(next_lines(&rx), Msg::Restart);
        assert_eq!(next_lines(&rx), Msg::Lines(b"E a\n".to_vec()));
    }
}
