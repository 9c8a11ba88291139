#!/usr/bin/env bash
# Install a Tessera .deb on this machine with apt-get, try what it installed from a
# clean place, and remove it again - also when a check fails - so that the machine is
# left as it was (tessera and any package apt pulled in for it are purged).
#   packaging/check-deb.sh path/to/tessera_VERSION_ARCH.deb
# Run as root (CI and the development machines are). It needs nothing from the build
# tree: the program runs under `env -i` from an empty directory with an empty HOME, and
# with the checkout hidden behind an empty tmpfs where the kernel allows it (unshare).
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "usage: packaging/check-deb.sh TESSERA.deb" >&2
    exit 64
fi
deb=$(readlink -f "$1")
repo=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "check-deb.sh: run as root (it installs the package)" >&2; exit 1; }

fail() { echo "check-deb.sh: FAIL: $*" >&2; exit 1; }
ok() { echo "  ok  $*"; }

installed_packages() {
    dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture}\n' | awk '$1 == "ii" { print $2 }' | sort
}
if installed_packages | grep -q '^tessera:'; then
    fail "tessera is already installed; remove it first (this check removes what it installs)"
fi

app_id=io.github.tessera.Tessera
version=$(dpkg-deb -f "$deb" Version)
work=$(mktemp -d /tmp/tessera-check.XXXXXX)
installed_packages >"$work/before"
# Other sessions may be running apt on the same machine: wait for the lock, don't fail.
apt=(apt-get -y -qq -o DPkg::Lock::Timeout=600)
export DEBIAN_FRONTEND=noninteractive

# Purge whatever is installed now and was not before: tessera and the dependencies
# apt-get installed for it (none on a machine that built it).
remove_package() {
    local added
    added=$(installed_packages | comm -13 "$work/before" -)
    [ -z "$added" ] && return 0
    # shellcheck disable=SC2086  # one word per package
    "${apt[@]}" purge $added >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; return 1; }
}
cleanup() {
    local rc=$?
    remove_package || rc=1
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT

echo "check-deb.sh: $deb"
"${apt[@]}" install --no-install-recommends "$deb" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "apt-get install"; }
ok "apt-get install (version $version)"

# --- The layout.
files=(/usr/bin/tessera
       "/usr/share/applications/$app_id.desktop"
       "/usr/share/mime/packages/$app_id.xml"
       "/usr/share/metainfo/$app_id.metainfo.xml"
       "/usr/share/icons/hicolor/scalable/apps/$app_id.svg"
       /usr/share/man/man1/tessera.1.gz
       /usr/share/doc/tessera/changelog.gz)
for f in "${files[@]}"; do
    [ -f "$f" ] || fail "$f is not installed"
done
for size in 16 32 48 64 128 256; do
    png="/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png"
    [ -f "$png" ] || fail "$png is not installed"
    # The PNG signature, then the IHDR width and height as big-endian 32-bit numbers.
    read -r -a header <<<"$(od -An -tu1 -N24 "$png" | tr '\n' ' ')"
    [ "${header[*]:0:8}" = "137 80 78 71 13 10 26 10" ] || fail "$png is not a PNG"
    width=$(( (header[16] << 24) | (header[17] << 16) | (header[18] << 8) | header[19] ))
    height=$(( (header[20] << 24) | (header[21] << 16) | (header[22] << 8) | header[23] ))
    [ "$width" -eq "$size" ] && [ "$height" -eq "$size" ] || fail "$png is ${width}x$height, not ${size}x$size"
