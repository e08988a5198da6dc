#!/usr/bin/env bash
# HAProxy (deploy/haproxy/haproxy.cfg's settings: checks every 500 ms, fall 2, send-proxy-v2)
# in front of three tunnel servers on 127.0.0.11-13, one client in `all` mode with a tcp and an
# http proxy (the local app: one nginx worker); new connections at RATE/s through HAProxy (half
# on the tcp frontend, half on the http one, by dev.tunnel.bench.NewConnLoad), plus KEPT
# keep-alive connections straight to servers 2 and 3 (PROXY v1 header, by KeptConnections);
# `kill -9` of server 1 at KILL_AT s. Prints the failed requests relative to the kill, the
# connections in flight that broke, then the time until the restarted server serves again;
# then the same kill in failover mode. Run under: flock /tmp/tunnel-bench.lock bench/ha.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
RATE=${RATE:-1000}
SECONDS_RUN=${SECONDS_RUN:-10}
KILL_AT=${KILL_AT:-4}
KEPT=${KEPT:-20}
WORK=$(mktemp -d /tmp/tunnel-ha.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true; }
trap cleanup EXIT
command -v haproxy >/dev/null || apt-get install -y -q haproxy >/dev/null
command -v nginx >/dev/null || apt-get install -y -q nginx-light >/dev/null
[ -f tunnel-server/target/tunnel-server.jar ] && [ -f tunnel-client/target/tunnel-client.jar ] && [ -f tunnel-bench/target/tunnel-bench.jar ] \
  || mvn -B -q -o -pl tunnel-server,tunnel-client,tunnel-bench -am -DskipTests package
JVM="-Xms8m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
BENCH="java -Xmx256m -XX:+UseSerialGC -cp tunnel-bench/target/tunnel-bench.jar dev.tunnel.bench"

# The local app both proxies point at: every path answers 200 (HAProxy's check asks for /).
nginx_conf "$WORK" 19080 | sed 's|location /ping|location /|' > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -p "$WORK" 2>/dev/null

