//! Drawing.

/// A name as the view shows it: as it is when every character is
/// printable here, else in ls's `$'…'` form (as ls writes names to a
/// terminal), so no name can move the cursor or change colours.
pub fn safe_name(name: &[u8]) -> String {
    let q = cli::quote::Quoter::new(cli::quote::Style::ShellEscape).quote(name);
    if q.windows(2).any(|w| w == b"$'") {
        String::from_utf8_lossy(&q).into_owned()
    } else {
        String::from_utf8_lossy(name).into_owned()
    }
}
