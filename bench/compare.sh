#!/usr/bin/env bash
# The one way to write docs/benchmarks.md (and docs/benchmarks.svg, docs/benchmarks-raw.txt):
# benchmarks the tunnel side by side with a direct connection, two HAProxy hops and `ssh -R`, then
# runs bench/link.sh (latency under load on a shared link), bench/vhost.sh and bench/udp.sh and
# puts their tables after its own. Run it alone on the machine, under the bench lock:
#
#   flock /tmp/tunnel-bench.lock bench/compare.sh           full run, about 50 minutes
#   flock /tmp/tunnel-bench.lock bench/compare.sh --quick   a few minutes, small counts: checks
#                                                           that the harness works (writes to its work dir)
#   options: --out FILE (default docs/benchmarks.md; --quick writes into its work dir)
#            --no-install (skip apt-get), SKIP_BUILD=1 (use the jars already built),
#            SECTIONS="main link vhost udp" (the parts to run; the document holds only those),
#            ONLY="direct ssh" (run only these columns of main, for debugging), KEEP_WORK=1 (keep logs),
#            MAIN_RAW=docs/benchmarks-raw.txt (main's table from that earlier run's figures instead of
#            measuring it again, when only the other sections are to be refreshed)
#
# Everything listens on 127.0.0.1 (ports 17000-17999). Every load is bounded in count and time.
# Columns: direct (the load tool straight to the backend), ssh -R, two chained HAProxy TCP relays
# (a reference: the hops any user-space tunnel adds, in C, without TLS), the tunnel in mux mode with
# TLS on and off, pool mode with TLS (transport.poolCount = 5),
# mux TLS with the small-VPS JVM flags (memory figures, HTTP and long connections), and a bare Netty
# TLS relay with the same flags (NettyFloor: a memory reference, idle and ~1,000 req/s only).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh

QUICK=0; INSTALL=1; OUT=""; SECTIONS=${SECTIONS:-"main link vhost udp"}
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --no-install) INSTALL=0 ;;
    --out) OUT=$2; shift ;;
    *) echo "unknown option: $1 (expected: --quick, --no-install, --out FILE)" >&2; exit 2 ;;
  esac
  shift
done
COMMAND="bench/compare.sh"; [ $QUICK = 0 ] || COMMAND="$COMMAND --quick"

WORK=$(mktemp -d /tmp/tunnel-bench.XXXXXX)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
RESULTS=$WORK/results.txt; META=$WORK/meta.txt
: > "$RESULTS"; : > "$META"
[ -z "$OUT" ] && { if [ $QUICK = 1 ]; then OUT=$WORK/benchmarks.md; else OUT=docs/benchmarks.md; fi; }
SVG="${OUT%.md}.svg"
log() { echo "[$(date +%T)] $*" >&2; }
note() { echo "note=$*" >> "$META"; }
put() { [ -n "$3" ] && echo "$1 $2 $3" >> "$RESULTS"; log "  $1 $2 = ${3:-?}"; }

# ---- durations and counts ----
if [ $QUICK = 1 ]; then
  D=2; IPERF_T=2; LINK_IPERF_T=3; TTFB_N=5; IDLE_N=300; LONG_N=200; LONG_S=5; LONG_INTERVAL=1000; LONG_WARMUP=1000
  WARM_S=1; IPERF_WARM_S=1; LINK_WARM_S=1
  RATE_S=3; SETTLE=1
else
  D=10; IPERF_T=5; LINK_IPERF_T=10; TTFB_N=20; IDLE_N=10000; LONG_N=20000; LONG_S=60; LONG_INTERVAL=5000; LONG_WARMUP=10000
  # A JVM's C2 compiler is still busy 20-30 s into such a load on 2 cores (perf: a quarter of the
  # tunnel's CPU); a server runs for days, so each HTTP figure follows its own warm-up.
  WARM_S=15
  # The bulk path (large reads, TLS records, DATA frames) is compiled separately from the HTTP
  # one; over the link, the client is a fresh JVM (it was restarted behind the emulator).
  IPERF_WARM_S=8; LINK_WARM_S=8
  RATE_S=15; SETTLE=3
fi
DELAY_MS=40

# ---- tools ----
need=()
for t in wrk iperf3 nginx sshd ssh ssh-keygen curl haproxy; do
  command -v $t >/dev/null 2>&1 || [ -x /usr/sbin/$t ] || need+=($t)
