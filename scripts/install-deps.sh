#!/usr/bin/env bash
# Installs what sweep needs on a Debian machine, only what is missing: the reference engine's
# toolchain (g++, make, OpenMPI, OpenBLAS), a Rust toolchain, clang (the second compiler of
# sweeps/toolchains.toml) and Chromium (only harness/tests/html.rs needs it: it loads the HTML page
# headless). `--no-browser` skips Chromium (those page tests then say SKIP). Idempotent and quiet
# when done.
set -euo pipefail
browser=yes
for arg in "$@"; do
    case $arg in
        --no-browser) browser=no ;;
        *) echo "install-deps: unknown option $arg (known: --no-browser)" >&2; exit 2 ;;
    esac
done
here="$(cd "$(dirname "$0")" && pwd)"
"$here/../engine/install-deps.sh"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
apt_install() {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
if ! command -v cargo >/dev/null 2>&1; then
    echo "install-deps: installing cargo from Debian" >&2
    apt_install cargo
fi
if ! command -v clang++ >/dev/null 2>&1; then
    echo "install-deps: installing clang from Debian (sweeps/toolchains.toml compares it with g++)" >&2
    apt_install --no-install-recommends clang
fi
if [ "$browser" = yes ] && ! command -v chromium >/dev/null 2>&1; then
    echo "install-deps: installing chromium from Debian (harness/tests/html.rs)" >&2
    apt_install chromium
fi
# The crates sweep uses need Rust 1.85 or newer (see harness/Cargo.toml rust-version).
version="$(rustc --version | awk '{print $2}')"
if [ "$(printf '%s\n' 1.85.0 "$version" | sort -V | head -n1)" != 1.85.0 ]; then
    echo "install-deps: rustc $version is older than 1.85; install a current toolchain (rustup)" >&2
    exit 1
fi
# The style gate in scripts/test.sh needs rustfmt and clippy.
for component in rustfmt clippy; do
    probe=fmt; [ "$component" = clippy ] && probe=clippy
    if ! cargo "$probe" --version >/dev/null 2>&1; then
        if command -v rustup >/dev/null 2>&1; then
            rustup component add "$component"
        else
            echo "install-deps: cargo $probe is missing; install the $component component" >&2
            exit 1
        fi
    fi
done
