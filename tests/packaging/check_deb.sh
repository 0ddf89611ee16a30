#!/usr/bin/env bash
# Checks the Debian packages scripts/build_deb.sh built: their contents and
# control fields (dpkg-deb), then installs them on this machine (services are
# not started: policy-rc.d says no), checks the installed server, unit,
# config and SDK (a plugin built against it serves a request), and purges
# them. Needs root. Prints "check_deb: ok" when every check passed.
# Usage: tests/packaging/check_deb.sh [DEB_DIR]   (default: build-deb)
set -euo pipefail
tree=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(cd "${1:-$tree/build-deb}" && pwd)
server_deb=$(ls "$dir"/tiffany_*.deb)
sdk_deb=$(ls "$dir"/tiffany-dev_*.deb)
version=$(dpkg-deb -f "$server_deb" Version)

fail() { echo "check_deb: FAIL: $*" >&2; exit 1; }
# Why grep >/dev/null, never grep -q, after a pipe: -q exits at the first
# match, the writer dies of SIGPIPE, and pipefail makes the match a failure.
# has_file DEB PATH: the package ships PATH (as dpkg-deb -c lists it: ./usr/...).
has_file() { dpkg-deb -c "$1" | awk '{print $6}' | grep -x -- "$2" >/dev/null || fail "$(basename "$1") lacks $2"; }

# --- Contents and control fields -------------------------------------------
for path in ./usr/bin/tiffany ./lib/systemd/system/tiffany.service ./etc/tiffany/tiffany.json \
  ./etc/logrotate.d/tiffany ./usr/share/man/man8/tiffany.8.gz ./var/log/tiffany/ \
  ./usr/share/doc/tiffany/operations.md ./usr/share/doc/tiffany/config.md ./usr/share/tiffany/www/index.html; do
  has_file "$server_deb" "$path"
done
for deb in "$server_deb" "$sdk_deb"; do
  name=$(dpkg-deb -f "$deb" Package)
  dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/share/doc/$name/copyright" | grep -x 'License: Apache-2.0' >/dev/null ||
    fail "$name's copyright does not name the Apache License 2.0"
done
dpkg-deb -I "$server_deb" conffiles | grep -x /etc/tiffany/tiffany.json >/dev/null || fail "the config is not a conffile"
dpkg-deb -I "$server_deb" conffiles | grep -x /etc/logrotate.d/tiffany >/dev/null || fail "the logrotate snippet is not a conffile"
dpkg-deb -f "$server_deb" Depends | grep -w adduser >/dev/null || fail "tiffany does not depend on adduser (its postinst calls it)"
dpkg-deb -I "$server_deb" postinst | grep 'deb-systemd-helper enable' >/dev/null || fail "the unit is not enabled by dh_installsystemd"
# The user exists before the unit is enabled and started (User=tiffany).
dpkg-deb -I "$server_deb" postinst | awk '/^[^#]*adduser /{user=NR} /deb-systemd-helper enable/{if(!first)first=NR}
  END{exit !(user && user < first)}' || fail "the postinst starts the unit before adding the user"

libdir=$(dpkg-deb -c "$sdk_deb" | awk '{print $6}' | sed -n 's|^\./\(usr/lib/[^/]*\)/libtiffany_testkit\.a$|\1|p')
[ -n "$libdir" ] || fail "tiffany-dev lacks the test kit archive"
for path in "./$libdir/cmake/Tiffany/TiffanyConfig.cmake" "./$libdir/cmake/Tiffany/TiffanyTargets.cmake" \
  "./$libdir/cmake/Tiffany/TiffanyPlugin.cmake" ./usr/include/tiffany/handlers/plugin_api.hpp; do
  has_file "$sdk_deb" "$path"
done
# Exactly the headers the layout rule names, as the InstalledSdk tests check for cmake --install.
diff <(dpkg-deb -c "$sdk_deb" | awk '{print $6}' | sed -n 's|^\./usr/include/tiffany/\(.*[^/]\)$|\1|p' | sort) \
  <("$tree/cmake/sdk_headers.sh" "$tree" | sort) || fail "tiffany-dev's headers differ from cmake/sdk_headers.sh's list"
dpkg-deb -f "$sdk_deb" Depends | grep -F "tiffany (= $version)" >/dev/null || fail "tiffany-dev does not pin tiffany (= $version)"
for package in picojson-dev libcrypt-dev; do
  dpkg-deb -f "$sdk_deb" Depends | grep -w "$package" >/dev/null || fail "tiffany-dev does not depend on $package"
done

# --- Installed ----------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || fail "installing needs root"
if dpkg-query -W -f='${Status}' tiffany 2>/dev/null | grep 'install ok installed' >/dev/null; then
  fail "tiffany is already installed here; this check installs and purges its own"
fi
had_user=0
getent passwd tiffany >/dev/null && had_user=1
scratch=$(mktemp -d)
chmod 755 "$scratch"  # Why: the server runs as tiffany and reads its config and plugin here
policy=/usr/sbin/policy-rc.d
made_policy=0
server_pid=
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  dpkg --purge tiffany-dev tiffany >/dev/null 2>&1 || true
  # Why: the package keeps its system user on purge (Debian's rule); this
  # check leaves the machine as it found it.
  [ "$had_user" = 1 ] || { deluser --quiet --system tiffany 2>/dev/null || true; }
  [ "$made_policy" = 0 ] || rm -f "$policy"
  rm -rf "$scratch"
}
trap cleanup EXIT
if [ ! -e "$policy" ]; then
  # Why: Debian starts a freshly installed service unless policy-rc.d says no (101).
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  made_policy=1
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$server_deb" "$sdk_deb" >/dev/null

