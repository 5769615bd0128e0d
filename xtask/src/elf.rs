//! The little of an ELF file the sizes table needs: the size of `.text`
//! and the shared libraries the program loads (`DT_NEEDED`).
//!
//! File sizes alone flatter a program that keeps its code in shared
//! libraries (GNU ls loads libselinux and libcap) and punish one that
//! carries symbols; `.text` and the library list say which is which.
//! Read from the section headers, which `strip` keeps: 64-bit
//! little-endian files only (x86_64, aarch64), None for anything else.

/// What the sizes table shows of one binary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Elf {
    /// Bytes of the `.text` section.
    pub text: u64,
    /// The `DT_NEEDED` libraries, e.g. `libc.so.6`.
    pub needed: Vec<String>,
}

struct Section {
    name: u32,
    offset: u64,
    size: u64,
}

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as u64)
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as u64)
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The NUL-terminated string at `at` in `b`.
fn c_str(b: &[u8], at: usize) -> Option<String> {
    let s = b.get(at..)?;
    let end = s.iter().position(|&c| c == 0)?;
    Some(String::from_utf8_lossy(&s[..end]).into_owned())
}

/// Parses the bytes of an ELF file.
pub fn parse(b: &[u8]) -> Option<Elf> {
    // ELFCLASS64, ELFDATA2LSB.
    if b.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let shoff = u64_at(b, 0x28)? as usize;
    let shentsize = u16_at(b, 0x3a)? as usize;
    let shnum = u16_at(b, 0x3c)? as usize;
    let shstrndx = u16_at(b, 0x3e)? as usize;
    let sections: Vec<Section> = (0..shnum)
        .map(|i| {
            let at = shoff + i * shentsize;
            Some(Section {
                name: u32_at(b, at)? as u32,
                offset: u64_at(b, at + 0x18)?,
                size: u64_at(b, at + 0x20)?,
            })
        })
        .collect::<Option<_>>()?;
    let names = sections.get(shstrndx)?;
    let named = |want: &str| {
        sections
            .iter()
            .find(|s| c_str(b, (names.offset + s.name as u64) as usize).as_deref() == Some(want))
    };
    let text = named(".text").map_or(0, |s| s.size);
    let mut needed = Vec::new();
    if let (Some(dynamic), Some(dynstr)) = (named(".dynamic"), named(".dynstr")) {
        for i in 0..(dynamic.size / 16) as usize {
            let at = dynamic.offset as usize + i * 16;
            match u64_at(b, at)? {
                0 => break,
                // DT_NEEDED: an offset into .dynstr.
                1 => needed.extend(c_str(b, (dynstr.offset + u64_at(b, at + 8)?) as usize)),
                _ => {}
            }
        }
    }
    Some(Elf { text, needed })
}

/// Reads and parses `path`; None if it cannot be read or is not a 64-bit
/// little-endian ELF file.
pub fn read(path: &std::path::Path) -> Option<Elf> {
    parse(&std::fs::read(path).ok()?)
}

/// The libraries beyond the C runtime's (libc, libm, the loader, libgcc_s:
/// every program here loads those), for a table cell.
pub fn extra_libs(e: &Elf) -> Vec<&str> {
    const RUNTIME: [&str; 5] = ["libc.so", "libm.so", "ld-linux", "libgcc_s.so", "libpthread.so"];
    e.needed
        .iter()
        .map(String::as_str)
        .filter(|n| !RUNTIME.iter().any(|r| n.starts_with(r)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_real_binary_and_refuses_other_files() {
        let me = read(&std::env::current_exe().unwrap()).unwrap();
        assert!(me.text > 0);
        assert!(me.needed.iter().any(|n| n.starts_with("libc.so")), "{me:?}");
        assert_eq!(parse(b"#!/bin/sh\n"), None);
        assert_eq!(parse(b"\x7fELF\x02\x01"), None);
    }

    #[test]
    fn the_c_runtime_is_not_listed() {
        let e = Elf {
            text: 1,
            needed: ["libselinux.so.1", "libc.so.6", "libgcc_s.so.1"].map(String::from).to_vec(),
        };
        assert_eq!(extra_libs(&e), ["libselinux.so.1"]);
    }
}
