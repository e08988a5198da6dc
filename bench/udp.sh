#!/usr/bin/env bash
# UDP, stcp and sudp figures, side by side in one run: a Markdown section printed at the end and
# written to $SECTION_OUT if set (bench/compare.sh puts it into docs/benchmarks.md).
#
#   bench/udp.sh               full run, a few minutes (needs root for apt-get)
#   bench/udp.sh --quick       small counts: checks that the harness works (writes to its work dir)
#   options: --no-install (skip apt-get), SKIP_BUILD=1 (use the jars already built), KEEP_WORK=1,
#   JAR_ROOT=DIR (the jars of another checkout, e.g. a baseline: built there first),
#   DNSPERF_ONLY=1 (only the dnsperf rounds: prints their lines and stops)
#
# Everything listens on 127.0.0.1 (free ports of 19800-19899 picked at start); every load is bounded in count and time.
#   - UDP echo: 2,000 datagrams of 1,200 bytes (32 in flight) direct and through a udp proxy.
#   - iperf3 -u -l 1200 at 100, 200 and 500 Mbit/s for T seconds, 4 MiB socket buffers (-w; the
#     208 KiB default overflows whenever the receiver is descheduled on a shared machine): direct,
#     through the tunnel in mux mode (TLS) and in pool mode (TLS, tcpMux = false on a second server
#     and client), 3 rounds each taken in turn, medians reported (a tcp and a udp proxy on one port:
#     iperf3's control connection and its data). Where the tunnel's datagrams are lost: the
#     kernel's receive-buffer drops (RcvbufErrors of /proc/net/snmp, machine-wide) against the
#     servers' own drops (their /metrics), per run; and, at 200M in mux mode, the kernel's drops
#     per socket (`ss -uampn`, polled during the run) and the CPU time each JVM took.
#   - DNS: dnsmasq at home answers bench.lan; dig checks the answer through the tunnel; dnsperf
#     (4 clients, 100 queries outstanding) finds the queries/s direct, through mux and pool mode (after
#     a warm-up of each tunnel path, so the JIT is done; median of the rounds, the paths in turn), then
#     runs at 80 % of each median (-Q) to count lost queries; UdpProbe times queries one at a time
#     (median), direct, through the tunnel on loopback, and with the client behind LinkEmulator
#     (40 ms each way: an 80 ms link).
#   - No QUIC/HTTP3 client: Debian 12's curl (7.88.1) is built without HTTP/3 and Debian packages
#     no QUIC client program (only libraries: libnghttp3, quic-go's sources).
#   - stcp: wrk keep-alive (50 connections) against nginx through a tcp proxy and through an stcp
#     visitor on a second client; the ratio, and curl's SHA-256 of a 10 MB file both ways.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh

QUICK=0; INSTALL=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --no-install) INSTALL=0 ;;
    *) echo "unknown option: $1 (expected: --quick, --no-install)" >&2; exit 2 ;;
  esac
  shift
done
if [ $QUICK = 1 ]; then D=2; IPERF_T=2; DNS_N=50; WARM_S=1; RATES="200"; ROUNDS=1; DNSPERF_S=2; DNSPERF_WARM_S=1
else D=10; IPERF_T=5; DNS_N=300; WARM_S=5; RATES="100 200 500"; ROUNDS=3; DNSPERF_S=10; DNSPERF_WARM_S=15; fi
DELAY_MS=40

WORK=$(mktemp -d /tmp/tunnel-udp-bench.XXXXXX)
log() { echo "[$(date +%T)] $*" >&2; }
RESULTS=$WORK/results.txt; : > "$RESULTS"
put() { echo "$1=$2" >> "$RESULTS"; log "  $1 = $2"; }