[ "$(/usr/bin/tiffany --version)" = "tiffany $version" ] || fail "--version says '$(/usr/bin/tiffany --version)', the package $version"
getent passwd tiffany | grep ':/nonexistent:' >/dev/null || fail "no system user tiffany"
[ "$(stat -c '%U:%G %a' /var/log/tiffany)" = "tiffany:adm 2750" ] ||
  fail "/var/log/tiffany is $(stat -c '%U:%G %a' /var/log/tiffany)"
# Why: LogsDirectory= would chown the folder to tiffany:tiffany 0755 at every start of the unit.
! grep -q '^LogsDirectory=' /lib/systemd/system/tiffany.service || fail "the unit re-owns /var/log/tiffany at each start"
systemd-analyze security --offline=true --threshold=20 /lib/systemd/system/tiffany.service >/dev/null ||
  fail "the installed unit's exposure is above 2.0 (systemd-analyze security)"
[ -L /etc/systemd/system/multi-user.target.wants/tiffany.service ] || fail "the unit is not enabled"
# As the unit's ExecStartPre does it: as the user, on the shipped config.
runuser -u tiffany -- /usr/bin/tiffany --config /etc/tiffany/tiffany.json --check-config ||
  fail "the shipped config does not pass --check-config"
# Why empty output: systemd-analyze exits 0 on warnings too.
verify=$(systemd-analyze verify /lib/systemd/system/tiffany.service 2>&1) && [ -z "$verify" ] ||
  fail "systemd-analyze verify of the installed unit: $verify"
logrotate --debug --state "$scratch/logrotate.state" /etc/logrotate.d/tiffany >"$scratch/logrotate.out" 2>&1 &&
  ! grep -qi error "$scratch/logrotate.out" || { cat "$scratch/logrotate.out" >&2; fail "logrotate refuses its snippet"; }
man -l /usr/share/man/man8/tiffany.8.gz >/dev/null 2>&1 || fail "the man page does not render"

# The SDK as a plugin author uses it: find_package(Tiffany) from /usr, no prefix given.
cp -r "$tree/handlers/example_plugins" "$scratch/plugins"
cmake -S "$scratch/plugins" -B "$scratch/plugins/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$scratch/plugins/build" -j "$(nproc)" >/dev/null
[ -f "$scratch/plugins/build/libhello.so" ] || fail "the example plugins did not build against the installed SDK"
# kv_test links the installed test kit (Tiffany::testkit); it is built where GoogleTest is (scripts/setup.sh).
[ -x "$scratch/plugins/build/kv_test" ] || fail "kv_test was not built: is GoogleTest installed (scripts/setup.sh)?"
"$scratch/plugins/build/kv_test" >/dev/null || fail "kv_test (linked with the installed test kit) fails"

# The installed binary loads that plugin and serves it, as the user, logging where the package says.
cat >"$scratch/serve.json" <<JSON
{ "workers": 1, "plugins": ["$scratch/plugins/build/libhello.so"],
  "access_log": { "path": "/var/log/tiffany/access.log" },
  "listeners": [ { "name": "check", "address": "127.0.0.1:0", "protocol": "http", "routes": [
    { "method": "GET", "path": "/hello/:name", "handler": "hello.greet", "with": { "greeting": "Hi" } },
    { "method": "GET", "path": "/*", "handler": "static", "with": { "root": "/usr/share/tiffany/www" } } ] } ] }
JSON
# Why setpriv: it execs, so $! is the server (runuser would stand between it and the signal).
setpriv --reuid=tiffany --regid=tiffany --init-groups /usr/bin/tiffany --config "$scratch/serve.json" 2>"$scratch/serve.err" &
server_pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.*listener "check" serving .* on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$scratch/serve.err" | head -n 1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$scratch/serve.err" >&2; fail "the installed server did not start"; }
curl -fsS "http://127.0.0.1:$port/hello/deb" | grep '"Hi, deb!"' >/dev/null || fail "the plugin's route did not answer"
curl -fsS "http://127.0.0.1:$port/index.html" | grep -i '<html' >/dev/null || fail "the shipped static root was not served"
kill -TERM "$server_pid"
wait "$server_pid" || fail "the server did not exit 0 on SIGTERM"
server_pid=
grep -q 'GET /hello/deb' /var/log/tiffany/access.log || fail "no access-log line in /var/log/tiffany/access.log"

# --- Reinstalled, removed, purged ------------------------------------------------
# A reinstall runs the postinst again with the user already there (an upgrade's path).
dpkg -i "$server_deb" >/dev/null || fail "reinstalling tiffany fails"
getent passwd tiffany >/dev/null || fail "the reinstall lost the user"
# Remove keeps the conffiles and the logs (Debian policy); purge takes them.
dpkg --remove tiffany-dev tiffany >/dev/null
[ ! -e /usr/bin/tiffany ] || fail "/usr/bin/tiffany is left after remove"
[ -f /etc/tiffany/tiffany.json ] || fail "remove took the conffile /etc/tiffany/tiffany.json"
[ -f /var/log/tiffany/access.log ] || fail "remove took the logs"
dpkg --purge tiffany >/dev/null  # (tiffany-dev has no conffiles: removed is gone)
getent passwd tiffany >/dev/null || fail "purge deleted the system user (Debian keeps it)"
for gone in /usr/bin/tiffany /etc/tiffany /var/log/tiffany /usr/include/tiffany /lib/systemd/system/tiffany.service \
  /etc/systemd/system/multi-user.target.wants/tiffany.service; do
  [ ! -e "$gone" ] || fail "$gone is left after purge"
done
echo "check_deb: ok ($(basename "$server_deb"), $(basename "$sdk_deb"))"
