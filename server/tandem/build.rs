//! Links the functions `tandem lsp` runs from its start to idle side by side
//! (`startup-order.txt`, written by `scripts/startup-order.py`), so an idle sidecar maps about 1
//! MiB of code instead of 8: the kernel maps 64 KiB around each page of code touched, and
//! unordered, those functions lie in about 140 such windows across the binary.
//!
//! Only where the linker is rust-lld, the default for x86_64 Linux since Rust 1.90 (GNU ld has no
//! `--symbol-ordering-file`). A listed name the binary doesn't have is skipped without a word: the
//! names carry hashes of the compiler and of each crate's version, so a debug build matches none
//! and a dependency update some fewer (`cargo bench -p tandem --bench lsp` says how many match).

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=startup-order.txt");
    println!("cargo:rerun-if-env-changed=TANDEM_NO_STARTUP_ORDER");
    if !links_with_rust_lld() || std::env::var_os("TANDEM_NO_STARTUP_ORDER").is_some() {
        return;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let order = Path::new(&dir).join("startup-order.txt");
    println!(
        "cargo:rustc-link-arg-bin=tandem=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bin=tandem=-Wl,--no-warn-symbol-ordering");
}

/// x86_64 Linux with glibc, Rust 1.90 or later, and no linker or linker flavour of the user's
/// (a `target.*.linker`, cargo-zigbuild's zig, `-C linker*`, `-fuse-ld`).
fn links_with_rust_lld() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("TARGET") != "x86_64-unknown-linux-gnu" || std::env::var_os("RUSTC_LINKER").is_some() {
        return false;
    }
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    if flags
        .split('\x1f')
        .any(|flag| flag.contains("linker") || flag.contains("fuse-ld"))
    {
        return false;
    }
    rustc_minor(&var("RUSTC")).is_some_and(|minor| minor >= 90)
}

/// The `y` of rustc's `release: 1.y.z`.
fn rustc_minor(rustc: &str) -> Option<u32> {
    let out = Command::new(rustc).arg("-vV").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.lines().find_map(|l| l.strip_prefix("release: "))?;
    version.split('.').nth(1)?.parse().ok()
}