# ---- tools ----
need=()
for t in iperf3 dnsmasq dig wrk nginx curl dnsperf; do command -v $t >/dev/null || need+=($t); done
if [ ${#need[@]} -gt 0 ]; then
  if [ $INSTALL = 1 ] && [ "$(id -u)" = 0 ]; then
    log "installing: iperf3 dnsmasq dnsutils wrk nginx-light curl dnsperf (missing: ${need[*]})"
    apt-get update -qq -o DPkg::Lock::Timeout=300 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=300 -y -qq iperf3 dnsmasq dnsutils wrk nginx-light curl dnsperf >/dev/null
  else
    echo "missing tools: ${need[*]}; run as root (apt-get install -y iperf3 dnsmasq dnsutils wrk nginx-light curl dnsperf)" >&2
    exit 1
  fi
fi
JAR_ROOT=${JAR_ROOT:-$ROOT}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  log "building the jars in $JAR_ROOT"
  (cd "$JAR_ROOT" && mvn -B -q -o -DskipTests package)
fi
SERVER_JAR=$JAR_ROOT/tunnel-server/target/tunnel-server.jar
CLIENT_JAR=$JAR_ROOT/tunnel-client/target/tunnel-client.jar
BENCH_JAR=$ROOT/tunnel-bench/target/tunnel-bench.jar

PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else log "work dir kept: $WORK"; fi
}
trap cleanup EXIT INT TERM
start() { local name=$1; shift; "$@" > "$WORK/$name.log" 2>&1 & LAST_PID=$!; PIDS+=($LAST_PID); }
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
wait_log() { # wait_log FILE TEXT [SECONDS]
  local end=$(( $(date +%s) + ${3:-20} ))
  while [ "$(date +%s)" -lt $end ]; do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done
  echo "timed out waiting for \"$2\" in $1" >&2; tail -5 "$1" >&2; return 1
}
probe() { java -cp "$BENCH_JAR" dev.tunnel.bench.UdpProbe "$@" | awk '/^RESULT/'; }
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k {print $2}'; }

# ---- ports ----
# Picked at run time from this script's range (UDP_BENCH_PORTS, 19800-19899 by default: bench
# scripts on this machine each have a range of their own), free for both TCP and UDP.
free_ports() { python3 - "$1" "${UDP_BENCH_PORTS:-19800-19899}" <<'PY'
import socket, sys
want = int(sys.argv[1]); lo, hi = map(int, sys.argv[2].split("-"))
out = []
for port in range(lo, hi + 1):
    if len(out) == want:
        break
    t = socket.socket(); u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        t.bind(("127.0.0.1", port)); u.bind(("127.0.0.1", port))
        out.append(port)
    except OSError:
        pass
    finally:
        u.close(); t.close()
if len(out) < want:
    sys.exit("only %d free ports in %s, %d needed" % (len(out), sys.argv[2], want))
print(" ".join(map(str, out)))
PY
}
read -r BIND LINK ECHO DNS IPERF NGINX T_ECHO T_DNS T_IPERF T_WEB V_WEB WEB BIND_P WEB_P P_DNS P_IPERF \
  <<< "$(free_ports 16)"

# ---- the apps at home ----
start echo java -cp "$BENCH_JAR" dev.tunnel.bench.UdpProbe echo --listen 127.0.0.1:$ECHO
start dnsmasq dnsmasq --keep-in-foreground --no-resolv --no-hosts --port=$DNS --listen-address=127.0.0.1 \
  --bind-interfaces --address=/bench.lan/10.1.2.3 --pid-file="$WORK/dnsmasq.pid" --user=root --cache-size=0
start iperf3 iperf3 -s -p $IPERF -B 127.0.0.1
head -c 10000000 /dev/urandom > "$WORK/big.bin"
chmod 755 "$WORK"; chmod 644 "$WORK/big.bin"   # nginx's workers run as another user
nginx_conf "$WORK" $NGINX | sed "s|location /ping|location /big { alias $WORK/big.bin; } location /ping|" > "$WORK/nginx.conf"
start nginx nginx -c "$WORK/nginx.conf" -g "daemon off;"
wait_port $NGINX 60; wait_port $IPERF 60; sleep 0.5

# ---- the tunnel: server, provider client, visitor client ----
cat > "$WORK/server.toml" <<TOML
bindAddr = "127.0.0.1"
bindPort = $BIND
auth.token = "bench"
webServer.port = $WEB
enablePrometheus = true
TOML
provider_toml() { # provider_toml SERVER_PORT
  cat <<TOML
serverAddr = "127.0.0.1"
serverPort = $1
auth.token = "bench"
[[proxies]]
name = "echo"
type = "udp"
localPort = $ECHO
remotePort = $T_ECHO
[[proxies]]
name = "dns"
type = "udp"
localPort = $DNS
remotePort = $T_DNS
[[proxies]]
name = "iperf-data"
type = "udp"
localPort = $IPERF
remotePort = $T_IPERF
[[proxies]]
name = "iperf-control"
type = "tcp"
localPort = $IPERF
remotePort = $T_IPERF
[[proxies]]
name = "web"
type = "tcp"
localPort = $NGINX
remotePort = $T_WEB
[[proxies]]
name = "secret-web"
type = "stcp"
secretKey = "bench-secret"
localPort = $NGINX
TOML
}
provider_toml $BIND > "$WORK/provider.toml"
provider_toml $LINK > "$WORK/provider-link.toml"
cat > "$WORK/visitor.toml" <<TOML
serverAddr = "127.0.0.1"
serverPort = $BIND
auth.token = "bench"
[[visitors]]
name = "web-visitor"
type = "stcp"
serverName = "secret-web"
secretKey = "bench-secret"
bindPort = $V_WEB
TOML
cat > "$WORK/server-pool.toml" <<TOML
bindAddr = "127.0.0.1"
bindPort = $BIND_P
auth.token = "bench"
webServer.port = $WEB_P
enablePrometheus = true
transport.tcpMux = false
TOML
cat > "$WORK/provider-pool.toml" <<TOML
serverAddr = "127.0.0.1"
serverPort = $BIND_P
auth.token = "bench"
transport.tcpMux = false
[[proxies]]
name = "dns"
type = "udp"
localPort = $DNS
remotePort = $P_DNS
[[proxies]]
name = "iperf-data"
type = "udp"
localPort = $IPERF
remotePort = $P_IPERF
[[proxies]]
name = "iperf-control"
type = "tcp"
localPort = $IPERF
remotePort = $P_IPERF
TOML
for f in server provider visitor server-pool provider-pool; do
  jar=$CLIENT_JAR; case $f in server*) jar=$SERVER_JAR ;; esac
  java -jar "$jar" verify -c "$WORK/$f.toml" > "$WORK/verify-$f.log" 2>&1 || { cat "$WORK/verify-$f.log" >&2; exit 1; }
