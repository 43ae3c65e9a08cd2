//! The bytes of one input: a memory-mapped file, or standard input read
//! whole (`-`). Formats parse from a byte slice so they can scan with
//! `memchr` and, for big files, split the work into chunks.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

use crate::error::{Error, Result};

/// An input trace held in memory (mapped or read).
pub struct Input {
    name: String,
    data: Data,
}

enum Data {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Input {
    /// Opens `path`, or standard input when `path` is `-`.
    pub fn open(path: &Path) -> Result<Input> {
        if path.as_os_str() == "-" {
            let name = "<stdin>".to_string();
            let mut buf = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut buf)
                .map_err(|e| Error::io("<stdin>", e))?;
            return Ok(Input {
                name,
                data: Data::Owned(buf),
            });
        }
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len == 0 {
            return Ok(Input::from_bytes(&name, Vec::new()));
        }
        // SAFETY: the map is read-only; a trace modified while we read it can
        // give wrong results but not undefined behaviour beyond what any
        // reader of a changing file sees (documented limitation).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        Ok(Input {
            name,
            data: Data::Mapped(map),
        })
    }

    /// Wraps bytes already in memory (tests, generated traces).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Input {
        Input {
            name: name.to_string(),
            data: Data::Owned(bytes),
        }
    }

    /// The name used in messages (the path as given, `<stdin>` for `-`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The first `n` bytes (or fewer), for sniffing.
    pub fn head(&self, n: usize) -> &[u8] {
        &self[..n.min(self.len())]
    }
}

impl Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        }
    }
}
