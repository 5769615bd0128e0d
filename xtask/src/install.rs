//! `cargo xtask install [--prefix DIR] [--bin-dir DIR | --small]`: the
//! four tools (a release build), their man pages and their bash, zsh and fish
//! completions (generated as `cargo xtask dist` generates them), each
//! where its reader looks under the prefix (default `~/.local`):
//!
//! ```text
//! PREFIX/bin/{lsr,lfind,ldu,lcat}
//! PREFIX/share/man/man1/NAME.1                    man: PATH's bin/../share/man
//! PREFIX/share/bash-completion/completions/NAME   bash-completion's loader
//! PREFIX/share/zsh/site-functions/_NAME           zsh: a directory of $fpath
//! PREFIX/share/fish/vendor_completions.d/NAME.fish
//! ```
//!
//! `--bin-dir DIR` installs the binaries found in DIR instead of building
//! them (the tests install their own build). What a shell will not find
//! without help (a bin directory off PATH, a zsh `$fpath` or fish path
//! without the prefix's directory) is said at the end, with the line that
//! fixes it. `--small` installs the small build instead (a nightly
//! toolchain's: see `small`), a third smaller and as fast.

use std::path::{Path, PathBuf};

use crate::dist;

/// The four binaries.
const TOOLS: [&str; 4] = ["lsr", "lfind", "ldu", "lcat"];

const USAGE: &str = "usage: cargo xtask install [--prefix DIR] [--bin-dir DIR | --small]";

pub fn main(args: &[String]) -> Result<(), String> {
    let mut prefix = None;
    let mut bin_dir = None;
    let mut small = false;
    let mut words = crate::Words::new(args);
    while let Some(flag) = words.next_word() {
        let flag = flag.as_str();
        let mut value = || words.value(flag).map_err(|_| USAGE.to_string());
        match flag {
            "--prefix" => prefix = Some(PathBuf::from(value()?)),
            "--bin-dir" => bin_dir = Some(PathBuf::from(value()?)),
            "--small" => small = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ => return Err(USAGE.into()),
        }
    }
    let prefix = match prefix {
        Some(p) => absolute(&p)?,
        None => {
            let home = std::env::var_os("HOME").ok_or("HOME is not set: give --prefix")?;
            PathBuf::from(home).join(".local")
        }
    };
    let bins = match bin_dir {
        Some(_) if small => return Err(USAGE.into()),
        Some(d) => d,
        None if small => crate::small::build()?,
        None => {
            crate::cargo(&["build", "--release", "--locked", "-p", "ringutils", "--bins"])?;
            crate::target_dir().join("release")
        }
    };
    let installed = install(&prefix, &bins)?;
    for f in &installed {
        println!("{}", f.display());
    }
    for hint in hints(&prefix) {
        eprintln!("xtask: {hint}");
    }
    Ok(())
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    Ok(cwd.join(p))
}

/// Where each kind of file goes under `prefix`, for tool `name`.
pub fn destinations(prefix: &Path, name: &str) -> [PathBuf; 5] {
    let share = prefix.join("share");
    [
        prefix.join("bin").join(name),
        share.join("man/man1").join(format!("{name}.1")),
        share.join("bash-completion/completions").join(name),
        share.join("zsh/site-functions").join(format!("_{name}")),
        share.join("fish/vendor_completions.d").join(format!("{name}.fish")),
    ]
}

/// Installs the binaries from `bins` and the generated files; returns
/// the paths written.
pub fn install(prefix: &Path, bins: &Path) -> Result<Vec<PathBuf>, String> {
    // Every binary first: nothing is installed if one is missing.
    for t in TOOLS {
        let b = bins.join(t);
        if !b.is_file() {
            return Err(format!("{} is missing (build it, or give --bin-dir)", b.display()));
        }
    }
    let mut written = Vec::new();
    for d in dist::docs() {
        let [bin, man, bash, zsh, fish] = destinations(prefix, d.name);
        let binary = std::fs::read(bins.join(d.name))
            .map_err(|e| format!("cannot read {}: {e}", bins.join(d.name).display()))?;
        let files = [
            (bin, binary, 0o755),
            (man, dist::man(&d).into_bytes(), 0o644),
            (bash, dist::bash(&d).into_bytes(), 0o644),
            (zsh, dist::zsh(&d).into_bytes(), 0o644),
            (fish, dist::fish(&d).into_bytes(), 0o644),
        ];
        for (path, data, mode) in files {
            put(&path, &data, mode)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Writes `data` to `path` through a temporary file renamed over it: a
/// running copy of an old binary keeps its file (no "Text file busy"),
/// and nothing is left half-written.
fn put(path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent().ok_or_else(|| format!("{}: no directory", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.xtask-{}", std::process::id()));
    let r = std::fs::write(&tmp, data)
        .and_then(|()| std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode)))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = r {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    Ok(())
}

/// What won't be found where it was put, and how to make it so.
fn hints(prefix: &Path) -> Vec<String> {
    let mut v = Vec::new();
    let bin = prefix.join("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    if !std::env::split_paths(&path).any(|p| p == bin) {
        v.push(format!(
            "{} is not on PATH: the tools, their man pages (man looks beside PATH's \
             directories) and fish's completions (fish completes the commands it finds) \
             won't be found until it is: export PATH=\"{}:$PATH\"",
            bin.display(),
            bin.display()
        ));
    }
    let share = prefix.join("share");
    // bash-completion and fish read the user's data directory and those
    // of XDG_DATA_DIRS (bash-completion's default: /usr/local/share and
    // /usr/share; fish's: its own).
    let home_share = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    let xdg = std::env::var_os("XDG_DATA_DIRS");
    let in_xdg = |default: &[&str]| match &xdg {
        Some(x) => std::env::split_paths(x).any(|p| p == share),
        None => default.iter().any(|d| share == Path::new(d)),
    };
    let user_dir = home_share.as_deref() == Some(share.as_path());
    if !user_dir && !in_xdg(&["/usr/local/share", "/usr/share"]) {
        v.push(format!("bash-completion: add {} to XDG_DATA_DIRS", share.display()));
    }
    // zsh's default $fpath has /usr/local/share/zsh/site-functions and
    // /usr/share/zsh/vendor-completions, never one under a home.
    if share != Path::new("/usr/local/share") && share != Path::new("/usr/share") {
        v.push(format!(
            "zsh: add fpath=({}/zsh/site-functions $fpath) before compinit in ~/.zshrc",
            share.display()
        ));
    }
    if !user_dir && !in_xdg(&["/usr/share"]) {
        v.push(format!(
            "fish: add {} to XDG_DATA_DIRS (or {}/fish/vendor_completions.d to \
             $fish_complete_path)",
            share.display(),
            share.display()
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn destinations_follow_the_prefix() {
        let d = super::destinations(std::path::Path::new("/p"), "lsr");
        let s: Vec<String> = d.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            s,
            [
                "/p/bin/lsr",
                "/p/share/man/man1/lsr.1",
                "/p/share/bash-completion/completions/lsr",
                "/p/share/zsh/site-functions/_lsr",
                "/p/share/fish/vendor_completions.d/lsr.fish",
            ]
        );
    }
}