done
if [ ${#need[@]} -gt 0 ]; then
  if [ $INSTALL = 1 ] && [ "$(id -u)" = 0 ]; then
    log "installing: wrk iperf3 nginx-light openssh-server openssh-client curl haproxy (missing: ${need[*]})"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk iperf3 nginx-light openssh-server openssh-client curl haproxy >/dev/null
  else
    echo "missing tools: ${need[*]}; run as root (apt-get install -y wrk iperf3 nginx-light openssh-server haproxy)" >&2
    exit 1
  fi
fi
SSHD=$(command -v sshd || echo /usr/sbin/sshd)

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  log "building the jars"
  mvn -B -q -DskipTests package
fi
SERVER_JAR=$ROOT/tunnel-server/target/tunnel-server.jar
CLIENT_JAR=$ROOT/tunnel-client/target/tunnel-client.jar
BENCH_JAR=$ROOT/tunnel-bench/target/tunnel-bench.jar
FLOOR_JAR=$ROOT/tunnel-bench/target/netty-floor.jar   # NettyFloor with Netty alone (the memory reference)

# One process may not hold more descriptors than the hard limit: 20,000 connections need
# 20,000 sockets in the tunnel server, the client and the backend each, plus their own files.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
FD_LIMIT=$(ulimit -n)
if [ "$LONG_N" -gt $((FD_LIMIT - 400)) ]; then
  WANTED=$LONG_N; LONG_N=$(( (FD_LIMIT - 400) / 100 * 100 ))
  note "long connections: $LONG_N instead of $WANTED, because the hard limit on open files here is $FD_LIMIT per process (ulimit -Hn; this container cannot raise it) and the tunnel server holds one socket per connection plus its own files."
fi
LOAD_PROCS=$(( LONG_N > 5000 ? 2 : 1 ))

# ---- process bookkeeping ----
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else log "work dir kept: $WORK"; fi
}
trap cleanup EXIT INT TERM
start() { # start NAME CMD... : runs in the background, logs to $WORK/NAME.log, sets LAST_PID
  local name=$1; shift
  "$@" > "$WORK/$name.log" 2>&1 &
  LAST_PID=$!; PIDS+=($LAST_PID)
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
descendants() { local k; for k in $(pgrep -P "$1" || true); do echo "$k"; descendants "$k"; done; }
rss_mb() { awk '/VmRSS/ {printf "%.1f", $2/1024}' /proc/$1/status 2>/dev/null; }
rss_kb() { awk '/VmRSS/ {print $2}' /proc/$1/status 2>/dev/null; }
sum_rss_kb() { local t=0 k; for p in "$@"; do k=$(rss_kb $p); t=$((t + ${k:-0})); done; echo $t; }

# wrk output -> "rps p50_ms p99_ms"
to_ms() { awk '{v=$1; if (v ~ /us$/) {sub(/us$/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v=v*1000}; printf "%.3f", v}'; }
wrk_run() { # wrk_run URL CONNS SECONDS [extra wrk args...]
  local url=$1 c=$2 s=$3; shift 3
  local out; out=$(wrk -t1 -c"$c" -d"${s}s" --latency --timeout 10s "$@" "$url" 2>&1 || true)
  echo "$out" > "$WORK/wrk-last.txt"
  local rps p50 p99
  rps=$(echo "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}' | to_ms)
  p99=$(echo "$out" | awk '$1=="99%" {print $2}' | to_ms)
  if echo "$out" | grep -q "Non-2xx\|Socket errors"; then
    log "  wrk: $(echo "$out" | grep "Non-2xx\|Socket errors" | tr '\n' ' ')"
  fi
  echo "${rps:-} ${p50:-} ${p99:-}"
}
iperf_run() { # iperf_run PORT STREAMS SECONDS -> Mbit/s at the receiver
  iperf3 -c 127.0.0.1 -p "$1" -P "$2" -t "$3" -f m 2>&1 | awk '/receiver/ {v=$(NF-2)} END {print v}'
}
mbit_to_gbit() { [ -n "$1" ] && awk -v v="$1" 'BEGIN {printf "%.2f", v/1000}'; }
bench_java() { java -cp "$BENCH_JAR" "$@"; }

# ---- backends ----
NGINX_PORT=17080; IPERF_PORT=17201; ECHO_PORT=17300
nginx_conf "$WORK" $NGINX_PORT > "$WORK/nginx.conf"
start nginx nginx -c "$WORK/nginx.conf" -g 'daemon off;'
start iperf3 iperf3 -s -B 127.0.0.1 -p $IPERF_PORT
start echo java -Xmx256m -Xlog:gc:file="$WORK/gc-echo.log" -cp "$BENCH_JAR" dev.tunnel.bench.EchoServer --listen 127.0.0.1:$ECHO_PORT --threads 1
wait_port $NGINX_PORT && wait_port $IPERF_PORT && wait_port $ECHO_PORT || { echo "backends did not start" >&2; tail "$WORK"/*.log >&2; exit 1; }

# ---- measurement blocks ----
# loopback COLUMN WEB_PORT IPERF_PORT [RELAY_PIDS...] : the relay's processes (both sides) are
# charged their CPU time per request (utime + stime from /proc, every thread).
loopback() {
  local col=$1 web=$2 ip=$3; shift 3
  log "$col: loopback (wrk ${D}s, iperf3 ${IPERF_T}s)"
  http_block $col $web "$@"
  iperf_run $ip 1 $IPERF_WARM_S >/dev/null   # warm-up
  put iperf1_gbit $col "$(mbit_to_gbit "$(iperf_run $ip 1 $IPERF_T)")"
  put iperf8_gbit $col "$(mbit_to_gbit "$(iperf_run $ip 8 $IPERF_T)")"
}
# http_block COLUMN WEB_PORT [RELAY_PIDS...] : keep-alive, then a new connection per request
http_block() {
  local col=$1 web=$2 r t0; shift 2
  local relay=("$@")
  wrk_run "http://127.0.0.1:$web/ping" 50 $WARM_S >/dev/null   # warm-up
  t0=$(cpu_ticks "${relay[@]}")
  r=($(wrk_run "http://127.0.0.1:$web/ping" 50 $D))
  put ka_rps $col "${r[0]:-}"; put ka_p50_ms $col "${r[1]:-}"; put ka_p99_ms $col "${r[2]:-}"
  put ka_cpu_us $col "$(us_per_request "${r[0]:-}" $t0 "${relay[@]}")"
  wrk_run "http://127.0.0.1:$web/ping" 50 $WARM_S -H "Connection: close" >/dev/null
  t0=$(cpu_ticks "${relay[@]}")
  r=($(wrk_run "http://127.0.0.1:$web/ping" 50 $D -H "Connection: close"))
  put close_rps $col "${r[0]:-}"; put close_p99_ms $col "${r[2]:-}"
  put close_cpu_us $col "$(us_per_request "${r[0]:-}" $t0 "${relay[@]}")"
}
softnet_drops() { local d=0 x; while read -r _ x _; do d=$((d + 16#$x)); done < /proc/net/softnet_stat; echo $d; }
cpu_ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat 2>/dev/null || echo 0))); done; echo $t; }
us_per_request() { # us_per_request RPS TICKS_BEFORE PIDS... : CPU microseconds per request over the last $D s
  local rps=$1 t0=$2; shift 2
  [ $# -gt 0 ] && [ -n "$rps" ] || return 0
  awk -v d=$(( $(cpu_ticks "$@") - t0 )) -v hz="$(getconf CLK_TCK)" -v r="$rps" -v s=$D 'BEGIN {printf "%.1f", d * 1e6 / hz / (r * s)}'
}
# overlink COLUMN WEB_PORT IPERF_PORT : the link emulator is already in place
overlink() {
  local col=$1 web=$2 ip=$3 r
  log "$col: over the emulated link (${DELAY_MS} ms each way)"
  wrk_run "http://127.0.0.1:$web/ping" 50 $LINK_WARM_S -H "Connection: close" >/dev/null   # warm-up
  put link_ttfb_ms $col "$(bench_java dev.tunnel.bench.FirstByte --target 127.0.0.1:$web --samples $TTFB_N | awk '/^RESULT/ {split($2,a,"="); print a[2]}')"
  wrk_run "http://127.0.0.1:$web/ping" 50 2 >/dev/null
  r=($(wrk_run "http://127.0.0.1:$web/ping" 50 $D))
  put link_rps $col "${r[0]:-}"; put link_p50_ms $col "${r[1]:-}"; put link_p99_ms $col "${r[2]:-}"
  put link_iperf1_mbit $col "$(iperf_run $ip 1 $LINK_IPERF_T)"
}
# memory COLUMN WEB_PORT ECHO_PORT SERVER_PIDS... -- CLIENT_PIDS... (ECHO_PORT "-": no idle-connection figures)
memory() {
  local col=$1 web=$2 echo=$3; shift 3
  local sp=() cp=() side=s
  for p in "$@"; do if [ "$p" = -- ]; then side=c; elif [ $side = s ]; then sp+=($p); else cp+=($p); fi; done
  log "$col: memory (idle, ~1,000 req/s for ${RATE_S}s$( [ "$echo" = - ] || echo ", $IDLE_N idle connections"))"
  sleep $SETTLE
  put rss_idle_server_mb $col "$(awk -v k=$(sum_rss_kb ${sp[@]}) 'BEGIN {printf "%.1f", k/1024}')"
  put rss_idle_client_mb $col "$(awk -v k=$(sum_rss_kb ${cp[@]}) 'BEGIN {printf "%.1f", k/1024}')"
  wrk -t1 -c10 -d${RATE_S}s -s "$ROOT/bench/rate.lua" "http://127.0.0.1:$web/ping" > "$WORK/rate-$col.txt" 2>&1 &
  local w=$! maxs=0 maxc=0 s c
  while kill -0 $w 2>/dev/null; do
    s=$(sum_rss_kb ${sp[@]}); c=$(sum_rss_kb ${cp[@]})
    [ "$s" -gt $maxs ] && maxs=$s; [ "$c" -gt $maxc ] && maxc=$c
    sleep 0.5
  done
  wait $w || true
  put rate_rps $col "$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$WORK/rate-$col.txt")"
  put rss_1k_server_mb $col "$(awk -v k=$maxs 'BEGIN {printf "%.1f", k/1024}')"
  put rss_1k_client_mb $col "$(awk -v k=$maxc 'BEGIN {printf "%.1f", k/1024}')"
  [ "$echo" != - ] || return 0   # no echo port: idle and ~1,000 req/s only
  local s0 c0; s0=$(sum_rss_kb ${sp[@]}); c0=$(sum_rss_kb ${cp[@]})
  bench_java dev.tunnel.bench.LongConnLoad --target 127.0.0.1:$echo --connections $IDLE_N --interval-ms 0 \
      --duration-s $((SETTLE * 3 + 2)) --connect-rate 4000 > "$WORK/idle-$col.txt" 2>&1 &
  local l=$!
  for _ in $(seq 1 600); do grep -q "connected: ready" "$WORK/idle-$col.txt" 2>/dev/null && break; sleep 0.1; done
  sleep $((SETTLE * 2))
  local s1 c1; s1=$(sum_rss_kb ${sp[@]}); c1=$(sum_rss_kb ${cp[@]})
  wait $l || true
  put rss_10k_server_mb $col "$(awk -v k=$s1 'BEGIN {printf "%.1f", k/1024}')"
  put rss_10k_client_mb $col "$(awk -v k=$c1 'BEGIN {printf "%.1f", k/1024}')"
  put per_conn_server_kib $col "$(awk -v a=$s0 -v b=$s1 -v n=$IDLE_N 'BEGIN {printf "%.2f", (b-a)/n}')"
  put per_conn_client_kib $col "$(awk -v a=$s0 -v b=$c1 -v n=$IDLE_N -v c0=$c0 'BEGIN {printf "%.2f", (b-c0)/n}')"
  grep -q "open $IDLE_N\|$IDLE_N open" "$WORK/idle-$col.txt" || log "  idle run: $(grep connections: "$WORK/idle-$col.txt")"
}
# longrun COLUMN ECHO_PORT : LONG_N connections split over LOAD_PROCS processes, raw histograms merged
longrun() {
  local col=$1 port=$2 per=$((LONG_N / LOAD_PROCS)) pids=() files=() i
  log "$col: $LONG_N long connections, one message per ${LONG_INTERVAL} ms for ${LONG_S}s ($LOAD_PROCS load processes)"
  command -v nstat >/dev/null && nstat -n
  local drops0; drops0=$(softnet_drops)
  # The processes start sending together and close together (ProcessBarrier): one's ramp or
  # teardown of ~10,000 connections must not land in another's measured round trips.
  local barrier="$WORK/barrier-$col"; rm -rf "$barrier"
  for i in $(seq 1 $LOAD_PROCS); do
    java -Xlog:gc:file="$WORK/gc-long-$col-$i.log" -cp "$BENCH_JAR" dev.tunnel.bench.LongConnLoad --target 127.0.0.1:$port --connections $per \
        --interval-ms $LONG_INTERVAL --duration-s $LONG_S --warmup-ms $LONG_WARMUP --threads 2 --barrier "$barrier" --parties $LOAD_PROCS \
        --sources 127.0.0.$((i + 1)) --connect-rate 2000 --out "$WORK/long-$col-$i.res" > "$WORK/long-$col-$i.txt" 2>&1 &
    pids+=($!); files+=("$WORK/long-$col-$i.res")
  done
  for p in "${pids[@]}"; do wait $p || true; done
  # Connects that found an accept queue full stall in SYN-ACK retransmits (1 s, 3 s...): say if any did.
  if command -v nstat >/dev/null; then
    local k; k=$(nstat -z 2>/dev/null | awk '$1=="TcpExtListenOverflows" {o=$2} $1=="TcpExtTCPSynRetrans" {s=$2} $1=="TcpExtTCPTimeouts" {t=$2} END {print o+0, s+0, t+0}')
    local drops=$(( $(softnet_drops) - drops0 ))
    [ "$k" = "0 0 0" ] && [ $drops = 0 ] || note "$col long connections: the kernel counted $(echo $k | cut -d' ' -f1) accept-queue overflows, $(echo $k | cut -d' ' -f2) SYN retransmits, $(echo $k | cut -d' ' -f3) retransmission timeouts and $drops packets dropped from full per-CPU backlogs during the run (whole machine; a lost SYN waits 1 s)."
  fi
  local m; m=$(bench_java dev.tunnel.bench.LongConnLoad merge "${files[@]}" 2>&1 || true)
  # Pauses over 50 ms in the load tool or the echo backend during the run (they land in every column's tail).
  awk -v c=$col '/Pause/ {v=$NF; sub(/ms/,"",v); if (v+0 > 50) print "    gc pause > 50 ms (" FILENAME "): " $0}' "$WORK"/gc-long-$col-*.log "$WORK/gc-echo.log" >&2 || true
  echo "$m" > "$WORK/long-$col.txt"; echo "$m" | sed 's/^/    /' >&2
  # When each load process saw its late round trips (a stall of every connection, or spread out).
  for i in $(seq 1 $LOAD_PROCS); do grep -h '^late round trips' "$WORK/long-$col-$i.txt" | sed "s/^/    process $i: /" >&2 || true; done
  local line; line=$(echo "$m" | grep '^RESULT' || true)
  get() { echo "$line" | tr ' ' '\n' | awk -F= -v k=$1 '$1==k {print $2}'; }
  put long_conns $col "$(get open)"; put long_sent $col "$(get sent)"; put long_lost $col "$(get lost)"
  put long_p50_ms $col "$(get p50_ms)"; put long_p99_ms $col "$(get p99_ms)"; put long_tool_cpu_pct $col "$(get cpu_pct)"
}

[[ " $SECTIONS " == *" main "* ]] && [ -z "${MAIN_RAW:-}" ] || ONLY=none
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# ---- direct ----
LINK_WEB=17081; LINK_IPERF=17202
if want direct; then
loopback direct $NGINX_PORT $IPERF_PORT
start link-direct-web java -cp "$BENCH_JAR" dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:$LINK_WEB --target 127.0.0.1:$NGINX_PORT --delay-ms $DELAY_MS
e1=$LAST_PID
start link-direct-iperf java -cp "$BENCH_JAR" dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:$LINK_IPERF --target 127.0.0.1:$IPERF_PORT --delay-ms $DELAY_MS
e2=$LAST_PID
wait_port $LINK_WEB; wait_port $LINK_IPERF
overlink direct $LINK_WEB $LINK_IPERF
stop $e1; stop $e2
longrun direct $ECHO_PORT
fi

# ---- two HAProxy hops: the floor for any relay with the tunnel's shape ----
# public port -> relay -> relay -> backend, plain TCP, one process of one thread per hop: the two user-space
# hops (tunnel-server, tunnel-client) every tunnel adds, done by a mature C proxy with no TLS and
# no multiplexing. What the tunnel cannot beat on this machine, whatever its code.
if want haproxy2; then
  hap_cfg() { # hap_cfg NAME "LISTEN TARGET"... : one HAProxy process, one thread
    local name=$1; shift
    { printf 'global\n  maxconn 8000\n  nbthread 1\ndefaults\n  mode tcp\n  timeout connect 5s\n  timeout client 60s\n  timeout server 60s\n'
      local i=0 pair
      for pair in "$@"; do set -- $pair; printf 'listen l%s\n  bind 127.0.0.1:%s\n  server s 127.0.0.1:%s\n' $i $1 $2; i=$((i + 1)); done
    } > "$WORK/haproxy-$name.cfg"
  }
  # Two processes, like tunnel-server and tunnel-client: public port -> hop -> backend.
  hap_cfg public "17910 17920" "17911 17921"
  hap_cfg home "17920 $NGINX_PORT" "17921 $IPERF_PORT"
  start haproxy-home haproxy -f "$WORK/haproxy-home.cfg" -db; H1=$LAST_PID
  start haproxy-public haproxy -f "$WORK/haproxy-public.cfg" -db; H2=$LAST_PID
  if wait_port 17910 && wait_port 17911; then
    loopback haproxy2 17910 17911 $H1 $H2
  else
    note "haproxy2: HAProxy did not start: $(tail -2 "$WORK/haproxy-public.log" | tr '\n' ' ')"
  fi
  stop $H2; stop $H1
fi

# ---- tunnel modes ----
# tunnel COLUMN BASE_PORT TLS(true|false) MUX(true|false) JAVA_OPTS
tunnel() {
  want $1 || return 0
  local col=$1 base=$2 tls=$3 mux=$4 opts=$5
  local bind=$base link=$((base + 1)) web=$((base + 10)) ip=$((base + 11)) echo=$((base + 12))
  cat > "$WORK/$col-server.toml" <<TOML
bindAddr = "127.0.0.1"
bindPort = $bind
auth.token = "bench"
transport.tcpMux = $mux
transport.tls.force = $tls
log.level = "warn"
TOML
  client_toml() { # client_toml SERVER_PORT
    cat <<TOML
serverAddr = "127.0.0.1"
serverPort = $1
auth.token = "bench"
transport.tcpMux = $mux
transport.tls.enable = $tls
$( [ "$mux" = true ] || echo "transport.poolCount = 5" )
log.level = "warn"
[[proxies]]
name = "web"
localPort = $NGINX_PORT
remotePort = $web
[[proxies]]
name = "iperf"
localPort = $IPERF_PORT
remotePort = $ip
[[proxies]]
name = "echo"
localPort = $ECHO_PORT
remotePort = $echo
TOML
  }
  client_toml $bind > "$WORK/$col-client.toml"
  client_toml $link > "$WORK/$col-client-link.toml"
  if ! java -jar "$SERVER_JAR" verify -c "$WORK/$col-server.toml" > "$WORK/$col-verify.log" 2>&1 \
     || ! java -jar "$CLIENT_JAR" verify -c "$WORK/$col-client.toml" >> "$WORK/$col-verify.log" 2>&1; then
    note "$col: skipped, the config is refused on this branch: $(grep -v '^$' "$WORK/$col-verify.log" | head -2 | tr '\n' ' ')"
    log "$col: skipped (config refused)"; return 0
  fi
  start $col-server java $opts -jar "$SERVER_JAR" -c "$WORK/$col-server.toml"; local sp=$LAST_PID
  wait_port $bind || { note "$col: skipped, the server did not start"; stop $sp; return 0; }
  start $col-client java $opts -jar "$CLIENT_JAR" -c "$WORK/$col-client.toml"; local cp=$LAST_PID
  if ! wait_port $echo 15 || ! kill -0 $cp 2>/dev/null; then
    note "$col: skipped, the client did not come up on this branch: $(tail -2 "$WORK/$col-client.log" | tr '\n' ' ' | cut -c1-200)"
    log "$col: skipped (client did not come up)"; stop $cp; stop $sp; return 0
  fi
  # Memory first, on fresh processes: after the throughput tests the heap and the buffer pools
  # keep what the peak needed, which is not what a VPS at ~1,000 req/s holds.
  memory $col $web $echo $sp -- $cp
  if [ "$col" = mux-tls-small ]; then
    log "$col: HTTP (wrk ${D}s)"
    http_block $col $web $sp $cp
    longrun $col $echo
    stop $cp; stop $sp; return 0
  fi
  loopback $col $web $ip $sp $cp
  if [ "$col" = mux-tls ]; then longrun $col $echo; fi
  stop $cp
  # The same server, the client now behind the link emulator.
  start $col-link java -cp "$BENCH_JAR" dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:$link --target 127.0.0.1:$bind --delay-ms $DELAY_MS
  local lp=$LAST_PID; wait_port $link
  sleep 1   # the server frees the public ports of the client that left
  start $col-client-link java $opts -jar "$CLIENT_JAR" -c "$WORK/$col-client-link.toml"; cp=$LAST_PID
  if wait_port $web 15; then sleep 1; overlink $col $web $ip; else log "$col: client behind the link did not come up"; fi
  stop $cp; stop $lp; stop $sp
}

# Exactly the flags README "Running on a 1 GB VPS" and both jars' --help recommend (SmallVpsJvm; SmallVpsJvmTest checks).
SMALL_JVM="-Xms8m -Xmx128m -Xmn2m -XX:MaxDirectMemorySize=64m -XX:+UseSerialGC -Xss512k -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -Dio.netty.jfr.enabled=false"
tunnel mux-tls 17400 true true ""
tunnel mux-plain 17500 false true ""
tunnel pool-tls 17600 true false ""
tunnel mux-tls-small 17800 true true "$SMALL_JVM"

# ---- the memory floor: the least Netty code of the tunnel's shape, with the same JVM flags ----
# NettyFloor: a public side holding the certificate (TLS server) and a home side verifying it (TLS
# client), one TLS connection per public connection, no login, mux, config or logging framework; its own jar
# (Netty alone: with BouncyCastle on the class path Netty reads PEM keys through it and keeps ~1,600 more classes).
# What a JVM, Netty and BoringSSL hold before any of the tunnel's code (memory figures only).
if want floor-small; then
  FC=$WORK/floor-certs
  if java -jar "$SERVER_JAR" certs --out "$FC" --server-name localhost > "$WORK/floor-certs.log" 2>&1; then
    start floor-client java $SMALL_JVM -cp "$FLOOR_JAR" dev.tunnel.bench.NettyFloor client --listen 127.0.0.1:17851 \
        --target 127.0.0.1:$NGINX_PORT --ca "$FC/ca.crt"; F1=$LAST_PID
    start floor-server java $SMALL_JVM -cp "$FLOOR_JAR" dev.tunnel.bench.NettyFloor server --listen 127.0.0.1:17850 \
        --peer 127.0.0.1:17851 --cert "$FC/server.crt" --key "$FC/server.key"; F2=$LAST_PID
    if wait_port 17851 && wait_port 17850 && curl -fsS -m 5 -o /dev/null http://127.0.0.1:17850/ping; then
      memory floor-small 17850 - $F2 -- $F1
    else
      note "floor-small: NettyFloor did not answer: $(tail -2 "$WORK/floor-server.log" "$WORK/floor-client.log" | tr '\n' ' ' | cut -c1-200)"
    fi
    stop $F2; stop $F1
  else
    note "floor-small: certificates not written: $(tail -2 "$WORK/floor-certs.log" | tr '\n' ' ')"
  fi
fi

# ---- ssh -R ----
SSH_PORT=17022; SSH_LINK=17023; SSH_WEB=17710; SSH_IPERF=17711; SSH_ECHO=17712
ssh-keygen -q -t ed25519 -N '' -f "$WORK/id" && ssh-keygen -q -t ed25519 -N '' -f "$WORK/hostkey"
cp "$WORK/id.pub" "$WORK/authorized_keys"; chmod 600 "$WORK/authorized_keys"
mkdir -p /run/sshd
cat > "$WORK/sshd_config" <<SSHD
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $WORK/hostkey
PidFile $WORK/sshd.pid
AuthorizedKeysFile $WORK/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowTcpForwarding remote
MaxStartups 100
LogLevel ERROR
SSHD
ssh_r() { # ssh_r PORT : ssh -R for the three backends
  exec ssh -N -i "$WORK/id" -p "$1" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
      -o ExitOnForwardFailure=yes -o ServerAliveInterval=30 -o LogLevel=ERROR \
      -R $SSH_WEB:127.0.0.1:$NGINX_PORT -R $SSH_IPERF:127.0.0.1:$IPERF_PORT -R $SSH_ECHO:127.0.0.1:$ECHO_PORT root@127.0.0.1
}
if want ssh; then
start sshd "$SSHD" -D -f "$WORK/sshd_config" -E "$WORK/sshd-errors.log"; SSHD_PID=$LAST_PID
if wait_port $SSH_PORT; then
  start ssh ssh_r $SSH_PORT; SSH_PID=$LAST_PID
  if wait_port $SSH_ECHO 15; then
    # sshd forks a process per login: the "server" is every sshd process but the listener.
    SSHD_ALL=$(descendants $SSHD_PID)
    memory ssh $SSH_WEB $SSH_ECHO $SSHD_ALL -- $SSH_PID
    loopback ssh $SSH_WEB $SSH_IPERF $SSHD_ALL $SSH_PID
    longrun ssh $SSH_ECHO
  else
    note "ssh: ssh -R did not come up: $(tail -2 "$WORK/ssh.log" | tr '\n' ' ')"
  fi
  stop $SSH_PID
  start ssh-link java -cp "$BENCH_JAR" dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:$SSH_LINK --target 127.0.0.1:$SSH_PORT --delay-ms $DELAY_MS
  SL=$LAST_PID; wait_port $SSH_LINK; sleep 1
  start ssh-via-link ssh_r $SSH_LINK; SSH_PID=$LAST_PID
  if wait_port $SSH_WEB 20; then overlink ssh $SSH_WEB $SSH_IPERF; fi
  stop $SSH_PID; stop $SL
else
  note "ssh: sshd did not start: $(cat "$WORK/sshd-errors.log" | head -2 | tr '\n' ' ')"
fi
stop $SSHD_PID
fi

# p99 the tunnel adds to the long connections, against direct in the same run
for col in mux-tls mux-tls-small ssh; do
  a=$(awk -v c=$col '$1=="long_p99_ms" && $2==c {print $3}' "$RESULTS"); b=$(awk '$1=="long_p99_ms" && $2=="direct" {print $3}' "$RESULTS")
  [ -n "$a" ] && [ -n "$b" ] && put long_added_p99_ms $col "$(awk -v a=$a -v b=$b 'BEGIN {printf "%.2f", a-b}')"
done

# ---- report ----
{
  echo "machine=$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
  echo "cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "kernel=$(uname -sr)"
  echo "java=$(java -version 2>&1 | head -1)"
  echo "command=$COMMAND"
  echo "load=load average $LOAD_BEFORE before the run, $(cut -d' ' -f1-3 /proc/loadavg) after"
  echo "rtt_ms=$((DELAY_MS * 2))"
} >> "$META"
note "direct: the load tool straight to the backend; ssh -R: $(ssh -V 2>&1 | cut -d, -f1), default cipher; 2 HAProxy hops: HAProxy $(haproxy -v 2>/dev/null | head -1 | awk '{print $3}') in TCP mode, two one-thread processes chained like tunnel-server and tunnel-client, no TLS (the floor for two user-space hops); the tunnel: default JVM settings, pool mode with transport.poolCount = 5."
note "HTTP: wrk -t1 -c50, ${D} s, nginx /ping, after ${WARM_S} s of the same load (JIT warm-up); Connection: close makes every request a new tunneled connection. iperf3: ${IPERF_T} s, public side to home side. CPU per request: utime + stime of the relay's processes on both sides (/proc/PID/stat), per request served."
note "80 ms link: LinkEmulator, ${DELAY_MS} ms each way, between client and server (for direct, between the load tool and the backend); first byte: connect + GET /ping, median of $TTFB_N new connections."
note "Memory: VmRSS of whole processes, first on fresh processes: idle, the peak during ${RATE_S} s at ~1,000 req/s (wrk + bench/rate.lua), then holding $IDLE_N idle connections (LongConnLoad). 1 GB VPS JVM: README's flags ($SMALL_JVM); the memory targets are judged there. Bare Netty TLS relay (NettyFloor): the least Netty code of the tunnel's shape with those flags, a memory reference."
note "Long connections: LongConnLoad, $LONG_N connections to an echo backend over $LOAD_PROCS load processes, one 64-byte message per $((LONG_INTERVAL / 1000)) s each for ${LONG_S} s after $((LONG_WARMUP / 1000)) s of warm-up; percentiles from the processes' raw histograms merged."
if [ -n "${MAIN_RAW:-}" ]; then
  cp "$MAIN_RAW" "$RESULTS.main"; mv "$RESULTS.main" "$RESULTS"   # MAIN_RAW may be the file written below
  note "The figures of this table are those of an earlier full run (MAIN_RAW); the sections below were measured in this one."
fi
bench_java dev.tunnel.bench.Report --results "$RESULTS" --meta "$META" --out "$OUT" --svg "$SVG"
cp "$RESULTS" "${OUT%.md}-raw.txt"

# ---- the other scripts' sections ----
has_section() { [[ " $SECTIONS " == *" $1 "* ]]; }
stop_all() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; PIDS=(); }
stop_all   # the backends above: the scripts below start their own
if has_section link; then
  log "bench/link.sh"
  if [ $QUICK = 1 ]; then LINK_ENV="ROUNDS=1 IDLE_S=3 DL_S=6 PING_S=3 DLS=1"; else LINK_ENV="ROUNDS=3"; fi
  if env $LINK_ENV OUT="$WORK/link.md" bench/link.sh > "$WORK/link.log" 2>&1; then
    { echo; echo "## Latency under load on a shared link (\`bench/link.sh\`)"; echo
      echo "Each client behind its own emulated home link: 80 ms RTT, 50 Mbit/s, ONE 512 KiB queue per direction shared by"
      echo "every connection of that client (LinkEmulator --share). wrk -c2 keep-alive /ping on one proxy while downloads run"
      echo "through another proxy of the same client; default configs."; echo
      cat "$WORK/link.md"; } >> "$OUT"
  else
    log "bench/link.sh failed: $(tail -3 "$WORK/link.log" | tr '\n' ' ')"
  fi
fi
if has_section vhost; then
  log "bench/vhost.sh"
  if [ $QUICK = 1 ]; then VHOST_ENV="ROUNDS=1 D=2 SIZE_MB=64 WARM=2"; else VHOST_ENV="ROUNDS=3"; fi
  if env $VHOST_ENV bench/vhost.sh > "$WORK/vhost.txt" 2> "$WORK/vhost.log"; then
    { echo; echo "## HTTP vhost (\`bench/vhost.sh\`)"; echo
      echo "The vhost HTTP port against a \`tcp\` proxy of the same tunnel to the same nginx, and against nginx routing by Host in"
      echo "front of that \`tcp\` proxy (what users run otherwise). Medians of interleaved rounds; in brackets the median ratio to \`tcp\`."; echo
      echo "| figure | vhost | tcp proxy | nginx -> tcp proxy |"; echo "|---|---:|---:|---:|"
      awk '$1 != "test" && NF == 4 {v[$1" "$2] = $3; r[$1" "$2] = $4; t[$1] = 1}
        END {
          n = split("ka ka-cpu-us close close-cpu-us down up", order, " ")
          split("keep-alive req/s (wrk -c50)|  tunnel CPU per request, us|new connection per request, req/s|  tunnel CPU per request, us|1 GiB download, MB/s (sha256 checked)|1 GiB upload, MB/s (sha256 checked)", label, "|")
          for (i = 1; i <= n; i++) { k = order[i]; if (!(k in t)) continue
            printf "| %s |", label[i]
            split("vhost tcp nginx", cols, " ")
            for (c = 1; c <= 3; c++) { key = k" "cols[c]; if (key in v) printf " %s%s |", v[key] + 0, (r[key] == "-" ? "" : " (" r[key] + 0 "x)"); else printf " - |" }
            printf "\n" } }' "$WORK/vhost.txt"; } >> "$OUT"
  else
    log "bench/vhost.sh failed: $(tail -3 "$WORK/vhost.log" | tr '\n' ' ')"
  fi
fi
if has_section udp; then
  log "bench/udp.sh"
  if SKIP_BUILD=1 SECTION_OUT="$WORK/udp.md" bench/udp.sh --no-install $([ $QUICK = 1 ] && echo --quick) > "$WORK/udp.log" 2>&1; then
    { echo; cat "$WORK/udp.md"; } >> "$OUT"
  else
    log "bench/udp.sh failed: $(tail -3 "$WORK/udp.log" | tr '\n' ' ')"
  fi
fi
log "wrote $OUT ($(wc -c < "$OUT") bytes)"
