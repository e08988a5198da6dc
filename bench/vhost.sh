#!/usr/bin/env bash
# The vhost HTTP port against a tcp proxy of the same tunnel, and against what users run today
# instead (nginx from Debian routing by Host in front of a tcp proxy), side by side in one run:
#   ka      wrk keep-alive req/s (50 connections), and the tunnel processes' CPU per request
#   close   wrk new-connection req/s (Connection: close), likewise
#   down    1 GiB download, MB/s, sha256 checked against the file
#   up      1 GiB upload, MB/s, sha256 computed by the receiving app and checked
# Rounds are interleaved so load from other work hits every column alike; medians at the end,
# with each round's ratio to the tcp column.
#
#   bench/vhost.sh              uses this tree's jars (mvn -B -q -DskipTests package first)
#   options (env): ROUNDS=3 D=5 (wrk seconds) SIZE_MB=1024 TESTS="ka close down up" KEEP_WORK=1
#                  COLS="vhost tcp nginx" (columns to run; a profile wants one)
#                  JAVA_OPTS="..." (both tunnel processes) WARM=30 (seconds of keep-alive load
#                  per column before the rounds: C2 compiles the vhost's longer paths later;
#                  with 10 the first round was the lowest of every run)
#
# Listens on 127.0.0.1:19400-19429 only; everything it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
ROUNDS=${ROUNDS:-3}; D=${D:-5}; SIZE_MB=${SIZE_MB:-1024}
TESTS=${TESTS:-"ka close down up"}
WORK=$(mktemp -d /tmp/tunnel-vhost.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else echo "work dir kept: $WORK" >&2; fi
}
trap cleanup EXIT INT TERM
log() { echo "[$(date +%T)] $*" >&2; }
for tool in wrk curl nginx python3 sha256sum; do
  command -v $tool > /dev/null || { echo "needs $tool (apt-get install wrk curl nginx python3)" >&2; exit 1; }
done

APP=19400; SINK=19401; TUNNEL=19410; VHOST=19411; TCP=19412; TCPSINK=19413; FRONT=19420
for port in $APP $SINK $TUNNEL $VHOST $TCP $TCPSINK $FRONT; do # never measure (or talk to) someone else's service
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then echo "port $port is in use; stop what runs there first" >&2; exit 1; fi
done
chmod 755 "$WORK"  # nginx workers run as nobody
head -c $((SIZE_MB * 1024 * 1024)) /dev/urandom > "$WORK/blob"; chmod 644 "$WORK/blob"
SUM=$(sha256sum "$WORK/blob" | cut -d' ' -f1)

