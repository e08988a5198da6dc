#!/usr/bin/env bash
# Throughput of the tunnel against a direct loopback connection, measured side by side in one
# run: iperf3 with 1 and 8 streams (TLS on and off), wrk new-connection req/s (Connection:
# close) and, with TESTS including "keep", wrk keep-alive req/s, each as a ratio to direct.
# Rounds are interleaved so that load from other work on the
# machine hits every column alike; the medians of the rounds are printed at the end.
#
#   bench/throughput.sh                         this tree's jars (mvn -B -q -DskipTests package)
#   VARIANTS="base=/tmp/base now=." bench/throughput.sh
#                                               several builds in one run; each value is a directory
#                                               holding tunnel-server.jar and tunnel-client.jar, or
#                                               "." for this tree's target/ jars
#                                               OPTS_<name>="-D..." adds JVM options to one build's tunnels
#   options (env): ROUNDS=3 T=5 (iperf3 seconds) D=5 (wrk seconds) TESTS="i1 i8 i1p close" (also: keep)
#                  JAVA_OPTS="..." (both tunnel processes) KEEP_WORK=1
#                  WAIT=20: seconds a tunnel may take to start (more on a busy machine)
#                  RATE=800M: iperf3 at a fixed rate (-b, per stream), so every build moves the same
#                  bytes and the *-cpu rows compare CPU per GB without the throughput differing
#
# Listens on 127.0.0.1:18600-18699 only (PORT_BASE=28600 moves the range, e.g. to run beside
# another run); everything it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
ROUNDS=${ROUNDS:-3}; T=${T:-5}; D=${D:-5}; WAIT=${WAIT:-20}
TESTS=${TESTS:-"i1 i8 i1p close"}
VARIANTS=${VARIANTS:-"now=."}
WORK=$(mktemp -d /tmp/tunnel-throughput.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else echo "work dir kept: $WORK" >&2; fi
}
trap cleanup EXIT INT TERM
log() { echo "[$(date +%T)] $*" >&2; }
jar() { # jar VARIANT_DIR server|client
  if [ "$1" = . ]; then echo "$ROOT/tunnel-$2/target/tunnel-$2.jar"; else echo "$1/tunnel-$2.jar"; fi
}

PORT_BASE=${PORT_BASE:-18600}
NGINX=$PORT_BASE; IPERF=$((PORT_BASE + 1))
nginx_conf "$WORK" $NGINX > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -g 'daemon off;' > "$WORK/nginx.log" 2>&1 & PIDS+=($!)
iperf3 -s -B 127.0.0.1 -p $IPERF > "$WORK/iperf.log" 2>&1 & PIDS+=($!)
wait_port $NGINX && wait_port $IPERF || { echo "backends did not start" >&2; exit 1; }

# One tunnel (server + client) per variant and TLS mode; public ports base+10 (web), base+11 (iperf).
COLUMNS=(direct)
declare -A WEB IPP
WEB[direct]=$NGINX; IPP[direct]=$IPERF
base=$((PORT_BASE + 10))
for v in $VARIANTS; do
  name=${v%%=*}; dir=${v#*=}; opts_var=OPTS_$name; opts="${JAVA_OPTS:-} ${!opts_var:-}"
  for tls in true false; do
    col=$name-$([ $tls = true ] && echo tls || echo plain)
    printf 'bindAddr = "127.0.0.1"\nbindPort = %d\nauth.token = "bench"\ntransport.tls.force = %s\nlog.level = "warn"\n' \
        $base $tls > "$WORK/$col-s.toml"
    printf 'serverAddr = "127.0.0.1"\nserverPort = %d\nauth.token = "bench"\ntransport.tls.enable = %s\nlog.level = "warn"\n[[proxies]]\nname = "web"\nlocalPort = %d\nremotePort = %d\n[[proxies]]\nname = "iperf"\nlocalPort = %d\nremotePort = %d\n' \
        $base $tls $NGINX $((base + 1)) $IPERF $((base + 2)) > "$WORK/$col-c.toml"
    java $opts -jar "$(jar "$dir" server)" -c "$WORK/$col-s.toml" > "$WORK/$col-server.log" 2>&1 & PIDS+=($!)
    echo $! > "$WORK/$col-server.pid"
    wait_port $base "$WAIT" || { echo "$col: server did not start within $WAIT s" >&2; cat "$WORK/$col-server.log" >&2; exit 1; }
    java $opts -jar "$(jar "$dir" client)" -c "$WORK/$col-c.toml" > "$WORK/$col-client.log" 2>&1 & PIDS+=($!)
    echo $! > "$WORK/$col-client.pid"
    wait_port $((base + 2)) "$WAIT" || { echo "$col: client did not come up within $WAIT s" >&2; cat "$WORK/$col-client.log" >&2; exit 1; }
    WEB[$col]=$((base + 1)); IPP[$col]=$((base + 2))
    COLUMNS+=($col)
    base=$((base + 10))
  done
done
log "columns: ${COLUMNS[*]} (work dir $WORK)"

# CPU ticks (user + system) of a column's two tunnel processes; 0 for direct.
ticks() {
  [ "$1" = direct ] && { echo 0; return; }
  local t=0 p
  for p in $(cat "$WORK/$1-server.pid" "$WORK/$1-client.pid"); do
    t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat)))
  done
  echo $t
}
iperf_mbit() { iperf3 -c 127.0.0.1 -p "$1" -P "$2" -t "$T" ${RATE:+-b $RATE} -f m 2>&1 | awk '/receiver/ {v=$(NF-2)} END {print v+0}'; }
wrk_keep() { wrk -t1 -c50 -d"${D}s" --timeout 10s "http://127.0.0.1:$1/ping" 2>&1 \
    | awk '/Requests\/sec/ {printf "%.0f", $2}'; }
