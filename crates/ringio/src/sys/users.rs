//! User and group names from the system's name service (NSS), for ids the
//! plain `/etc/passwd` and `/etc/group` files don't have.

/// The name of user `uid` via `getpwuid_r`, if any.
pub fn user_name(uid: u32) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: passwd is a plain C struct; all-zero is a valid value.
        let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
        let mut res: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: pw, buf (with its true length) and res are valid for the call;
        // the strings the result points at live in buf.
        let r =
            unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut res) };
        if r == libc::ERANGE && buf.len() < (1 << 20) {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if r != 0 || res.is_null() || pw.pw_name.is_null() {
            return None;
        }
        // SAFETY: pw_name points into buf, NUL-terminated, still alive.
        return Some(unsafe { std::ffi::CStr::from_ptr(pw.pw_name) }.to_bytes().to_vec());
    }
}

/// The name of group `gid` via `getgrgid_r`, if any.
pub fn group_name(gid: u32) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: group is a plain C struct; all-zero is a valid value.
        let mut gr: libc::group = unsafe { std::mem::zeroed() };
        let mut res: *mut libc::group = std::ptr::null_mut();
        // SAFETY: gr, buf (with its true length) and res are valid for the call.
        let r =
            unsafe { libc::getgrgid_r(gid, &mut gr, buf.as_mut_ptr().cast(), buf.len(), &mut res) };
        if r == libc::ERANGE && buf.len() < (1 << 20) {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if r != 0 || res.is_null() || gr.gr_name.is_null() {
            return None;
        }
        // SAFETY: gr_name points into buf, NUL-terminated, still alive.
        return Some(unsafe { std::ffi::CStr::from_ptr(gr.gr_name) }.to_bytes().to_vec());
    }
}
