#!/usr/bin/env bash
# Build Tessera's .deb with CPack into build-pkg/ and print its path.
#   packaging/package.sh           configure (Release, prefix /usr), build, cpack
#   packaging/package.sh --check   the same, then install, try and remove it (check-deb.sh)
# Only what the package holds is built (the program, its icons and docs), not the tests.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

check=0
case "${1:-}" in
"") ;;
--check) check=1 ;;
*) echo "usage: packaging/package.sh [--check]" >&2; exit 64 ;;
esac

BUILD_DIR=build-pkg
# Debian's own compiler and linker flags with every hardening feature (fortify, stack
# protector, relro, bindnow), as lintian expects of a package; -ffile-prefix-map keeps
# the checkout's path out of the binary.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cxxflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)"
ldflags="$(dpkg-buildflags --get LDFLAGS)"
# CMAKE_SKIP_INSTALL_ALL_DEPENDENCY: cpack runs the install step, which would otherwise
# build "all" first, tests included; the targets the package needs are built below.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
      -DCMAKE_CXX_FLAGS="$cxxflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
      -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null
out=$(cmake --build "$BUILD_DIR" --target tessera tessera_icons tessera_docs -- --quiet 2>&1) ||
    { printf '%s\n' "$out" >&2; exit 1; }
[ -z "$out" ] || [ "$out" = "ninja: no work to do." ] || printf '%s\n' "$out" >&2

rm -f "$BUILD_DIR"/tessera_*.deb
(cd "$BUILD_DIR" && cpack -G DEB >cpack.log 2>&1) || { cat "$BUILD_DIR/cpack.log" >&2; exit 1; }
debs=("$BUILD_DIR"/tessera_*.deb)
[ -f "${debs[0]}" ] || { echo "package.sh: cpack made no .deb (see $BUILD_DIR/cpack.log)" >&2; exit 1; }
deb=$(readlink -f "${debs[0]}")
echo "$deb"

if ((check)); then
    exec packaging/check-deb.sh "$deb"
fi