done
start server java -jar "$SERVER_JAR" -c "$WORK/server.toml"; SP=$LAST_PID
wait_port $BIND 60
start provider java -jar "$CLIENT_JAR" -c "$WORK/provider.toml"; PP=$LAST_PID
start visitor java -jar "$CLIENT_JAR" -c "$WORK/visitor.toml"; VP=$LAST_PID
wait_port $T_WEB 60; wait_port $V_WEB 60
wait_log "$WORK/provider.log" "proxy \[dns\] started"
start server-pool java -jar "$SERVER_JAR" -c "$WORK/server-pool.toml"; SPP=$LAST_PID
wait_port $BIND_P 60
start provider-pool java -jar "$CLIENT_JAR" -c "$WORK/provider-pool.toml"; PPP=$LAST_PID
wait_port $P_IPERF 60
wait_log "$WORK/provider-pool.log" "proxy \[dns\] started"

median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "?"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ---- dnsperf ----
for i in $(seq 1 200); do echo "bench.lan A"; done > "$WORK/queries.txt"
dnsperf_run() { # dnsperf_run PORT [QPS] : "qps lost completed"
  dnsperf -s 127.0.0.1 -p "$1" -d "$WORK/queries.txt" -c 4 -q 100 -t 2 -l "$DNSPERF_S" ${2:+-Q $2} > "$WORK/dnsperf-$1.txt" 2>&1 || true
  awk '/Queries per second:/ { q = $4 } /Queries lost:/ { l = $3 } /Queries completed:/ { c = $3 } END { printf "%.0f %d %d\n", q, l, c }' "$WORK/dnsperf-$1.txt"
}
log "dnsperf: ${DNSPERF_S}s at full speed, $ROUNDS rounds (the paths in turn, medians), then at 80 % of that rate: direct, mux, pool"
# Warm-up: the JIT compiles the per-datagram paths of both JVMs; on a loaded machine C2 still takes
# as much CPU as the event loops 20 s into a run, and a 1 s warm-up measured that, not the tunnel.
for port in $T_DNS $P_DNS; do
  dnsperf -s 127.0.0.1 -p $port -d "$WORK/queries.txt" -c 4 -q 100 -t 2 -l $DNSPERF_WARM_S > /dev/null 2>&1 || true
