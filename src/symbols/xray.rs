//! The source of an LLVM XRay log's names (`ingest::xray`): the log gives
//! function ids, and the binary's `xray_instr_map` section says which
//! function each id is. The section lists the instrumentation sleds, 32
//! bytes each in a 64-bit object (16 in a 32-bit one): the sled's address,
//! its function's address, kind, always-instrument and version bytes.
//! Ids count the functions from 1 in sled order, a new id whenever the
//! function changes (LLVM's `lib/XRay/InstrumentationMap.cpp`, which
//! repeats the runtime's numbering). Version 2 sleds (clang 13 on) hold
//! their addresses relative to the field; older ones hold them absolute,
//! left 0 in a PIE for a relative relocation to fill in. The function's
//! address is then named in the binary like any other (`name_one`).

use std::collections::HashMap;
use std::path::Path;

use object::{Object as _, ObjectSection, RelocationFlags};

use super::distinct::Identity;
use super::objects::Object;
use super::source::{Naming, Place, SymbolSource, name_one};
use super::{FuncInfo, ResolveStats};
use crate::error::{Error, Result};

/// The section that maps ids to functions.
const SECTION: &str = "xray_instr_map";

/// The binary and the function address of each id (`functions[id - 1]`).
pub(super) struct XRay {
    obj: Object,
    /// The binary, for messages.
    path: std::path::PathBuf,
    functions: Vec<u64>,
    /// The log's ids that the map does not have.
    unknown: usize,
    /// Warnings from opening the binary.
    warnings: Vec<String>,
}

/// The error for an XRay log read without its program.
pub(super) fn no_binary() -> Error {
    Error::Input(
        "the trace is an LLVM XRay log, whose functions are numbers that only the \
         instrumented program's xray_instr_map names: give that program as BINARY \
         (`calltrace graph ./PROGRAM --trace xray-log.PROGRAM.XXXXXX`)"
            .to_string(),
    )
}

impl XRay {
    /// Opens `binary` and reads its map; `ids` are the log's function ids.
    pub(super) fn open(binary: &Path, ids: &[u64], stats: &mut ResolveStats) -> Result<XRay> {
        let mut warnings = Vec::new();
        let obj = Object::open(binary, true, &mut warnings)?;
        let data = std::fs::read(binary).map_err(|e| Error::io(binary, e))?;
        let functions = instr_map(&data).map_err(|e| {
            Error::Input(format!(
                "{}: {e}; an XRay log is named from the program built with \
                 `clang -fxray-instrument` that wrote it",
                binary.display()
            ))
        })?;
        let unknown = ids
            .iter()
            .filter(|&&id| function(&functions, id).is_none())
            .count();
        if unknown == ids.len() && !ids.is_empty() {
            return Err(Error::Input(format!(
                "trace does not match binary {}: none of the log's {} function id(s) is one of \
                 the {} functions of its xray_instr_map (is this the program that wrote the log?)",
                binary.display(),
                ids.len(),
                functions.len()
            )));
        }
        stats.bias = 0;
        Ok(XRay {
            obj,
            path: binary.to_path_buf(),
            functions,
            unknown,
            warnings,
        })
    }
}

/// The address of function `id` (ids count from 1).
fn function(functions: &[u64], id: u64) -> Option<u64> {
    let i = usize::try_from(id.checked_sub(1)?).ok()?;
    functions.get(i).copied()
}

impl SymbolSource for XRay {
    fn place(&mut self, _func: usize, id: u64) -> Option<Place> {
        function(&self.functions, id).map(|addr| Place {
            object: 0,
            at: 0,
            offset: addr,
        })
    }

    fn name(
        &mut self,
        place: Place,
        _id: u64,
        naming: &mut Naming,
    ) -> (FuncInfo, Option<Identity>) {
        name_one(&self.obj, 0, place.offset, place.offset, naming)
    }

    fn finish(&mut self, _ids: &[Option<Identity>], naming: &mut Naming) -> Result<()> {
        naming.stats.warnings.append(&mut self.warnings);
        if self.unknown > 0 {
            naming.stats.warnings.push(format!(
                "{} function id(s) of the XRay log are not in {}'s xray_instr_map and keep \
                 their ids, in hex, for names (was the program rebuilt after the run?)",
                self.unknown,
                self.path.display()
            ));
        }
        Ok(())
    }
}

