#!/usr/bin/env bash
# Checks the systemd units with systemd-analyze verify (installs systemd from Debian if it is
# missing; needs root for that) and that they keep the hardening the README promises. Where the
# .deb is not installed, /usr/bin/tunnel-server (-client) does not exist and only that complaint
# is let through; tunnel-dist/src/test/sh/test-deb.sh verifies the units the .deb installs.
# Usage: config/systemd/verify.sh      exit 0 when both units pass
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v systemd-analyze >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null
fi
status=0
for unit in tunnel-server.service tunnel-client.service; do
    launcher=/usr/bin/${unit%.service}
    out=$(systemd-analyze verify "./$unit" 2>&1) || true
    if [ ! -e "$launcher" ]; then
        out=$(printf '%s\n' "$out" | grep -vx "$unit: Command $launcher is not executable: No such file or directory" || true)
        echo "$unit: $launcher is not installed (the .deb puts it there)"
    fi
    if [ -z "$out" ]; then
        echo "$unit: systemd-analyze verify OK"
    else
        echo "$unit: systemd-analyze verify FAILED"; echo "$out"; status=1
    fi
    for key in Restart=on-failure User=tunnel ProtectSystem=strict NoNewPrivileges=yes; do
        grep -qx "$key" "$unit" || { echo "$unit: missing $key"; status=1; }
    done
done
grep -qx 'AmbientCapabilities=CAP_NET_BIND_SERVICE' tunnel-server.service \
    || { echo "tunnel-server.service: cannot bind ports below 1024"; status=1; }
grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' tunnel-client.service \
    || { echo "tunnel-client.service: no ExecReload (SIGHUP)"; status=1; }
exit $status