server() { # server N : starts server N on 127.0.0.1N, its pid in $WORK/s$N.pid
  cat > "$WORK/s$1.toml" <<TOML
bindAddr = "127.0.0.1$1"
bindPort = 7000
vhostHTTPPort = 18080
proxyProtocolTrustedIPs = ["127.0.0.0/8"]
auth.token = "ha-bench-token"
TOML
  java $JVM -jar tunnel-server/target/tunnel-server.jar -c "$WORK/s$1.toml" >> "$WORK/s$1.log" 2>&1 &
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
    -e 's/bind :80$/bind 127.0.0.1:18000/' -e 's/bind :16000/bind 127.0.0.1:16001/' \
    deploy/haproxy/haproxy.cfg > "$WORK/haproxy.cfg"
haproxy -f "$WORK/haproxy.cfg" -D -p "$WORK/haproxy.pid"; PIDS+=($(cat "$WORK/haproxy.pid"))

# serves ADDR : 200 when server ADDR's http vhost answers through the client. The servers trust
# 127.0.0.0/8 as a balancer, so a request from here must carry a PROXY header (without it the
# server refuses the connection, as it should).
serves() { curl -s -m 1 --haproxy-protocol -o /dev/null -w '%{http_code}' --resolve app.example.com:18080:"$1" "http://app.example.com:18080/" 2>/dev/null || true; }
now_ms() { date +%s%3N; }
until_serves() { # until_serves ADDR SECONDS : waits until it serves; prints ms waited or "never"
  local t0 end; t0=$(now_ms); end=$(( t0 + $2 * 1000 ))
  while [ "$(now_ms)" -lt $end ]; do [ "$(serves "$1")" = 200 ] && { echo $(( $(now_ms) - t0 )); return 0; }; sleep 0.02; done
  echo never; return 1
}
stop_all() {
  kill "$(cat "$WORK/c.pid")" 2>/dev/null || true
  for n in 1 2 3; do kill -9 "$(cat "$WORK/s$n.pid")" 2>/dev/null || true; done
  sleep 1
}
failures() { # failures FILE KILLED_MS
  awk -v k="$2" '/^(FAIL|RESET)/ { rel = $2 - k; n++; if (n == 1 || rel < lo) lo = rel; if (n == 1 || rel > hi) hi = rel; if (rel > 1500) late++ }
      { split($NF, a, ":"); if (a[1] == "started" && (n == 1 || a[2] - k > st)) st = a[2] - k }
    END { if (n) printf "   %d failed, from %+d ms to %+d ms after the kill, %d later than +1500 ms; the last of them started at %+d ms\n", n, lo, hi, late, st; else print "   0 failed" }' "$1"
}

for n in 1 2 3; do server $n; done
for n in 1 2 3; do up $n; done
client all
for n in 1 2 3; do echo "client on server $n after $(until_serves 127.0.0.1$n 60) ms"; done
sleep 1.5 # HAProxy sees all three up (rise 1 at 500 ms)
# warm-up (the JVMs compile the paths), not measured
$BENCH.NewConnLoad --target 127.0.0.1:18000 --rate $(( RATE / 2 )) --seconds 4 --path / > "$WORK/warmup.txt" 2>&1
echo "warm-up: $(head -1 "$WORK/warmup.txt")"
echo "== mode all: $RATE new connections/s through HAProxy for $SECONDS_RUN s, $KEPT kept connections on each of servers 2 and 3, kill -9 of server 1 at ${KILL_AT} s (uptime:$(uptime | sed 's/.*load/ load/'))"
half=$(( RATE / 2 ))
$BENCH.NewConnLoad --target 127.0.0.1:16001 --rate $half --seconds "$SECONDS_RUN" --path / > "$WORK/load-tcp.txt" 2>&1 & l1=$!
$BENCH.NewConnLoad --target 127.0.0.1:18000 --rate $half --seconds "$SECONDS_RUN" --path / > "$WORK/load-http.txt" 2>&1 & l2=$!
kept=()
for n in 2 3; do $BENCH.KeptConnections --target 127.0.0.1$n:16000 --proxy-v1 --connections "$KEPT" --seconds $(( SECONDS_RUN + 1 )) > "$WORK/kept-$n.txt" 2>&1 & kept+=($!); done
sleep "$KILL_AT"; killed=$(now_ms); kill -9 "$(cat "$WORK/s1.pid")"
wait $l1 $l2 "${kept[@]}"
for f in tcp http; do echo "-- $f frontend: $(head -1 "$WORK/load-$f.txt")"; failures "$WORK/load-$f.txt" "$killed"; done
for n in 2 3; do echo "-- kept on server $n: $(head -1 "$WORK/kept-$n.txt")"; failures "$WORK/kept-$n.txt" "$killed"; done
server 1; t0=$(now_ms); up 1; listening=$(( $(now_ms) - t0 ))
back=$(until_serves 127.0.0.11 30)
echo "-- server 1 restarted: listening after $listening ms (JVM start), then serving the client's http proxy after $back ms more (uptime:$(uptime | sed 's/.*load/ load/'))"
stop_all
echo "---- failover mode ----" | tee -a "$WORK"/s?.log >/dev/null

# failover: the proxy answers on the next server within heartbeatTimeout + 2 s of a kill -9
for n in 1 2 3; do server $n; done
for n in 1 2 3; do up $n; done
client failover
echo "client on server 1 after $(until_serves 127.0.0.11 60) ms"
kill -9 "$(cat "$WORK/s1.pid")"
echo "== failover (heartbeatTimeout = 3 s): after kill -9 of server 1 the proxy answers on server 2 in $(until_serves 127.0.0.12 30) ms (uptime:$(uptime | sed 's/.*load/ load/'))"
server 1; t0=$(now_ms); up 1; listening=$(( $(now_ms) - t0 ))
echo "-- server 1 restarted (listening after $listening ms): the client is back on it, serving, after $(until_serves 127.0.0.11 30) ms"
stop_all
echo "logs in $WORK"