# The local app: nginx serving /ping and the blob, keep-alive without limit.
mkdir -p "$WORK/nginx" "$WORK/www"; ln -s "$WORK/blob" "$WORK/www/blob"
cat > "$WORK/app.conf" <<NGINX
worker_processes 1;
pid $WORK/app.pid;
error_log $WORK/nginx/app-error.log;
events { worker_connections 8192; }
http {
  access_log off; sendfile on;
  client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
  keepalive_requests 10000000;
  server { listen 127.0.0.1:$APP backlog=4096; root $WORK/www;
           location /ping { return 200 "pong\n"; } }
}
NGINX
# What users run instead: nginx on the VPS routing by Host to a tcp proxy of the tunnel.
cat > "$WORK/front.conf" <<NGINX
worker_processes 1;
pid $WORK/front.pid;
error_log $WORK/nginx/front-error.log;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
  keepalive_requests 10000000; client_max_body_size 0; proxy_request_buffering off; proxy_buffering off;
  upstream web { server 127.0.0.1:$TCP; keepalive 64; }
  upstream sink { server 127.0.0.1:$TCPSINK; keepalive 64; }
  server { listen 127.0.0.1:$FRONT backlog=4096; server_name bench.test;
           location / { proxy_pass http://web; proxy_http_version 1.1; proxy_set_header Connection ""; } }
  server { listen 127.0.0.1:$FRONT; server_name sink.test;
           location / { proxy_pass http://sink; proxy_http_version 1.1; proxy_set_header Connection ""; } }
}
NGINX
# The upload sink: reads the body, answers its sha256.
cat > "$WORK/sink.py" <<'PY'
import hashlib, http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n = int(self.headers["Content-Length"]); h = hashlib.sha256()
        while n > 0:
            b = self.rfile.read(min(n, 1 << 20)); h.update(b); n -= len(b)
        body = h.hexdigest().encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
nginx -c "$WORK/app.conf" -g 'daemon off;' > "$WORK/app.log" 2>&1 & PIDS+=($!)
python3 "$WORK/sink.py" $SINK > "$WORK/sink.log" 2>&1 & PIDS+=($!)
wait_port $APP && wait_port $SINK || { echo "backends did not start" >&2; exit 1; }

printf 'bindAddr = "127.0.0.1"\nbindPort = %d\nvhostHTTPPort = %d\nauth.token = "bench"\nlog.level = "warn"\n' \
    $TUNNEL $VHOST > "$WORK/server.toml"
cat > "$WORK/client.toml" <<TOML
serverAddr = "127.0.0.1"
serverPort = $TUNNEL
auth.token = "bench"
log.level = "warn"
[[proxies]]
name = "web"
type = "http"
localPort = $APP
customDomains = ["bench.test"]
[[proxies]]
name = "sink"
type = "http"
localPort = $SINK
customDomains = ["sink.test"]
[[proxies]]
name = "web-tcp"
localPort = $APP
remotePort = $TCP
[[proxies]]
name = "sink-tcp"
localPort = $SINK
remotePort = $TCPSINK
TOML
java ${JAVA_OPTS:-} -jar tunnel-server/target/tunnel-server.jar -c "$WORK/server.toml" > "$WORK/server.log" 2>&1 & PIDS+=($!)
SERVER_PID=$!
wait_port $TUNNEL || { cat "$WORK/server.log" >&2; exit 1; }
java ${JAVA_OPTS:-} -jar tunnel-client/target/tunnel-client.jar -c "$WORK/client.toml" > "$WORK/client.log" 2>&1 & PIDS+=($!)
CLIENT_PID=$!
wait_port $TCPSINK 20 || { cat "$WORK/client.log" >&2; exit 1; }
nginx -c "$WORK/front.conf" -g 'daemon off;' > "$WORK/front.log" 2>&1 & PIDS+=($!)
wait_port $FRONT || { echo "front nginx did not start" >&2; exit 1; }
for i in $(seq 1 50); do curl -sf -H 'Host: bench.test' http://127.0.0.1:$VHOST/ping > /dev/null && break; sleep 0.2; done

# Columns: vhost (the built-in http port), tcp (a tcp proxy, the reference), nginx (nginx by Host
# in front of the tcp proxy).
declare -A PORT=([vhost]=$VHOST [tcp]=$TCP [nginx]=$FRONT)
declare -A SPORT=([vhost]=$VHOST [tcp]=$TCPSINK [nginx]=$FRONT)
read -r -a COLUMNS_RUN <<< "${COLS:-vhost tcp nginx}"
tunnel_ticks() { # CPU clock ticks (user + system) of the two tunnel processes so far
  awk '{ t += $14 + $15 } END { print t }' /proc/$SERVER_PID/stat /proc/$CLIENT_PID/stat
}
TICK_US=$((1000000 / $(getconf CLK_TCK)))
wrk_rps() { # wrk_rps PORT [close]: prints "req/s tunnel-CPU-us-per-request"
  local t0 t1
  t0=$(tunnel_ticks)
  wrk -t1 -c50 -d"${D}s" --timeout 10s -H 'Host: bench.test' ${2:+-H "Connection: close"} \
      "http://127.0.0.1:$1/ping" > "$WORK/wrk.out" 2>&1
  t1=$(tunnel_ticks)
  grep -q Non-2xx "$WORK/wrk.out" && echo "ERR: non-2xx answers through port $1" >&2
  awk -v ticks=$((t1 - t0)) -v us=$TICK_US '/requests in/ { n = $1 } /Requests\/sec/ { r = $2 }
      END { printf "%.0f %.1f", r, (n > 0 ? ticks * us / n : 0) }' "$WORK/wrk.out"
}
down_mbs() { # 1 GiB through PORT, sha256 checked; MB/s
  local t0 t1 got
  t0=$(date +%s.%N)
  got=$(curl -sf -H 'Host: bench.test' "http://127.0.0.1:$1/blob" | sha256sum | cut -d' ' -f1)
  t1=$(date +%s.%N)
  [ "$got" = "$SUM" ] || { echo "download through port $1: sha256 mismatch" >&2; echo 0; return; }
  awk -v a=$t0 -v b=$t1 -v m=$SIZE_MB 'BEGIN {printf "%.0f", m / (b - a)}'
}
up_mbs() {
  local t0 t1 got
  t0=$(date +%s.%N)
  got=$(curl -sf -H "Host: sink.test" -H "Expect:" -T "$WORK/blob" -X POST "http://127.0.0.1:$1/up")
  t1=$(date +%s.%N)
  [ "$got" = "$SUM" ] || { echo "upload through port $1: sha256 mismatch ($got)" >&2; echo 0; return; }
  awk -v a=$t0 -v b=$t1 -v m=$SIZE_MB 'BEGIN {printf "%.0f", m / (b - a)}'
}

log "warm-up (work dir $WORK)"
for col in "${COLUMNS_RUN[@]}"; do
  wrk -t1 -c20 -d"${WARM:-30}s" -H 'Host: bench.test' "http://127.0.0.1:${PORT[$col]}/ping" > /dev/null 2>&1 || true
  wrk -t1 -c20 -d2s -H 'Host: bench.test' -H 'Connection: close' "http://127.0.0.1:${PORT[$col]}/ping" > /dev/null 2>&1 || true
done

RES=$WORK/results.txt; : > "$RES"
for r in $(seq 1 "$ROUNDS"); do
  for test in $TESTS; do
    for col in "${COLUMNS_RUN[@]}"; do
      cpu=
      case $test in
        ka) read -r v cpu <<< "$(wrk_rps "${PORT[$col]}")" ;;
        close) read -r v cpu <<< "$(wrk_rps "${PORT[$col]}" close)" ;;
        down) v=$(down_mbs "${PORT[$col]}") ;;
        up) v=$(up_mbs "${SPORT[$col]}") ;;
      esac
      echo "$r $test $col ${v:-0}" >> "$RES"
      [ -n "$cpu" ] && echo "$r $test-cpu-us $col $cpu" >> "$RES"
      log "round $r $test $col ${v:-0}${cpu:+ (tunnel CPU ${cpu} us/request)}"
    done
  done
done

echo "test column median_value median_ratio_to_tcp (rounds=$ROUNDS; ka/close: req/s over ${D}s, 50 connections;"
echo "  *-cpu-us: CPU of the two tunnel processes per request, microseconds (nginx's own not counted);"
echo "  down/up: MB/s of ${SIZE_MB} MiB, sha256 checked)"
awk '
  { val[$2" "$3] = val[$2" "$3] " " $4; if ($3 == "tcp") d[$1" "$2] = $4; row[NR] = $0 }
  END {
    for (i = 1; i <= NR; i++) { split(row[i], f, " "); if (f[3] != "tcp" && d[f[1]" "f[2]] > 0) rat[f[2]" "f[3]] = rat[f[2]" "f[3]] " " f[4] / d[f[1]" "f[2]] }
    for (k in val) { printf "%s %s %s\n", k, med(val[k]), (k in rat) ? med(rat[k]) : "-" }
  }
  function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? sprintf("%.3f", a[(n + 1) / 2]) : sprintf("%.3f", (a[n / 2] + a[n / 2 + 1]) / 2) }
' "$RES" | sort