done
dns_port() { case $1 in direct) echo $DNS ;; mux) echo $T_DNS ;; pool) echo $P_DNS ;; esac; }
declare -A qps=() lost=()
for round in $(seq 1 $ROUNDS); do
  for path in direct mux pool; do
    r=($(dnsperf_run $(dns_port $path))); qps[$path]+=" ${r[0]}"; lost[$path]+=" ${r[1]}"
    log "    dnsperf $path round $round: ${r[0]} queries/s, ${r[1]} lost"
  done
done
for path in direct mux pool; do
  q=$(echo ${qps[$path]} | median); q=${q%.*}; put "dnsperf_${path}_qps" "$q"; put "dnsperf_${path}_lost" "$(echo ${lost[$path]} | median)"
  at=$(( ${q:-0} * 8 / 10 )); put "dnsperf_${path}_80_qps" "$at"
  r=($(dnsperf_run $(dns_port $path) $at)); put "dnsperf_${path}_80_lost" "${r[1]}"; put "dnsperf_${path}_80_done" "${r[2]}"
done
if [ "${DNSPERF_ONLY:-0}" = 1 ]; then
  log "load: $(uptime)"
  exit 0
fi

# ---- UDP echo ----
log "UDP echo: 2,000 datagrams of 1,200 bytes"
r=$(probe check --target 127.0.0.1:$ECHO); put echo_direct_intact_pct "$(field "$r" pct)"
probe check --target 127.0.0.1:$T_ECHO --count 200 > /dev/null   # warm-up
r=$(probe check --target 127.0.0.1:$T_ECHO); put echo_tunnel_intact_pct "$(field "$r" pct)"

# ---- iperf3 -u ----
iperf_run() { # iperf_run PORT RATE : "loss_pct mbps lost sent" at RATE Mbit/s, datagrams of 1,200 bytes, seen by the receiver
  iperf3 -c 127.0.0.1 -p "$1" -u -b "${2}M" -l 1200 -w 4M -t "$IPERF_T" -J > "$WORK/iperf-$1-$2.json" 2>&1 || true
  python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['end']['sum']; print('%.3f %.1f %d %d' % (e['lost_percent'], e['bits_per_second']/1e6, e['lost_packets'], e['packets']))" "$WORK/iperf-$1-$2.json" 2>/dev/null || echo "? ? 0 0"
}
rcvbuf_errors() { awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["RcvbufErrors"] }' /proc/net/snmp; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
server_drops() { # server_drops WEB_PORT : the server's own drops of the iperf data proxy, all reasons
  curl -s "http://127.0.0.1:$1/metrics" | awk '/^tunnel_server_udp_dropped_datagrams_total\{.*name="iperf-data"/ { n += $NF } END { print n + 0 }'
}
log "iperf3 -u at $RATES Mbit/s, ${IPERF_T}s, $ROUNDS rounds: direct, mux, pool"
iperf3 -c 127.0.0.1 -p $T_IPERF -u -b 50M -l 1200 -t 1 > /dev/null 2>&1 || true   # warm-up
iperf3 -c 127.0.0.1 -p $P_IPERF -u -b 50M -l 1200 -t 1 > /dev/null 2>&1 || true
for rate in $RATES; do
  declare -A loss=() mbps=() kdrops=() tdrops=()
  for round in $(seq 1 $ROUNDS); do
    for path in direct mux pool; do
      case $path in direct) port=$IPERF; web= ;; mux) port=$T_IPERF; web=$WEB ;; pool) port=$P_IPERF; web=$WEB_P ;; esac
      e0=$(rcvbuf_errors); d0=0; [ -n "$web" ] && d0=$(server_drops $web)
      r=($(iperf_run $port $rate))
      loss[$path]+=" ${r[0]}"; mbps[$path]+=" ${r[1]}"
      kdrops[$path]+=" $(( $(rcvbuf_errors) - e0 ))"
      [ -n "$web" ] && tdrops[$path]+=" $(( $(server_drops $web) - d0 ))"
      log "    ${rate}M $path round $round: loss ${r[0]} % (${r[2]} of ${r[3]}), ${r[1]} Mbit/s"
    done
  done
  for path in direct mux pool; do
    put "iperf_${rate}_${path}_loss_pct" "$(echo ${loss[$path]} | median)"
    put "iperf_${rate}_${path}_mbps" "$(echo ${mbps[$path]} | median)"
    put "iperf_${rate}_${path}_rcvbuf_errors" "$(echo ${kdrops[$path]} | median)"
    [ $path = direct ] || put "iperf_${rate}_${path}_tunnel_drops" "$(echo ${tdrops[$path]} | median)"
  done
  unset loss mbps kdrops tdrops