/// The function address of each id, from the ELF file `data`.
fn instr_map(data: &[u8]) -> std::result::Result<Vec<u64>, String> {
    let file = object::File::parse(data).map_err(|e| format!("not an ELF file ({e})"))?;
    let section = file
        .section_by_name(SECTION)
        .ok_or_else(|| format!("has no {SECTION} section"))?;
    let bytes = section
        .data()
        .map_err(|e| format!("cannot read its {SECTION} section ({e})"))?;
    let word = if file.is_64() { 8 } else { 4 };
    let entry = 4 * word;
    if bytes.len() % entry != 0 || !file.is_little_endian() {
        return Err(format!(
            "its {SECTION} section is not a little-endian list of {entry}-byte sleds"
        ));
    }
    let relocs = relative_relocations(&file);
    let mut functions = Vec::new();
    for (i, sled) in bytes.chunks_exact(entry).enumerate() {
        let at = section.address() + (i * entry) as u64;
        let f = sled_function(sled, word, at, &relocs);
        if functions.last() != Some(&f) {
            functions.push(f);
        }
    }
    Ok(functions)
}

/// The function address of the sled `sled` at address `at`.
fn sled_function(sled: &[u8], word: usize, at: u64, relocs: &HashMap<u64, u64>) -> u64 {
    let field = &sled[word..2 * word];
    let raw = match word {
        8 => u64::from_le_bytes(field.try_into().expect("8 bytes")),
        _ => u64::from(u32::from_le_bytes(field.try_into().expect("4 bytes"))),
    };
    let version = sled[2 * word + 2];
    let field_at = at + word as u64;
    if version >= 2 {
        // Relative to the field, in the word's width.
        let rel = if word == 8 {
            raw
        } else {
            raw as u32 as i32 as i64 as u64
        };
        return field_at.wrapping_add(rel) & mask(word);
    }
    match raw {
        0 => relocs.get(&field_at).copied().unwrap_or(0),
        a => a,
    }
}

fn mask(word: usize) -> u64 {
    if word == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    }
}

/// The addends of the dynamic relative relocations, by the address they
/// fill in: where an old PIE's map finds its addresses.
fn relative_relocations(file: &object::File) -> HashMap<u64, u64> {
    use object::elf;
    let relative = match file.architecture() {
        object::Architecture::X86_64 => elf::R_X86_64_RELATIVE,
        object::Architecture::Aarch64 => elf::R_AARCH64_RELATIVE,
        object::Architecture::Riscv64 => elf::R_RISCV_RELATIVE,
        object::Architecture::Arm => elf::R_ARM_RELATIVE,
        object::Architecture::I386 => elf::R_386_RELATIVE,
        _ => return HashMap::new(),
    };
    let Some(relocs) = file.dynamic_relocations() else {
        return HashMap::new();
    };
    relocs
        .filter(|(_, r)| matches!(r.flags(), RelocationFlags::Elf { r_type } if r_type == relative))
        .map(|(at, r)| (at, r.addend() as u64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-bit sled of `version` at `at` whose function field holds `raw`.
    fn sled(raw: u64, version: u8) -> Vec<u8> {
        let mut s = vec![0u8; 32];
        s[8..16].copy_from_slice(&raw.to_le_bytes());
        s[18] = version;
        s
    }

    #[test]
    fn version_2_sleds_are_relative_to_their_field_and_old_ones_absolute_or_relocated() {
        let none = HashMap::new();
        // The field at 0x28b70 holds -0x6e30: the function at 0x21d40.
        let rel = sled(0u64.wrapping_sub(0x6e30), 2);
        assert_eq!(sled_function(&rel, 8, 0x28b68, &none), 0x21d40);
        assert_eq!(
            sled_function(&sled(0x401136, 1), 8, 0x5000, &none),
            0x401136
        );
        let relocs = HashMap::from([(0x5008, 0x1139)]);
        assert_eq!(sled_function(&sled(0, 1), 8, 0x5000, &relocs), 0x1139);
    }

    #[test]
    fn a_32_bit_objects_sleds_hold_4_byte_fields() {
        // 16-byte sled at 0x2000: function field at 0x2004 holds -0x1004.
        let mut s = vec![0u8; 16];
        s[4..8].copy_from_slice(&(-0x1004i32).to_le_bytes());
        s[10] = 2;
        assert_eq!(sled_function(&s, 4, 0x2000, &HashMap::new()), 0x1000);
        s[4..8].copy_from_slice(&0x8000u32.to_le_bytes());
        s[10] = 0;
        assert_eq!(sled_function(&s, 4, 0x2000, &HashMap::new()), 0x8000);
    }

    #[test]
    fn ids_count_from_one_and_zero_or_past_the_end_is_none() {
        let f = [0x10, 0x20];
        assert_eq!(function(&f, 1), Some(0x10));
        assert_eq!(function(&f, 2), Some(0x20));
        assert_eq!(function(&f, 0), None);
        assert_eq!(function(&f, 3), None);
        assert_eq!(function(&f, u64::MAX), None);
    }

    #[test]
    fn a_file_that_is_not_elf_or_lacks_the_map_says_so() {
        assert!(
            instr_map(b"not elf")
                .unwrap_err()
                .contains("not an ELF file")
        );
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(exe).unwrap();
        assert!(
            instr_map(&data)
                .unwrap_err()
                .contains("has no xray_instr_map")
        );
    }
}