done
examples=(/usr/share/tessera/examples/*.tessera.yaml)
[ -f "${examples[0]}" ] || fail "no example scenarios in /usr/share/tessera/examples"
outside=$(dpkg -L tessera | grep -v -e '^/usr/' -e '^/usr$' -e '^/\.$' || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"
ok "layout: program, desktop entry, MIME type, metainfo, icons (SVG + 6 PNG sizes), man page, ${#examples[@]} examples"

# --- Nothing from the build tree.
missing_libs=$(ldd /usr/bin/tessera | grep 'not found' || true)
[ -z "$missing_libs" ] || fail "unresolved libraries: $missing_libs"
if grep -qF "$repo" /usr/bin/tessera; then fail "/usr/bin/tessera mentions the checkout $repo"; fi
ok "all libraries resolve, no path into the checkout"

mkdir "$work/run" "$work/home"
hide=()
if unshare -m sh -c 'mount -t tmpfs none "$0"' "$repo" 2>/dev/null; then
    # A private mount namespace: the checkout looks empty to tessera, and to nobody else.
    hide=(unshare -m sh -c 'mount -t tmpfs tessera-check "$0" && exec "$@"' "$repo")
    ok "the checkout $repo is hidden from the runs below"
fi
# tessera ARGS... from an empty directory, with an empty environment and HOME.
run() {
    "${hide[@]}" env -i -C "$work/run" HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"
}

out=$(run tessera --help) || fail "tessera --help exited $?"
grep -q '^Usage: tessera' <<<"$out" || fail "tessera --help does not print the usage"
ok "tessera --help"
out=$(run tessera --version) || fail "tessera --version exited $?"
grep -qF "$version" <<<"$out" || fail "tessera --version says '$out', the package is $version"
ok "tessera --version: $out"
run tessera validate "${examples[@]}" >"$work/validate.log" 2>&1 ||
    { cat "$work/validate.log" >&2; fail "tessera validate on the installed examples"; }
ok "tessera validate on every installed example"
for example in "${examples[@]}"; do
    run tessera estimate "$example" >"$work/estimate.log" 2>&1 ||
        { cat "$work/estimate.log" >&2; fail "tessera estimate $example"; }
    grep -q 'Memory per device' "$work/estimate.log" || fail "tessera estimate $example printed no memory table"
done
ok "tessera estimate on every installed example"
# The GUI half: the Qt platform plugin and the widget stack come from the Depends.
run QT_QPA_PLATFORM=offscreen tessera --screenshot "$work/run/window.png" "${examples[0]}" --view window \
    >"$work/screenshot.log" 2>&1 || { cat "$work/screenshot.log" >&2; fail "tessera --screenshot"; }
[ -s "$work/run/window.png" ] || fail "tessera --screenshot wrote no picture"
ok "tessera --screenshot (offscreen) draws the window"

# --- Desktop integration, checked by the freedesktop tools where they are installed.
if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "/usr/share/applications/$app_id.desktop" || fail "desktop-file-validate"
    ok "desktop-file-validate"
else
    echo "  --  desktop-file-validate not installed (desktop-file-utils): skipped"
fi
if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net "/usr/share/metainfo/$app_id.metainfo.xml" >"$work/appstream.log" 2>&1 ||
        { cat "$work/appstream.log" >&2; fail "appstreamcli validate"; }
    ok "appstreamcli validate --no-net"
else
    echo "  --  appstreamcli not installed (appstream): skipped"
fi
if command -v update-mime-database >/dev/null; then
    # shared-mime-info's dpkg trigger rebuilt the database with our type and glob.
    [ -f /usr/share/mime/application/x-tessera-scenario.xml ] || fail "the MIME database has no application/x-tessera-scenario"
    grep -q 'application/x-tessera-scenario:\*\.tessera\.yaml' /usr/share/mime/globs2 || fail "no *.tessera.yaml glob in the MIME database"
    ok "MIME database knows application/x-tessera-scenario (*.tessera.yaml)"
fi

# --- Removal leaves nothing behind.
remove_package
[ ! -e /usr/bin/tessera ] || fail "/usr/bin/tessera is still there after removal"
[ ! -e "/usr/share/applications/$app_id.desktop" ] || fail "the desktop entry is still there after removal"
ok "removed again (apt-get purge)"
echo "check-deb.sh: all checks passed"