done

# One more mux run at 200M: where its datagrams are lost, socket by socket, and the CPU each JVM took.
e0=$(rcvbuf_errors); s0=$(cpu_ticks $SP); p0=$(cpu_ticks $PP); d0=$(server_drops $WEB)
python3 - "$SP" "$PP" "$T_IPERF" "$IPERF" > "$WORK/socket-drops.txt" <<'PY' &
# Polls `ss -uampn` while iperf3 runs: how far the drop count (skmem d) of each socket of the path
# rose, summed per place. Sockets of iperf3 close at the end of its test, hence the polling.
import re, subprocess, sys, time
server, provider, public, app = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
seen = {}
base = None  # drops the sockets had before the run (the public socket lives on from the warm-up)
end = time.time() + 60
while time.time() < end:
    out = subprocess.run(["ss", "-uampn"], capture_output=True, text=True).stdout
    for line in re.sub(r"\n\s+", " ", out).splitlines():  # skmem comes on a continuation line
        d = re.search(r"skmem:\(.*,d(\d+)\)", line)
        pid = re.search(r"pid=(\d+)", line)
        f = line.split()
        if not d or not pid or len(f) < 5:
            continue
        local, peer = f[3], f[4]
        if pid.group(1) == server and local.endswith(":" + public):
            place = "server_public"
        elif pid.group(1) == provider and peer.endswith(":" + app):
            place = "client_relay"
        elif "iperf3" in line and local.endswith(":" + app):
            place = "iperf3_server"
        else:
            continue
        key = (place, local, peer, pid.group(1))
        seen[key] = max(seen.get(key, 0), int(d.group(1)))
    if base is None:
        base = dict(seen)
    totals = {}
    for key, n in seen.items():
        totals[key[0]] = totals.get(key[0], 0) + n - base.get(key, 0)
    sys.stdout.write(" ".join("%s=%d" % kv for kv in sorted(totals.items())) + "\n")
    sys.stdout.flush()
    time.sleep(0.2)
