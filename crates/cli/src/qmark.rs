//! Names written to a terminal with what the terminal can't show as `?`,
//! character by character in the user's locale: GNU find's rule for
//! `-print`/`-printf` on a terminal (and ls's `-q`), which ldu follows too.
//!
//! In a single-byte locale every byte outside ASCII's printable range is a
//! `?`. In a multibyte one a character is shown raw when `wcwidth` gives it
//! a width (é, 日本, a combining accent, a zero-width space), one `?` stands
//! for a whole unprintable character (U+0080 is one `?`, not two), an
//! invalid byte is one `?`, and a sequence cut short by the end of the name
//! is one `?` in all (`trunc\xe6\x97` shows as `trunc?`).

use ringio::sys::locale::{decode, width, Decoded};

use crate::quote::printable;

/// Appends `name` masked for a terminal (see the module's documentation).
pub fn qmark_into(out: &mut Vec<u8>, name: &[u8]) {
    if !crate::locale::info().multibyte {
        crate::quote::qmark_into(out, name);
        return;
    }
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if b < 0x80 {
            out.push(if printable(b) { b } else { b'?' });
            i += 1;
            continue;
        }
        match decode(&name[i..]) {
            Decoded::Char(wc, n) => {
                if width(wc) >= 0 {
                    out.extend_from_slice(&name[i..i + n]);
                } else {
                    out.push(b'?');
                }
                i += n;
            }
            Decoded::Invalid => {
                out.push(b'?');
                i += 1;
            }
            Decoded::Incomplete => {
                out.push(b'?');
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_locale_masks_every_high_byte() {
        // Unit tests run in the C locale (nothing here calls setlocale).
        let mut out = Vec::new();
        qmark_into(&mut out, "é\tx\x7f".as_bytes());
        assert_eq!(out, b"???x?");
    }
}
