//! Locks that outlive a panicking holder.
//!
//! A thread that panics while holding one of the project's locks has
//! already reported itself (the panic message, then the process's exit
//! status); the data it guarded — counters, queues, output buffers — is
//! still the best there is, and the threads still running must be able to
//! finish and flush what they have. So every lock in the tools recovers
//! the guard from a poisoned lock instead of propagating the panic, and
//! does it through these functions, the one place that says so.

use std::sync::{Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::sync::{PoisonError, WaitTimeoutResult};
use std::time::Duration;

/// `m.lock()`, poisoned or not.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `cv.wait(g)`, poisoned or not.
pub fn wait<'a, T>(cv: &Condvar, g: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    cv.wait(g).unwrap_or_else(PoisonError::into_inner)
}

/// `cv.wait_timeout(g, d)`, poisoned or not.
pub fn wait_timeout<'a, T>(
    cv: &Condvar,
    g: MutexGuard<'a, T>,
    d: Duration,
) -> (MutexGuard<'a, T>, WaitTimeoutResult) {
    cv.wait_timeout(g, d).unwrap_or_else(PoisonError::into_inner)
}

/// `l.read()`, poisoned or not.
pub fn read<T: ?Sized>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

/// `l.write()`, poisoned or not.
pub fn write<T: ?Sized>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn recovers_from_a_panicking_holder() {
        let m = Arc::new(Mutex::new(1));
        let l = Arc::new(RwLock::new(2));
        let (m2, l2) = (m.clone(), l.clone());
        let r = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            let _w = l2.write().unwrap();
            panic!("poison both");
        })
        .join();
        assert!(r.is_err());
        assert!(m.is_poisoned() && l.is_poisoned());
        *lock(&m) += 1;
        assert_eq!(*lock(&m), 2);
        *write(&l) += 1;
        assert_eq!(*read(&l), 3);
        let cv = Condvar::new();
        let (g, t) = wait_timeout(&cv, lock(&m), Duration::from_millis(1));
        assert!(t.timed_out());
        assert_eq!(*g, 2);
    }
}