PY
POLLER=$!
r=($(iperf_run $T_IPERF 200)); put iperf_tunnel_loss_pct "${r[0]}"; put iperf_tunnel_lost "${r[2]}"; put iperf_tunnel_sent "${r[3]}"
put iperf_tunnel_rcvbuf_errors "$(( $(rcvbuf_errors) - e0 ))"
kill $POLLER 2>/dev/null || true; wait $POLLER 2>/dev/null || true
hz=$(getconf CLK_TCK)
put iperf_server_cpu_s "$(awk -v a="$(cpu_ticks $SP)" -v b="$s0" -v hz="$hz" 'BEGIN { printf "%.1f", (a - b) / hz }')"
put iperf_client_cpu_s "$(awk -v a="$(cpu_ticks $PP)" -v b="$p0" -v hz="$hz" 'BEGIN { printf "%.1f", (a - b) / hz }')"
put iperf_server_tunnel_drops "$(( $(server_drops $WEB) - d0 ))"
last=$(tail -1 "$WORK/socket-drops.txt" 2>/dev/null)
for place in server_public client_relay iperf3_server; do
  put "iperf_kernel_drops_$place" "$(field "$last" $place | sed 's/^$/0/')"
done

# ---- DNS on loopback ----
log "DNS: dig through the tunnel, then $DNS_N timed queries each"
put dig_tunnel_answer "$(dig @127.0.0.1 -p $T_DNS bench.lan A +short +time=2 +tries=1 | head -1)"
r=$(probe dns --target 127.0.0.1:$DNS --name bench.lan --count $DNS_N); put dns_direct_p50_us "$(field "$r" p50_us)"
r=$(probe dns --target 127.0.0.1:$T_DNS --name bench.lan --count $DNS_N); put dns_tunnel_p50_us "$(field "$r" p50_us)"

# ---- stcp against tcp ----
wrk_rps() { wrk -t1 -c50 -d"${2}s" --timeout 10s "$1" 2>/dev/null | awk '/Requests\/sec/ {print $2}'; }
log "stcp vs tcp: wrk keep-alive ${D}s each, warm-up ${WARM_S}s each"
wrk_rps "http://127.0.0.1:$T_WEB/ping" $WARM_S > /dev/null; wrk_rps "http://127.0.0.1:$V_WEB/ping" $WARM_S > /dev/null
put tcp_rps "$(wrk_rps "http://127.0.0.1:$T_WEB/ping" $D)"
put stcp_rps "$(wrk_rps "http://127.0.0.1:$V_WEB/ping" $D)"
want=$(curl -s "http://127.0.0.1:$NGINX/big" | sha256sum | cut -c1-16)
got=$(curl -s "http://127.0.0.1:$V_WEB/big" | sha256sum | cut -c1-16)
put stcp_10mb_intact "$([ "$want" = "$got" ] && echo yes || echo "no ($got, expected $want)")"

# ---- DNS over the emulated 80 ms link ----
log "DNS with the provider behind an 80 ms link"
stop $PP
start link java -cp "$BENCH_JAR" dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:$LINK --target 127.0.0.1:$BIND --delay-ms $DELAY_MS
wait_port $LINK 60; sleep 1
start provider-link java -jar "$CLIENT_JAR" -c "$WORK/provider-link.toml"
wait_log "$WORK/provider-link.log" "proxy \[dns\] started" 30
put dig_link_answer "$(dig @127.0.0.1 -p $T_DNS bench.lan A +short +time=3 +tries=1 | head -1)"
r=$(probe dns --target 127.0.0.1:$T_DNS --name bench.lan --count $((DNS_N / 3))); put dns_link_p50_us "$(field "$r" p50_us)"

