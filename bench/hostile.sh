#!/usr/bin/env bash
# Hostile public load on one proxy, and what another proxy of the same client sees (issue 12).
#
#   bench/hostile.sh                                this tree's jars
#   VARIANTS="main=/tmp/main-jars now=." bench/hostile.sh
#   env: SCENARIOS="slow idle flood", N=500 (connections), HOLD=30 (seconds each scenario lasts),
#        JVM="..." (both tunnel processes; default: the README's 1 GB VPS flags; empty: a default
#        JVM), RECOVER=15
#
# nginx serves a 64 MiB file and /ping; the client has two proxies to it: "files" (attacked) and
# "web" (probed). Scenarios, each HOLD seconds, against the "files" port:
#   slow:  N connections GET the 64 MiB file with a 4 KiB receive buffer and never read
#   idle:  N connections that connect and send nothing
#   flood: connect and close as fast as one process can (at most 50,000 connections)
# Meanwhile a probe GETs /ping on the "web" port every 50 ms (new connection each, 2 s timeout).
# Per scenario: probe p50/p99/max (ms, all samples), failed probes, RSS peaks of the tunnel
# server and client (MB), session drops (session-closed or reconnect lines in either log), and how
# far each process's RSS is, RECOVER (15) seconds after the load ended, above what it was before
# the scenario started (MB; memory returning after an attack).
# Listens on 127.0.0.1:18800-18899 only; everything it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
VARIANTS=${VARIANTS:-"now=."}; SCENARIOS=${SCENARIOS:-"slow idle flood"}
N=${N:-500}; HOLD=${HOLD:-30}; RECOVER=${RECOVER:-15}
# the README's 1 GB VPS flags unless JVM is set
VPS_FLAGS="-Xms8m -Xmx128m -Xmn2m -XX:MaxDirectMemorySize=64m -XX:+UseSerialGC -Xss512k -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -Dio.netty.jfr.enabled=false"
JVM=${JVM-$VPS_FLAGS}
WORK=$(mktemp -d /tmp/tunnel-hostile.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ "${KEEP_WORK:-0}" = 1 ] && echo "work dir kept: $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
log() { echo "[$(date +%T)] $*" >&2; }
jar() { if [ "$1" = . ]; then echo "$ROOT/tunnel-$2/target/tunnel-$2.jar"; else echo "$1/tunnel-$2.jar"; fi; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

NGINX=18800
mkdir -p "$WORK/www"; head -c $((64 << 20)) /dev/zero > "$WORK/www/big"
nginx_conf "$WORK" $NGINX | sed "s|location /ping|location /big { root $WORK/www; } location /ping|" > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -g 'daemon off;' > "$WORK/nginx.log" 2>&1 & PIDS+=($!)
wait_port $NGINX || { echo "nginx did not start" >&2; exit 1; }

cat > "$WORK/load.py" <<'PY'
import socket, sys, time
kind, port, n, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
end = time.time() + hold
socks, made, failed = [], 0, 0
if kind == "flood":
    while time.time() < end and made < 50000:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2); s.close(); made += 1
        except OSError:
            failed += 1
else:
    for _ in range(n):
        try:
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(5); s.connect(("127.0.0.1", port))
            if kind == "slow":
                s.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            socks.append(s); made += 1
        except OSError:
            failed += 1
    time.sleep(max(0, end - time.time()))
    for s in socks:
        s.close()
print(f"{kind}: {made} connections, {failed} failed")
PY

rss_now() { awk '/VmRSS/ {print int($2 / 1024)}' /proc/$1/status 2>/dev/null || echo 0; } # rss_now PID : MB
rss_peak() { # rss_peak PID SECONDS OUT : highest VmRSS (MB) sampled every 0.5 s
  local peak=0 v end=$(( $(date +%s) + $2 ))
  while [ "$(date +%s)" -lt $end ]; do
    v=$(awk '/VmRSS/ {print int($2 / 1024)}' /proc/$1/status 2>/dev/null || echo 0)
    [ "${v:-0}" -gt $peak ] && peak=$v
    sleep 0.5
  done
  echo $peak > "$3"
}
probe() { # probe PORT SECONDS OUT : one line per probe, seconds or FAIL
  local end=$(( $(date +%s) + $2 ))
  while [ "$(date +%s)" -lt $end ]; do
    t=$(curl -sf -o /dev/null --max-time 2 -w '%{time_total}' "http://127.0.0.1:$1/ping") && echo "$t" || echo FAIL
    sleep 0.05
  done > "$3"
}

