#!/usr/bin/env bash
# Installs the .deb on this machine and runs it as its systemd units would: dpkg -i, the units'
# ExecStart as their user "tunnel" against the sample configs in /etc/tunnel, a request through
# the tunnel, then dpkg -r (and -P). Needs root, ports 7000 and 6080 free, and a built .deb
# (mvn -B -Pdist verify). Prints one line per check and "N passed, N failed".
# Usage: tunnel-dist/src/test/sh/test-deb.sh [path/to/tunnel_*.deb]
set -uo pipefail
cd "$(dirname "$0")/../../../.."
deb=${1:-$(ls tunnel-dist/target/tunnel_*.deb 2>/dev/null | head -n 1)}
[ -f "$deb" ] || { echo "no .deb: build it with mvn -B -Pdist verify" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (dpkg -i)" >&2; exit 2; }
dpkg -s tunnel >/dev/null 2>&1 && { echo "package tunnel is installed already; dpkg -P tunnel first" >&2; exit 2; }
for port in 7000 6080; do
    (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && { echo "port $port is in use" >&2; exit 2; }
done

passed=0 failed=0 pids=()
check() {   # check "what" command...
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
answers() {   # answers PORT: true once 127.0.0.1:PORT accepts, within 30 s
    for _ in $(seq 1 150); do
        (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0
        sleep 0.2
    done
    return 1
}
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    dpkg -P tunnel >/dev/null 2>&1
}
trap cleanup EXIT

check "dpkg -i $(basename "$deb")" dpkg -i "$deb"
check "user tunnel exists" id tunnel
check "/etc/tunnel/server.toml is 640 root:tunnel" test "$(stat -c '%a %U:%G' /etc/tunnel/server.toml)" = "640 root:tunnel"
check "/etc/tunnel/client.toml is 640 root:tunnel" test "$(stat -c '%a %U:%G' /etc/tunnel/client.toml)" = "640 root:tunnel"
check "samples are conffiles" test "$(dpkg-query -W -f='${Conffiles}' tunnel | awk '{print $1}' | paste -sd' ')" = "/etc/tunnel/server.toml /etc/tunnel/client.toml"
check "launchers on the PATH" test -x /usr/bin/tunnel-server -a -x /usr/bin/tunnel-client
check "nothing enabled" test -z "$(ls /etc/systemd/system/*.wants/tunnel-* 2>/dev/null)"
check "nothing started" test -z "$(pgrep -u tunnel 2>/dev/null)"
check "installed units pass systemd-analyze verify" systemd-analyze verify /lib/systemd/system/tunnel-server.service /lib/systemd/system/tunnel-client.service
check "user tunnel cannot read a root-only file (so the 640 check means something)" \
    bash -c '! runuser -u tunnel -- head -c1 /etc/shadow'

for side in server client; do
    exec_start=$(sed -n 's/^ExecStart=//p' "/lib/systemd/system/tunnel-$side.service")
    # shellcheck disable=SC2086 # ExecStart is a command line
    (cd / && exec runuser -u tunnel -- $exec_start) > "/tmp/test-deb-$side.log" 2>&1 &
    pids+=($!)
    echo "     started as tunnel: $exec_start (log /tmp/test-deb-$side.log)"
    [ $side = server ] && check "server's bindPort 7000 answers" answers 7000
done
check "client's proxy opens public port 6080 on the server" answers 6080
check "a request crosses the tunnel (the installed docs)" bash -c 'curl -sf --max-time 20 http://127.0.0.1:6080/ | grep -q install.md'
check "the JVM runs as tunnel with the bundled runtime" \
    bash -c "ps -o user=,args= -u tunnel | grep -q '^tunnel .*/usr/lib/tunnel/runtime/bin/java -Xms8m .*tunnel-server.jar'"
check "no AccessDeniedException in the logs" bash -c '! grep -q AccessDenied /tmp/test-deb-*.log'
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
wait 2>/dev/null
pids=()

check "dpkg -r tunnel" dpkg -r tunnel
check "launchers gone after -r" test ! -e /usr/bin/tunnel-server
check "configs kept after -r" test -f /etc/tunnel/server.toml
check "dpkg -P tunnel removes the configs" bash -c 'dpkg -P tunnel && test ! -e /etc/tunnel/server.toml'
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