# ---- report ----
. "$RESULTS" 2>/dev/null || true
eval "$(sed 's/^\([a-z0-9_]*\)=\(.*\)$/\1="\2"/' "$RESULTS")"
ratio=$(awk -v a="$stcp_rps" -v b="$tcp_rps" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')
added_lo=$(awk -v a="$dns_tunnel_p50_us" -v b="$dns_direct_p50_us" 'BEGIN { printf "%.2f", (a - b) / 1000 }')
added_link=$(awk -v a="$dns_link_p50_us" -v b="$dns_direct_p50_us" 'BEGIN { printf "%.1f", (a - b) / 1000 }')
SECTION=$WORK/udp-section.md
LOAD=$(uptime | sed 's/.*load average: \([0-9.]*\),.*/\1/')
{
cat <<MD
## UDP, stcp and sudp (\`bench/udp.sh\`)

Default settings, TLS on, one server per mode, one provider client each, one visitor; load average
${LOAD} on $(nproc) cores when the run ended.

\`iperf3 -u -l 1200 -w 4M\`, ${IPERF_T} s per run, median of ${ROUNDS} rounds (the paths taken in turn):
loss at iperf3's receiver, and the kernel's receive-buffer drops (\`RcvbufErrors\`, machine-wide)
against the tunnel server's own drops (\`tunnel_server_udp_dropped_datagrams_total\`) in the same runs.

| rate | direct | mux mode | pool mode | target (mux) |
|---|---|---|---|---|
MD
for rate in $RATES; do
  target="<= 0.5 %"; [ "$rate" = 500 ] && target="<= 2 % or 1.5x direct"
  v() { eval "echo \${iperf_${rate}_$1:-?}"; }
  echo "| ${rate} Mbit/s | $(v direct_loss_pct) % (kernel $(v direct_rcvbuf_errors)) | $(v mux_loss_pct) % (kernel $(v mux_rcvbuf_errors), tunnel $(v mux_tunnel_drops)) | $(v pool_loss_pct) % (kernel $(v pool_rcvbuf_errors), tunnel $(v pool_tunnel_drops)) | ${target} |"
done
cat <<MD

| figure | direct | through the tunnel | target |
|---|---|---|---|
| UDP echo, 2,000 datagrams of 1,200 B, intact | ${echo_direct_intact_pct} % | ${echo_tunnel_intact_pct} % | >= 99.9 % |
| dnsperf, 4 clients, 100 outstanding, ${DNSPERF_S} s, median of ${ROUNDS}: queries/s | ${dnsperf_direct_qps} | mux ${dnsperf_mux_qps} ($(awk -v a="$dnsperf_mux_qps" -v b="$dnsperf_direct_qps" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')x), pool ${dnsperf_pool_qps} ($(awk -v a="$dnsperf_pool_qps" -v b="$dnsperf_direct_qps" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')x) | >= 0.5x |
| dnsperf at 80 % of that rate: lost | ${dnsperf_direct_80_lost} of ${dnsperf_direct_80_done} | mux ${dnsperf_mux_80_lost} at ${dnsperf_mux_80_qps}/s, pool ${dnsperf_pool_80_lost} at ${dnsperf_pool_80_qps}/s | 0 |
| DNS query to dnsmasq, median of ${DNS_N} (UdpProbe; \`dig\` answered ${dig_tunnel_answer}) | ${dns_direct_p50_us} us | ${dns_tunnel_p50_us} us (+${added_lo} ms) | <= +1 ms |
| the same, client behind an 80 ms link (LinkEmulator), median of $((DNS_N / 3)) (\`dig\`: ${dig_link_answer}) | ${dns_direct_p50_us} us | ${dns_link_p50_us} us (+${added_link} ms) | +1 RTT (80 ms) |
| nginx \`/ping\`, wrk keep-alive, 50 connections, ${D} s | tcp proxy: ${tcp_rps} req/s | stcp visitor: ${stcp_rps} req/s (**${ratio}x**) | >= 0.45x |
| 10 MB through the stcp visitor, SHA-256 equal | | ${stcp_10mb_intact} | |

One more mux run at 200 Mbit/s lost ${iperf_tunnel_lost:-?} of ${iperf_tunnel_sent:-?} datagrams; the kernel
dropped ${iperf_kernel_drops_server_public} at the server's public socket, ${iperf_kernel_drops_iperf3_server:-0} at
iperf3's socket at home and ${iperf_kernel_drops_client_relay} at the client's socket toward it (\`ss -uampn\`
polled during the run), the server ${iperf_server_tunnel_drops}. CPU time in those ${IPERF_T} s: server
${iperf_server_cpu_s} s, client ${iperf_client_cpu_s} s. No QUIC/HTTP3 client: Debian 12's curl has no HTTP/3 and
Debian ships no QUIC client program.
MD
} > "$SECTION"
[ -z "${SECTION_OUT:-}" ] || cp "$SECTION" "$SECTION_OUT"
cat "$SECTION"
