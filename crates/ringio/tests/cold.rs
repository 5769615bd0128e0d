//! The cold-cache depth: under injected device latency the engine's
//! detector turns cold and the thread pool's worker limit (and the walk's
//! thread count) rises; once the injection stops and completions are
//! cache-fast again, both fall back. States are asserted, never times.
//!
//! Its own test binary: `RINGUTILS_TEST_FAULT` is read once per process and the
//! cold state is process-wide, so no other test may share the process.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;

use ringio::{Backend, Config, Engine, Walkers};

/// Samples that get the injected latency: enough for every thread's
/// windows to turn cold, then the real (cached) latency takes over.
const SLOW_SAMPLES: u64 = 400;

/// A batch of statx of `names` in `dir`, and reads of the small directory
/// `small` (the detector's two signals).
fn batch(eng: &mut Engine, dir: &CString, names: &[CString], small: &CString) {
    let fds: Vec<_> = (0..16)
        .map(|_| {
            ringio::sys::openat(
                libc::AT_FDCWD,
                small,
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                0,
            )
            .expect("open the small directory")
        })
        .collect();
    for (i, &fd) in fds.iter().enumerate() {
        eng.getdents(i as u64, fd, Vec::new());
    }
    let mut out = Vec::new();
    let mut got = 0;
    while got < fds.len() {
        out.clear();
        got += eng.wait(fds.len() - got, &mut out);
        assert!(out.iter().all(|c| c.result.is_ok()), "getdents failed");
    }
    for fd in fds {
        let _ = ringio::sys::close(fd);
    }
    stat_batch(eng, dir, names);
}

fn stat_batch(eng: &mut Engine, dir: &CString, names: &[CString]) {
    let fd = ringio::sys::openat(
        libc::AT_FDCWD,
        dir,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        0,
    )
    .expect("open the test directory");
    for (i, n) in names.iter().enumerate() {
        eng.statx(i as u64, fd, n.as_bytes(), libc::AT_SYMLINK_NOFOLLOW, libc::STATX_BASIC_STATS);
    }
    let mut out = Vec::new();
    let mut got = 0;
    while got < names.len() {
        out.clear();
        got += eng.wait(names.len() - got, &mut out);
        assert!(out.iter().all(|c| c.stat().is_ok()), "statx failed");
    }
    let _ = ringio::sys::close(fd);
}

#[test]
fn depth_rises_under_injected_slowness_and_falls_back() {
    // Set before anything in this process reads the RINGIO_* variables.
    std::env::set_var("RINGUTILS_TEST_FAULT", format!("slow:200@{SLOW_SAMPLES}"));
    std::env::remove_var("RINGIO_THREADS");

    let scratch = scratch::Scratch::new("ringio-cold");
    let tmp = scratch.path();
    let names: Vec<CString> = (0..64)
        .map(|i| {
            let n = format!("f{i}");
            std::fs::write(tmp.join(&n), b"x").unwrap();
            CString::new(n).unwrap()
        })
        .collect();
    let dir = CString::new(tmp.as_os_str().as_bytes()).unwrap();
    std::fs::create_dir(tmp.join("small")).unwrap();
    for n in ["a", "b", "c"] {
        std::fs::write(tmp.join("small").join(n), b"").unwrap();
    }
    let small = CString::new(tmp.join("small").as_os_str().as_bytes()).unwrap();

    let mut eng =
        Engine::with_config(Config { backend: Some(Backend::Threads), ..Config::default() });
    let warm = eng.worker_limit();
    // A ring follows the same state through io-wq's worker cap (its STATX
    // isn't timed: the thread pool's samples drive the detector here).
    let mut ring = ringio::uring_available().then(|| {
        Engine::with_config(Config { backend: Some(Backend::Uring), ..Config::default() })
    });
    let ring_warm = ring.as_ref().map(Engine::worker_limit);
    let ring_limit = |r: &Option<Engine>| r.as_ref().map(Engine::worker_limit);
    let ring_batch = |r: &mut Option<Engine>| {
        if let Some(r) = r.as_mut() {
            stat_batch(r, &dir, &names);
        }
    };
    assert!(!ringio::cold::is_cold(), "cold before any operation");
    assert_eq!(Walkers::active(2, 64), 2);
    assert_eq!(ringio::helper_threads_now(2, 16), 2, "warm: read-ahead threads as they are");

    // Injected: every thread's windows are slow, so the state turns cold
    // and the next submit raises the pool's limit.
    let mut rounds = 0;
    while !(ringio::cold::is_cold() && eng.worker_limit() > warm) {
        rounds += 1;
        assert!(rounds < 200, "never turned cold under injected slowness");
        batch(&mut eng, &dir, &names, &small);
    }
    assert_eq!(Walkers::active(2, 64), 64, "a walk runs its cold thread count while cold");
    assert_eq!(
        ringio::helper_threads_now(2, 16),
        16,
        "lsr -R reads ahead with all it may while cold"
    );
    assert_eq!(ringio::helper_threads_now(2, 3), 3, "within the descriptor budget");
    assert_eq!(ringio::helper_threads_now(0, 16), 0, "no helpers where there were none");
    ring_batch(&mut ring);
    assert_eq!(
        ring_limit(&ring),
        ring_warm.map(|w| w.max(ringio::cold::cold_depth())),
        "the ring's io-wq cap rises to the cold depth"
    );

    // The injection ends after SLOW_SAMPLES: the real, cached latency
    // brings the state back, and the limit with it.
    let mut rounds = 0;
    while ringio::cold::is_cold() || eng.worker_limit() != warm {
        rounds += 1;
        assert!(rounds < 20_000, "never turned warm again after the injection stopped");
        batch(&mut eng, &dir, &names, &small);
    }
    ring_batch(&mut ring);
    assert_eq!(ring_limit(&ring), ring_warm, "the ring's io-wq cap falls back");
    assert_eq!(Walkers::active(2, 64), 2);
    assert!(eng.worker_threads() > warm, "the cold workers were started (now parked)");
}
