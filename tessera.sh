#!/usr/bin/env bash
# Tessera's one entry point on a Debian 12 machine.
#   ./tessera.sh [ARGS...]   install what is missing, build, open the app (ARGS go to build/tessera)
#   ./tessera.sh test        install what is missing, build, run every test with CTest
#   ./tessera.sh test --sanitize   the suite under ASan+UBSan, then the threaded tests under TSan
#   ./tessera.sh fuzz [SECONDS]    each libFuzzer target for SECONDS (default 60)
#   ./tessera.sh package [--check] build the .deb with CPack (--check: install it and run it)
# Idempotent, and quiet when nothing changed.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"

# Debian packages the build and the tests need (nothing is downloaded from elsewhere).
PACKAGES=(cmake ninja-build g++ pkg-config
          qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev
          libqt6opengl6-dev  # Qt6Charts' CMake config needs Qt6OpenGL; qt6-charts-dev does not pull it in
          libyaml-cpp-dev nlohmann-json3-dev libtoml11-dev
          fonts-dejavu-core  # the font review pictures embed (ui/export/reviewmode.h)
          poppler-utils)     # pdftotext: the tests read the review PDF as text
BUILD_DIR=build
# Extra Debian packages for the hardening and shipping commands only.
SANITIZE_PACKAGES=()
FUZZ_PACKAGES=(clang libclang-rt-14-dev)
PACKAGE_PACKAGES=(dpkg-dev file desktop-file-utils appstream)

ensure_packages() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    ((${#missing[@]} == 0)) && return 0
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "tessera.sh: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    fi
    local out
    out=$(cmake --build "$BUILD_DIR" -- --quiet 2>&1) || { printf '%s\n' "$out" >&2; exit 1; }
    [ -z "$out" ] || [ "$out" = "ninja: no work to do." ] || printf '%s\n' "$out"
}

case "${1:-} ${2:-}" in
"test --sanitize")
    ensure_packages "${PACKAGES[@]}" "${SANITIZE_PACKAGES[@]}"
    exec tests/sanitize/run.sh "${@:3}"
    ;;
fuzz\ *)
    ensure_packages "${PACKAGES[@]}" "${FUZZ_PACKAGES[@]}"
    exec tests/fuzz/run.sh "${@:2}"
    ;;
package\ *)
    ensure_packages "${PACKAGES[@]}" "${PACKAGE_PACKAGES[@]}"
    exec packaging/package.sh "${@:2}"
    ;;
esac

ensure_packages "${PACKAGES[@]}"
build

case "${1:-}" in
test)
    shift
    exec ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@"
    ;;
*)
    if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
        echo "tessera.sh: no display found; start it from a desktop session (or set QT_QPA_PLATFORM=offscreen)." >&2
    fi
    exec "$BUILD_DIR/tessera" "$@"
    ;;
esac
