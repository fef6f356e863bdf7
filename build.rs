//! Embeds the kernels' PTX.
//!
//! The committed `kernels/ptx/gpucomp_<arch>.ptx` records the hash of the kernel sources it was
//! built from. When that hash matches the sources, it is embedded as is: no kernel toolchain and
//! no CUDA are needed. When the sources changed, the PTX is rebuilt here with the kernel toolchain
//! (and a warning says to regenerate the committed copy); without the toolchain the build fails
//! and says how to install it.
#[path = "scripts/source_hash.rs"]
mod source_hash;

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

const ARCHS: [&str; 2] = ["sm_80", "sm_90"];

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernels = root.join("kernels");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    for p in ["src", "Cargo.toml", "linkwrap.sh", ".cargo/nvptx.toml", "ptx"] {
        println!("cargo:rerun-if-changed={}", kernels.join(p).display());
    }
    println!("cargo:rerun-if-changed=scripts/source_hash.rs");

    let hash = source_hash(&kernels);
    // tests/source_hash.rs compares it with scripts/source_hash.py's.
    println!("cargo:rustc-env=GPUCOMP_KERNELS_SOURCE_HASH={hash}");
    let header = format!("// gpucomp-kernels source hash: {hash}");
    let committed_is_current = ARCHS.iter().all(|arch| {
        fs::read_to_string(committed_ptx(&kernels, arch)).is_ok_and(|ptx| ptx.lines().next() == Some(header.as_str()))
    });
    for arch in ARCHS {
        let dest = out.join(format!("gpucomp_{arch}.ptx"));
        if committed_is_current {
            fs::copy(committed_ptx(&kernels, arch), &dest).expect("copy committed PTX");
        } else if kernel_toolchain_present() {
            println!("cargo:warning=kernel sources changed since kernels/ptx/ was built: rebuilding PTX for {arch}; run scripts/ptx.sh and commit kernels/ptx/");
            let ptx = build_ptx(&kernels, &out, arch);
            fs::write(&dest, format!("{header}\n{ptx}")).expect("write PTX");
        } else {
            panic!(
                "\n\nThe kernel sources (kernels/) no longer match the committed PTX (kernels/ptx/), and the kernel \
                 toolchain is not installed, so the PTX cannot be rebuilt.\n\
                 Install it and regenerate the PTX with the project command:\n\n    scripts/ptx.sh\n\n\
                 (Debian packages rustc-web, cargo-web, rust-web-src, rust-web-llvm: rustc 1.96 with the \
                 nvptx64-nvidia-cuda target and LLVM 22), then commit kernels/ptx/.\n"
            );
        }
    }
}

fn committed_ptx(kernels: &Path, arch: &str) -> PathBuf {
    kernels.join("ptx").join(format!("gpucomp_{arch}.ptx"))
}

/// sha256 over `sha256sum`-style lines of the kernel sources, sorted by path, each `.rs` file
/// hashed without its comments and with its whitespace normalised (`source_hash::strip`), so
/// that doc-only edits keep the PTX; the same rule as scripts/source_hash.py.
fn source_hash(kernels: &Path) -> String {
    let mut files = vec![PathBuf::from("Cargo.toml"), PathBuf::from("linkwrap.sh"), PathBuf::from(".cargo/nvptx.toml")];
    collect_files(kernels, Path::new("src"), &mut files);
    files.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    let mut lines = String::new();
    for f in files {
        let bytes = fs::read(kernels.join(&f)).unwrap_or_else(|e| panic!("read kernels/{}: {e}", f.display()));
        let bytes = if f.extension().is_some_and(|e| e == "rs") {
            let text = String::from_utf8(bytes).unwrap_or_else(|e| panic!("kernels/{}: {e}", f.display()));
            source_hash::strip(&text).into_bytes()
        } else {
            bytes
        };
        lines.push_str(&format!("{}  {}\n", hex(&Sha256::digest(&bytes)), f.display()));
    }
    hex(&Sha256::digest(lines.as_bytes()))
}

fn collect_files(base: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(base.join(rel)).expect("read kernels/src") {
        let entry = entry.unwrap();
        let rel = rel.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            collect_files(base, &rel, out);
        } else {
            out.push(rel);
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn kernel_toolchain_present() -> bool {
    Path::new("/usr/lib/rustlib/src/rust/library/core").is_dir()
        && Path::new("/usr/lib/llvm-22/bin/llc").exists()
        && Command::new("/usr/bin/rustc")
            .args(["--print", "target-list"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|t| t == "nvptx64-nvidia-cuda"))
}

/// Same build as scripts/ptx.sh, into OUT_DIR (its own target dir: no lock clash with this build).
fn build_ptx(kernels: &Path, out: &Path, arch: &str) -> String {
    let target_dir = out.join(format!("ptx-{arch}"));
    let status = Command::new("/usr/bin/cargo")
        .current_dir(kernels)
        .args(["build", "-q", "-p", "gpucomp-kernels", "--profile", "ptx", "--config", ".cargo/nvptx.toml"])
        .arg("--target-dir")
        .arg(&target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu={arch}"))
        .env("RUSTC", "/usr/bin/rustc")
        .env("RUSTC_BOOTSTRAP", "1")
        .status()
        .expect("run /usr/bin/cargo for nvptx64");
    assert!(status.success(), "kernel build for {arch} failed");
    fs::read_to_string(target_dir.join("nvptx64-nvidia-cuda/ptx/gpucomp_kernels.ptx")).expect("read built PTX")
}