base=18810
echo "variant scenario probes failed p50_ms p99_ms max_ms server_rss_peak_mb client_rss_peak_mb session_drops server_rss_after_mb client_rss_after_mb (after: RSS ${RECOVER:-15} s after the load minus RSS before it; N=$N, HOLD=${HOLD}s, JVM=${JVM:-default})"
for v in $VARIANTS; do
  name=${v%%=*}; dir=${v#*=}
  printf 'bindAddr = "127.0.0.1"\nbindPort = %d\nauth.token = "bench"\nlog.level = "info"\n' $base > "$WORK/$name-s.toml"
  printf 'serverAddr = "127.0.0.1"\nserverPort = %d\nauth.token = "bench"\nlog.level = "info"\n[[proxies]]\nname = "files"\nlocalPort = %d\nremotePort = %d\n[[proxies]]\nname = "web"\nlocalPort = %d\nremotePort = %d\n' \
      $base $NGINX $((base + 1)) $NGINX $((base + 2)) > "$WORK/$name-c.toml"
  java $JVM -jar "$(jar "$dir" server)" -c "$WORK/$name-s.toml" > "$WORK/$name-server.log" 2>&1 & spid=$!; PIDS+=($spid)
  wait_port $base 60 || { echo "$name: server did not start" >&2; exit 1; }
  java $JVM -jar "$(jar "$dir" client)" -c "$WORK/$name-c.toml" > "$WORK/$name-client.log" 2>&1 & cpid=$!; PIDS+=($cpid)
  wait_port $((base + 2)) 60 || { echo "$name: client did not come up" >&2; exit 1; }
  curl -s -o /dev/null "http://127.0.0.1:$((base + 1))/big" || true # warm-up
  for sc in $SCENARIOS; do
    before=$(cat "$WORK/$name-server.log" "$WORK/$name-client.log" | grep -cE "session closed|lost; reconnecting|connection to the server lost" || true)
    s0=$(rss_now $spid); c0=$(rss_now $cpid)
    rss_peak $spid $((HOLD + 3)) "$WORK/srss" & r1=$!
    rss_peak $cpid $((HOLD + 3)) "$WORK/crss" & r2=$!
    probe $((base + 2)) $((HOLD + 2)) "$WORK/probe.txt" & pr=$!
    python3 "$WORK/load.py" $sc $((base + 1)) $N $HOLD > "$WORK/load.txt" 2>&1 || true
    wait $pr $r1 $r2 || true
    sleep "$RECOVER"
    s1=$(( $(rss_now $spid) - s0 )); c1=$(( $(rss_now $cpid) - c0 ))
    after=$(cat "$WORK/$name-server.log" "$WORK/$name-client.log" | grep -cE "session closed|lost; reconnecting|connection to the server lost" || true)
    sort -n "$WORK/probe.txt" | awk -v name=$name -v sc=$sc -v s=$(cat "$WORK/srss") -v c=$(cat "$WORK/crss") -v d=$((after - before)) -v s1=$s1 -v c1=$c1 '
      $1 == "FAIL" { f++; next } { v[n++] = $1 * 1000 }
      END { printf "%-8s %-6s %6d %6d %8.1f %8.1f %8.1f %8d %8d %4d %+6d %+6d\n", name, sc, n + f, f, v[int(n * 0.5)], v[int(n * 0.99)], v[n - 1], s, c, d, s1, c1 }'
    log "$name $sc: $(cat "$WORK/load.txt")"
  done
  kill $cpid $spid 2>/dev/null || true
  wait $cpid $spid 2>/dev/null || true
  base=$((base + 10))
done
