//! What the unit tests share: scratch directories and descriptors.

use std::io::Read;
use std::os::fd::{OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::Path;

pub(crate) use scratch::Scratch;

/// A fresh descriptor (of /dev/null) for the budget to own.
pub(crate) fn some_fd() -> OwnedFd {
    std::fs::File::open("/dev/null").unwrap().into()
}

/// Whether `fd` is an open descriptor of this process. Only a "yes" means
/// anything: other tests in the process may reuse a closed number at once,
/// so closing is checked with [`watched_fd`].
pub(crate) fn is_open(fd: RawFd) -> bool {
    Path::new(&format!("/proc/self/fd/{fd}")).exists()
}

/// A descriptor whose closing can be observed: one end of a socket pair,
/// the other end kept by the [`Closing`] watch. Unlike asking about the
/// number, this can't be fooled by a descriptor another thread opened
/// with the same number after ours closed.
pub(crate) fn watched_fd() -> (OwnedFd, Closing) {
    let (ours, theirs) = UnixStream::pair().unwrap();
    theirs.set_nonblocking(true).unwrap();
    (ours.into(), Closing(theirs))
}

/// The watching end of [`watched_fd`].
pub(crate) struct Closing(UnixStream);

impl Closing {
    /// Whether the watched descriptor has been closed: the peer reads end
    /// of file then, and "would block" while it is open.
    pub fn closed(&self) -> bool {
        match (&self.0).read(&mut [0u8; 1]) {
            Ok(0) => true,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
            other => panic!("unexpected read on the watch: {other:?}"),
        }
    }
}