wrk_close() { wrk -t1 -c50 -d"${D}s" --timeout 10s -H "Connection: close" "http://127.0.0.1:$1/ping" 2>&1 \
    | awk '/Requests\/sec/ {printf "%.0f", $2}'; }

# Warm-up: JIT every tunnel's paths before measuring (C2 needs seconds on a busy machine).
for col in "${COLUMNS[@]}"; do
  [ $col = direct ] && continue
  iperf3 -c 127.0.0.1 -p "${IPP[$col]}" -t 8 > /dev/null 2>&1 || true
  wrk -t1 -c20 -d2s -H "Connection: close" "http://127.0.0.1:${WEB[$col]}/ping" > /dev/null 2>&1 || true
done

RES=$WORK/results.txt; : > "$RES"
for r in $(seq 1 "$ROUNDS"); do
  for test in $TESTS; do
    for col in "${COLUMNS[@]}"; do
      t0=$(ticks $col)
      case $test in
        i1) [[ $col == *-plain ]] && continue; v=$(iperf_mbit "${IPP[$col]}" 1) ;;
        i8) [[ $col == *-plain ]] && continue; v=$(iperf_mbit "${IPP[$col]}" 8) ;;
        i1p) [[ $col == *-tls ]] && continue; v=$(iperf_mbit "${IPP[$col]}" 1) ;;
        close) [[ $col == *-plain ]] && continue; v=$(wrk_close "${WEB[$col]}") ;;
        keep) [[ $col == *-plain ]] && continue; v=$(wrk_keep "${WEB[$col]}") ;;
      esac
      echo "$r $test $col ${v:-0}" >> "$RES"
      # Tunnel CPU per unit of work: ms per GB for iperf3, ms per 1,000 requests for wrk.
      cpu=$(awk -v a=$t0 -v b=$(ticks $col) -v v=${v:-0} -v t=$T -v d=$D -v k=$test -v hz=$(getconf CLK_TCK) 'BEGIN {
        ms = (b - a) * 1000 / hz; if (v <= 0) { print 0; exit }
        if (k == "close" || k == "keep") printf "%.0f", ms / (v * d / 1000); else printf "%.0f", ms / (v * t / 8000) }')
      [ $col != direct ] && echo "$r $test-cpu $col $cpu" >> "$RES"
      log "round $r $test $col ${v:-0} (tunnel cpu $cpu)"
    done
  done
done

# Medians: of the values, and of each round's ratio to direct in the same round.
echo "test column median_value median_ratio_to_direct (rounds=$ROUNDS, iperf3 ${T}s in Mbit/s, wrk ${D}s in req/s;"
echo "  *-cpu: CPU of both tunnel processes, ms per GB moved (iperf3) or per 1,000 requests (close))"
awk '
  { val[$2" "$3] = val[$2" "$3] " " $4; if ($3 == "direct") d[$1" "$2] = $4; row[NR] = $0 }
  END {
    for (i = 1; i <= NR; i++) { split(row[i], f, " "); if (f[3] != "direct" && d[f[1]" "f[2]] > 0) rat[f[2]" "f[3]] = rat[f[2]" "f[3]] " " f[4] / d[f[1]" "f[2]] }
    for (k in val) { printf "%s %s %s\n", k, med(val[k]), (k in rat) ? med(rat[k]) : "-" }
  }
  function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? sprintf("%.3f", a[(n + 1) / 2]) : sprintf("%.3f", (a[n / 2] + a[n / 2 + 1]) / 2) }
' "$RES" | sort
