#!/usr/bin/env bash
# Proves the project on a fresh Debian 12 machine: debootstraps a minimal bookworm root
# (Debian's mirror only), clones the checkout's HEAD into it and runs, as root with a
# clean environment:
#   first  the README's first command (install, build, --help) and a headless screenshot
#   test   the README's second command (./tessera.sh test)
#   ci     .ci/run, as CI does on a clean machine
#   deb    DEB (a built .deb) alone, in a root with no Qt and no build tools: install it,
#          run it on the installed examples, a screenshot and a report
# Usage: packaging/fresh-root.sh first|test|ci [DIR]    packaging/fresh-root.sh deb DEB [DIR]
# DIR (default /var/tmp/tessera-fresh-root) is emptied first; ~1.5 GB for ci, 30 s to debootstrap.
set -euo pipefail
mode=${1:-}
case "$mode" in
    first | test | ci) deb=""; root=${2:-/var/tmp/tessera-fresh-root} ;;
    deb) deb=$(readlink -f "${2:?deb needs the .deb}"); root=${3:-/var/tmp/tessera-fresh-root} ;;
    *) sed -n '2,13p' "$0" >&2; exit 64 ;;
esac
[ "$(id -u)" = 0 ] || { echo "fresh-root.sh: run as root (debootstrap, chroot, mounts)" >&2; exit 1; }
checkout=$(git -C "$(dirname "$(readlink -f "$0")")/.." rev-parse --show-toplevel)

command -v debootstrap >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
rm -rf "$root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
for d in proc sys dev dev/pts; do mount --bind "/$d" "$root/$d"; done
trap 'for d in dev/pts dev sys proc; do umount -l "$root/$d" 2>/dev/null || true; done' EXIT

inside() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb bash -euc "$1"; }

if [ -n "$deb" ]; then
    cp "$deb" "$root/root/"
    inside "apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ./root/$(basename "$deb") >/dev/null
        echo \"installed: \$(dpkg -l | grep -c '^ii') packages\"
        cd /tmp && tessera --version
        for f in /usr/share/tessera/examples/*.yaml; do tessera estimate \"\$f\" | grep '^Step'; done
        export QT_QPA_PLATFORM=offscreen
        tessera --screenshot /tmp/shot.png --view pipeline /usr/share/tessera/examples/llama3-70b-h100x64.tessera.yaml
        tessera report /usr/share/tessera/examples/llama3-8b-a100x8.tessera.yaml -o /tmp/report.pdf
        ls -l /tmp/shot.png /tmp/report.pdf"
    echo "fresh-root.sh: the .deb installed and ran from scratch"
    exit 0
fi

git clone -q "$checkout" "$root/root/tessera"
case "$mode" in
    first) inside "cd /root/tessera && ./tessera.sh --help | head -3
        QT_QPA_PLATFORM=offscreen ./tessera.sh --screenshot /root/shot.png && ls -l /root/shot.png" ;;
    test) inside "cd /root/tessera && ./tessera.sh test" ;;
    ci) inside "cd /root/tessera && .ci/run" ;;
esac
echo "fresh-root.sh: $mode passed in a fresh Debian 12 root ($root)"
