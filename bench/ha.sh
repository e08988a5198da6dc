#!/usr/bin/env bash
# HAProxy (deploy/haproxy/haproxy.cfg's settings: checks every 500 ms, fall 2, send-proxy-v2)
# in front of three tunnel servers on 127.0.0.11-13, one client in `all` mode with a tcp and an
# http proxy; new connections at RATE/s through HAProxy; `kill -9` of one server mid-run. Prints
# the failed requests relative to the kill, then the time until the restarted server serves
# again; then the same kill in failover mode. Run under: flock /tmp/tunnel-bench.lock bench/ha.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${RATE:-1000}
SECONDS_RUN=${SECONDS_RUN:-8}
KILL_AT=${KILL_AT:-3}
WORK=$(mktemp -d /tmp/tunnel-ha.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
command -v haproxy >/dev/null || apt-get install -y -q haproxy >/dev/null
[ -f tunnel-server/target/tunnel-server.jar ] && [ -f tunnel-client/target/tunnel-client.jar ] \
  || mvn -B -q -o -pl tunnel-server,tunnel-client -am -DskipTests package
JVM="-Xms8m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"

# The local app: a tiny HTTP server both proxies point at.
python3 -c '
import asyncio
async def h(r, w):
    await r.readuntil(b"\r\n\r\n"); w.write(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"); await w.drain(); w.close()
async def m():
    s = await asyncio.start_server(h, "127.0.0.1", 19080, backlog=4096); await s.serve_forever()
asyncio.run(m())' 2> "$WORK/app.log" & PIDS+=($!)

server() { # server N : starts server N on 127.0.0.1N, its pid in $WORK/s$N.pid
  cat > "$WORK/s$1.toml" <<TOML
bindAddr = "127.0.0.1$1"
bindPort = 7000
vhostHTTPPort = 18080
proxyProtocolTrustedIPs = ["127.0.0.0/8"]
auth.token = "ha-bench-token"
TOML
  java $JVM -jar tunnel-server/target/tunnel-server.jar -c "$WORK/s$1.toml" > "$WORK/s$1.log" 2>&1 &
  echo $! > "$WORK/s$1.pid"; PIDS+=($!)
}
up() { # up N : waits (at most 60 s) for server N's bindPort
  for i in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1$1/7000) 2>/dev/null && return 0; sleep 0.1; done; return 1
}
client() { # client MODE
  cat > "$WORK/c.toml" <<TOML
serverAddrs = ["127.0.0.11:7000", "127.0.0.12:7000", "127.0.0.13:7000"]
serverMode = "$1"
loginFailExit = false
auth.token = "ha-bench-token"
transport.heartbeatInterval = 1
transport.heartbeatTimeout = 3
[[proxies]]
name = "tcp"
type = "tcp"
localPort = 19080
remotePort = 16000
[[proxies]]
name = "web"
type = "http"
localPort = 19080
customDomains = ["app.example.com"]
TOML
  java $JVM -jar tunnel-client/target/tunnel-client.jar -c "$WORK/c.toml" > "$WORK/c-$1.log" 2>&1 &
  echo $! > "$WORK/c.pid"; PIDS+=($!)
}
# deploy/haproxy/haproxy.cfg with the loopback addresses and bench ports.
sed -e 's/10\.0\.0\.1\([123]\)/127.0.0.1\1/g' -e 's/:6000/:16000/g' -e 's/:8080/:18080/g' \
    -e 's/bind :80$/bind 127.0.0.1:18000/' -e 's/bind :6000/bind 127.0.0.1:16001/' -e 's/bind :16000/bind 127.0.0.1:16001/' \
    deploy/haproxy/haproxy.cfg > "$WORK/haproxy.cfg"
haproxy -f "$WORK/haproxy.cfg" -D -p "$WORK/haproxy.pid"; PIDS+=($(cat "$WORK/haproxy.pid"))

serves() { curl -s -m 1 -o /dev/null -w '%{http_code}' --resolve app.example.com:18080:"$1" "http://app.example.com:18080/" 2>/dev/null; }
now_ms() { date +%s%3N; }

run_mode() { # run_mode MODE
  for n in 1 2 3; do server $n; done
  for n in 1 2 3; do up $n; done
  client "$1"
  for n in 1 2 3; do for i in $(seq 300); do [ "$(serves 127.0.0.1$n)" = 200 ] && break; sleep 0.1; done; done
  sleep 1.5 # HAProxy sees all three up (rise 1 at 500 ms)
  echo "== mode $1: $RATE new connections/s through HAProxy for $SECONDS_RUN s, kill -9 of server 1 at ${KILL_AT} s (uptime:$(uptime | sed 's/.*load/ load/'))"
  for target in "16001 tcp" "18000 http"; do
    set -- $target
    start=$(now_ms)
    python3 bench/ha-load.py 127.0.0.1 "$1" "$RATE" "$SECONDS_RUN" app.example.com > "$WORK/load-$2.txt" & lp=$!
    sleep "$KILL_AT"; killed=$(now_ms); kill -9 "$(cat "$WORK/s1.pid")"
    wait $lp
    echo "-- $2 frontend: $(head -1 "$WORK/load-$2.txt")"
    awk -v k=$(( killed - start )) '/^FAIL/ { t = $2 * 1000; n++; rel = t - k; if (n == 1 || rel < lo) lo = rel; if (n == 1 || rel > hi) hi = rel }
      END { if (n) printf "   failures: %d, from %+d ms to %+d ms after the kill\n", n, lo, hi; else print "   failures: 0" }' \
      <(awk -v s=$start '/^FAIL/ { printf "FAIL %.3f\n", $2 - s / 1000 }' "$WORK/load-$2.txt")
    server 1; t0=$(now_ms)
    for i in $(seq 200); do [ "$(serves 127.0.0.11)" = 200 ] && break; sleep 0.05; done
    echo "   server 1 restarted: serves the client's http proxy after $(( $(now_ms) - t0 )) ms (JVM start included)"
    sleep 1
  done
  kill "$(cat "$WORK/c.pid")" 2>/dev/null || true
  for n in 1 2 3; do kill -9 "$(cat "$WORK/s$n.pid")" 2>/dev/null || true; done
  sleep 1
}

run_mode all
# failover: the proxy answers on the next server within heartbeatTimeout + 2 s of a kill -9
for n in 1 2 3; do server $n; done
for n in 1 2 3; do up $n; done
client failover
for i in $(seq 300); do [ "$(serves 127.0.0.11)" = 200 ] && break; sleep 0.1; done
kill -9 "$(cat "$WORK/s1.pid")"; t0=$(now_ms)
for i in $(seq 400); do [ "$(serves 127.0.0.12)" = 200 ] && break; sleep 0.05; done
echo "== failover (heartbeatTimeout = 3 s): after kill -9 of server 1 the proxy answers on server 2 in $(( $(now_ms) - t0 )) ms"
echo "logs in $WORK"
