#!/usr/bin/env bash
# Login storm: CLIENTS real clients (one JVM, dev.tunnel.bench.LoginStorm) with PROXIES http
# proxies each on one server started with the 1 GB VPS flags (the launcher's SMALL_VPS_FLAGS);
# once all are logged in, `kill -9` of the server and a restart: prints the time until every
# client is logged in again, how many gave up, and the server's RSS (peak and after).
# All clients come from 127.0.0.1, so the per-address handshake limit is off here
# (transport.handshakeRatePerIP = 0); the global pacing (transport.handshakeRate) stays at its default.
# Run under: flock /tmp/tunnel-bench.lock bench/login-storm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${CLIENTS:-100}
PROXIES=${PROXIES:-10}
WAIT=${WAIT:-60}
WORK=$(mktemp -d /tmp/tunnel-storm.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
[ -f tunnel-server/target/tunnel-server.jar ] && [ -f tunnel-bench/target/tunnel-bench.jar ] \
  || mvn -B -q -o -pl tunnel-server,tunnel-bench -am -DskipTests package
eval "$(grep '^SMALL_VPS_FLAGS=' tunnel-dist/src/bin/launcher.sh)"
cat > "$WORK/s.toml" <<TOML
bindAddr = "127.0.0.1"
bindPort = 17000
vhostHTTPPort = 18090
auth.token = "storm-token"
transport.handshakeRatePerIP = 0
TOML
server() {
  java $SMALL_VPS_FLAGS ${SERVER_JAVA_OPTS:-} -jar tunnel-server/target/tunnel-server.jar -c "$WORK/s.toml" >> "$WORK/s.log" 2>&1 &
  SERVER=$!; PIDS+=($SERVER)
}
up() { for i in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/17000) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
rss() { awk '/VmHWM|VmRSS/ { printf "%s %d MB  ", $1, $2 / 1024 }' "/proc/$1/status"; }
now_ms() { date +%s%3N; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$1/stat"; }

server; up
java -Xmx1g -XX:MaxDirectMemorySize=3g -Xss256k -XX:+UseSerialGC ${STORM_JAVA_OPTS:-} -cp tunnel-bench/target/tunnel-bench.jar dev.tunnel.bench.LoginStorm \
  --server 127.0.0.1:17000 --clients "$CLIENTS" --proxies "$PROXIES" --wait "$WAIT" > "$WORK/storm.txt" 2> "$WORK/storm.log" &
STORM=$!; PIDS+=($STORM)
for i in $(seq 3000); do grep -q '^ONLINE\|^NOT-ONLINE' "$WORK/storm.txt" && break; kill -0 $STORM 2>/dev/null || break; sleep 0.1; done
grep -q '^ONLINE' "$WORK/storm.txt" || { echo "the clients did not all log in the first time: $(cat "$WORK/storm.txt")"; exit 1; }
echo "== $CLIENTS clients x $PROXIES proxies logged in; server $(rss $SERVER)(uptime:$(uptime | sed 's/.*load/ load/'))"
kill -9 $SERVER; wait $SERVER 2>/dev/null || true
storm_cpu0=$(cpu_s $STORM); storm_cpu=$storm_cpu0
t0=$(now_ms); server; up; listening=$(now_ms)
peak=0
while kill -0 $STORM 2>/dev/null; do
  r=$(awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$SERVER/status"); [ "$r" -gt "$peak" ] && peak=$r
  server_cpu=$(cpu_s $SERVER); storm_cpu=$(cpu_s $STORM 2>/dev/null || echo "$storm_cpu")
  sleep 0.2
done
line=$(grep '^BACK\|^NOT-BACK' "$WORK/storm.txt" || echo "NOT-BACK (no answer)")
end=$(echo "$line" | awk '{ print $2 }')
echo "-- server restarted: listening after $(( listening - t0 )) ms; $line"
[ "${line%% *}" = BACK ] && echo "   all $CLIENTS logged in again $(( end - listening )) ms after the server listened ($(( end - t0 )) ms after the restart command)"
echo "   server after the storm: $(rss $SERVER)(peak VmRSS sampled: $peak MB; uptime:$(uptime | sed 's/.*load/ load/'))"
echo "   CPU from the restart to the end: server ${server_cpu} s (start-up included), clients' JVM $(awk -v a="$storm_cpu0" -v b="$storm_cpu" 'BEGIN { printf "%.1f", b - a }') s"
echo "   refused handshakes in the server log: $(grep -c 'handshakeRate' "$WORK/s.log" || true)"
echo "logs in $WORK"
