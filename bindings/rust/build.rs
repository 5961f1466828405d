// SPDX-License-Identifier: Apache-2.0 OR MIT
//! Finds libcuzk: $CUZK_LIB_DIR when set (a build tree's src/client/.libs),
//! else what `pkg-config --libs cuzk` says, else the linker's default paths.
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=CUZK_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    if let Ok(dir) = env::var("CUZK_LIB_DIR") {
        println!("cargo:rustc-link-search=native={}", dir);
    } else if let Ok(out) = Command::new("pkg-config").args(["--libs-only-L", "cuzk"]).output() {
        if out.status.success() {
            for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if let Some(dir) = flag.strip_prefix("-L") {
                    println!("cargo:rustc-link-search=native={}", dir);
                }
            }
        }
    }
    println!("cargo:rustc-link-lib=dylib=cuzk");
}
