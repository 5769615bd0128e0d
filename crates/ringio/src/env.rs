//! The `RINGIO_*` environment: read here, once per process, and nowhere
//! else. Everything above the engine says what its work is like
//! ([`crate::Workload`], [`crate::Walkers`]); these variables are how a user
//! or a test overrides what the engine then decides.
//!
//! - `RINGIO_BACKEND=uring|threads|sync`: the executor of every engine.
//! - `RINGIO_THREADS=N`: worker threads of the thread pool (and the cap on a
//!   ring's io-wq workers on a high-latency file system).
//! - `RINGIO_DEPTH=N`: operations in flight in a ring, and the in-flight
//!   depth on a high-latency file system.
//! - `RINGUTILS_TEST_FAULT=enter:ERRNO@N`: the io_uring fault hook (see uring.rs).
//! - `RINGUTILS_TEST_FAULT=slow:MICROS[@N]`: latency added to the first N measured
//!   completions, the cold-cache detector's test hook (see cold.rs).

use std::sync::OnceLock;

use crate::engine::Backend;

pub(crate) struct Settings {
    /// `RINGIO_BACKEND`, when it names an executor.
    pub backend: Option<Backend>,
    /// `RINGIO_BACKEND` is set to something (even a name not known):
    /// `--version` says so.
    pub backend_set: bool,
    pub threads: Option<usize>,
    pub depth: Option<usize>,
    pub fault: Option<String>,
}

pub(crate) fn get() -> &'static Settings {
    static S: OnceLock<Settings> = OnceLock::new();
    S.get_or_init(|| {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let count =
            |name: &str| var(name)?.to_str()?.trim().parse::<usize>().ok().filter(|&n| n > 0);
        let backend = var("RINGIO_BACKEND");
        Settings {
            backend: backend.as_ref().and_then(|v| Backend::parse(v.to_str()?)),
            backend_set: backend.is_some(),
            threads: count("RINGIO_THREADS"),
            depth: count("RINGIO_DEPTH"),
            fault: var("RINGUTILS_TEST_FAULT").and_then(|v| v.into_string().ok()),
        }
    })
}
