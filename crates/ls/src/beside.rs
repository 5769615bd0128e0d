//! A second thread for a listing's serial stretch: the measures beside the
//! sort, half the rows of a big `-l` beside the other half.
//!
//! Once every stat is in, the thread pool that ran them idles; lending its
//! worker ([`ringio::Engine::join`]) costs nothing, where a thread of our
//! own costs ~20 syscalls and a stack (10,000-entry `lsr -al`: the same
//! sharing on a fresh thread gained 0.9 ms but broke the ring backend's
//! 100-syscall budget). Without a pool (the ring backend, inline
//! syscalls), big listings still start a thread of their own.

use ringio::Engine;

/// Runs a helper's share of some work beside the caller's share.
pub trait Beside {
    /// Whether the helper is a thread already running (nothing to start),
    /// so that smaller listings are worth sharing too.
    fn free(&self) -> bool;

    /// Runs `helper` on the other thread and `main` here, returning once
    /// both are done. The helper may run after `main` instead, on this
    /// thread, when the other is busy, or not at all when no thread can be
    /// started: `main` must not wait for it, and the caller must manage
    /// without what it would have made.
    fn run(&mut self, helper: Box<dyn FnOnce() + Send + '_>, main: &mut dyn FnMut());
}

/// The engine's pool when it lends a worker, else `own`.
pub fn pick<'a>(engine: &'a mut Engine, own: &'a mut OwnThread) -> &'a mut dyn Beside {
    if engine.lends_workers() {
        engine
    } else {
        own
    }
}

/// A thread of the caller's own, started for each run.
pub struct OwnThread;

impl Beside for OwnThread {
    fn free(&self) -> bool {
        false
    }

    fn run(&mut self, helper: Box<dyn FnOnce() + Send + '_>, main: &mut dyn FnMut()) {
        std::thread::scope(|s| {
            // No thread to be had: the helper's share is left to `main`'s
            // side (see the trait doc), and the helper itself is dropped.
            let h = std::thread::Builder::new().name("lsr-helper".into()).spawn_scoped(s, helper);
            main();
            if let Ok(h) = h {
                let _ = h.join();
            }
        });
    }
}

impl Beside for Engine {
    fn free(&self) -> bool {
        self.lends_workers()
    }

    fn run(&mut self, helper: Box<dyn FnOnce() + Send + '_>, main: &mut dyn FnMut()) {
        self.join(helper, main);
    }
}
