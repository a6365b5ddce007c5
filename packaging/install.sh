#!/bin/sh
# Installs static-admissiond from this unpacked tarball, for distributions without the .deb. Needs no network and no
# compiler (the production node_modules are in the tarball), only Node.js >= @REQUIRED_NODE@ as `node` at run time.
# Running it again repairs or upgrades in place; it never starts, restarts or enables the service (systemd/README.md,
# "Upgrade"). Run as root for a system install.
#
#   ./install.sh [--prefix DIR] [--sysconfdir DIR] [--no-system]
#   ./install.sh --uninstall [--prefix DIR] [--no-system]
#
# --prefix DIR      where the files go (default /usr/local): DIR/lib/static-admissiond, DIR/bin/static-admissiond,
#                   DIR/lib/systemd/system/static-admissiond.service (its ExecStart= names DIR/bin),
#                   DIR/lib/sysusers.d/static-admissiond.conf, DIR/share/doc/static-admissiond. systemd reads units
#                   and sysusers.d under /usr/local/lib and /usr/lib only.
# --sysconfdir DIR  where the empty kubernetes/admission/* and kubernetes/pki/static-admissiond directories that the
#                   unit reads are created if missing (default /etc); nothing in them is ever overwritten
# --no-system       do not create the system user or run `systemctl daemon-reload` (staging into an image)
# --uninstall       remove what install put under the prefix; configuration, manifests, keys and the user stay
set -eu

name=static-admissiond
here=$(cd "$(dirname "$0")" && pwd)
prefix=/usr/local
sysconfdir=/etc
system=yes
action=install

usage() { sed -n '7,8p' "$0" | sed 's/^# *//'; }
fail() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || fail "--prefix needs a directory"; prefix=$2; shift 2 ;;
	--prefix=*) prefix=${1#*=}; shift ;;
	--sysconfdir) [ $# -ge 2 ] || fail "--sysconfdir needs a directory"; sysconfdir=$2; shift 2 ;;
	--sysconfdir=*) sysconfdir=${1#*=}; shift ;;
	--no-system) system=no; shift ;;
	--uninstall) action=uninstall; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; fail "unknown argument: $1" ;;
	esac
done
for dir in "$prefix" "$sysconfdir"; do
	case "$dir" in
	/*) ;;
	*) fail "not an absolute path: $dir" ;;
	esac
	case "$dir" in
	*[!A-Za-z0-9/._+-]*) fail "use a path of letters, digits and / . _ + - only: $dir" ;;
	esac
done
prefix=${prefix%/}
[ "$(id -u)" = 0 ] || system=no

program=$prefix/lib/$name
unit=$prefix/lib/systemd/system/$name.service
sysusers=$prefix/lib/sysusers.d/$name.conf
doc=$prefix/share/doc/$name
command=$prefix/bin/$name

daemon_reload() {
	if [ "$system" = yes ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
}

if [ "$action" = uninstall ]; then
	if [ "$system" = yes ] && [ -d /run/systemd/system ] && systemctl is-active --quiet "$name.service"; then
		fail "$name.service is running: 'systemctl disable --now $name.service' first"
	fi
	# only a command that is ours: a link into this prefix's program directory
	if [ -L "$command" ] && [ "$(readlink "$command")" = "../lib/$name/dist/cmd/static-admissiond.js" ]; then rm -f "$command"; fi
	rm -rf "$program" "$doc"
	rm -f "$unit" "$sysusers"
	daemon_reload
	echo "$name removed from $prefix; $sysconfdir/kubernetes/admission, the keys and the $name user are kept"
	exit 0
fi

if ! command -v node >/dev/null 2>&1; then
	echo "install.sh: warning: no 'node' on PATH; $name needs Node.js >= @REQUIRED_NODE@ (systemd/README.md, \"Node.js\")" >&2
fi

# The program directory is replaced whole, by a rename, so a rerun never leaves a mix of two versions' files.
mkdir -p "$prefix/lib" "$prefix/bin"
rm -rf "$program.new" "$program.old"
cp -R "$here/lib/$name" "$program.new"
if [ -e "$program" ]; then mv "$program" "$program.old"; fi
mv "$program.new" "$program"
rm -rf "$program.old"
ln -sfn "../lib/$name/dist/cmd/static-admissiond.js" "$command"

install -d -m 0755 "$(dirname "$unit")" "$(dirname "$sysusers")" "$prefix/share/doc"
sed -e "s|/usr/bin/$name|$command|g" -e "s|/usr/share/doc/$name|$doc|g" "$here/lib/systemd/system/$name.service" >"$unit.new"
chmod 0644 "$unit.new" && mv "$unit.new" "$unit"
install -m 0644 "$here/lib/sysusers.d/$name.conf" "$sysusers"
rm -rf "$doc.new" && cp -R "$here/share/doc/$name" "$doc.new" && rm -rf "$doc" && mv "$doc.new" "$doc"

for d in validating mutating policies mutating-policies; do install -d -m 0755 "$sysconfdir/kubernetes/admission/$d"; done
[ -d "$sysconfdir/kubernetes/pki/$name" ] || install -d -m 0750 "$sysconfdir/kubernetes/pki/$name"

if [ "$system" = yes ] && command -v systemd-sysusers >/dev/null 2>&1; then
	systemd-sysusers "$sysusers"
	chgrp "$name" "$sysconfdir/kubernetes/pki/$name"
fi
daemon_reload

echo "$name $(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$program/package.json") installed under $prefix (not started)"
case "$prefix" in
/usr | /usr/local) ;;
*) echo "note: systemd does not read $prefix/lib/systemd/system: copy $unit to /etc/systemd/system/ and $sysusers to /etc/sysusers.d/" ;;
esac
