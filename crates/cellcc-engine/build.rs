//! Stamps the engine's build identity: a hash of everything that decides its results (every
//! file under `src/`, data tables included, this crate's manifest and the workspace lock file).
//! Results and store keys carry it (`ENGINE_VERSION`), so a sweep never resumes from results of
//! another engine build, and provenance names the build that made a result.

use std::fs;
use std::path::{Path, PathBuf};

/// 64-bit FNV-1a (a fixed, documented hash: the stamp must not change between Rust releases).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(FNV_PRIME);
    }
    h
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let lock = crate_dir.join("../../Cargo.lock");
    let mut files = Vec::new();
    files_under(&crate_dir.join("src"), &mut files);
    files.push(crate_dir.join("Cargo.toml"));
    files.push(lock.clone());
    files.sort();
    let mut h = FNV_OFFSET;
    for f in &files {
        let rel = f.strip_prefix(&crate_dir).unwrap_or(f);
        h = fnv1a(h, rel.to_string_lossy().as_bytes());
        let contents = fs::read(f).unwrap_or_default();
        h = fnv1a(h, &(contents.len() as u64).to_le_bytes());
        h = fnv1a(h, &contents);
    }
    println!("cargo:rustc-env=CELLCC_ENGINE_SOURCE_HASH={h:016x}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed={}", lock.display());
}
