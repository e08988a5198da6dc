#!/usr/bin/env bash
# Throughput of the tunnel beside direct, two HAProxy hops and `ssh -R`, measured side by side in
# one run: wrk keep-alive and new-connection req/s (Connection: close), iperf3 with 1 and 8
# streams, each as a ratio to direct and to HAProxy, with the CPU each relay's two sides spend per
# unit of work. Rounds are interleaved so that load from other work on the machine hits every
# column alike; the medians of the rounds are printed at the end.
#
#   bench/throughput.sh                         this tree's jars (mvn -B -q -DskipTests package)
#   VARIANTS="base=/tmp/base now=." bench/throughput.sh
#                                               several builds in one run; each value is a directory
#                                               holding tunnel-server.jar and tunnel-client.jar, or
#                                               "." for this tree's target/ jars
#                                               OPTS_<name>="-D..." adds JVM options to one build's tunnels;
#                                               CONF_<name>="transport.x = y" adds a line to both of its
#                                               configs (one build twice, the express lane off in one:
#                                               VARIANTS="on=. off=." CONF_off="transport.tcpMuxExpressLane = false")
#   options (env): ROUNDS=3 T=5 (iperf3 seconds) D=5 (wrk seconds) TESTS="keep close i1 i8 i1p"
#                  MODES="tls plain" (tunnel columns per variant: mux TLS, mux plain, pool TLS "pool")
#                  REFS="haproxy ssh" (reference columns beside direct; "" for none)
#                  JAVA_OPTS="..." (both tunnel processes) KEEP_WORK=1 WARM=15 (seconds of
#                  Connection: close load per tunnel before measuring: C2 compiles that path for long)
#                  RATE=800M: iperf3 at a fixed rate (-b, per stream), so every build moves the same
#                  bytes and the *-cpu rows compare CPU per GB without the throughput differing
#
# Rows: TEST COLUMN median_value median_ratio_to_direct median_ratio_to_haproxy. TEST-cpu-s and
# TEST-cpu-c are the CPU (user + system, all threads, /proc/PID/stat) of the relay's public side
# (tunnel-server, the public HAProxy, every sshd process of the session) and home side
# (tunnel-client, the inner HAProxy, ssh): us per request for wrk, ms per GB for iperf3.
#
#                  PORT_BASE=18600: listens on 127.0.0.1:PORT_BASE..+99 only (18022 for sshd unless
#                  PORT_BASE is set, then PORT_BASE+99); everything it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
ROUNDS=${ROUNDS:-3}; T=${T:-5}; D=${D:-5}
TESTS=${TESTS:-"keep close i1 i8 i1p"}
VARIANTS=${VARIANTS:-"now=."}
MODES=${MODES:-"tls plain"}
REFS=${REFS-"haproxy ssh"}
WORK=$(mktemp -d /tmp/tunnel-throughput.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  [ -f "$WORK/sshd.pid" ] && kill "$(cat "$WORK/sshd.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else echo "work dir kept: $WORK" >&2; fi
}
trap cleanup EXIT INT TERM
log() { echo "[$(date +%T)] $*" >&2; }
jar() { # jar VARIANT_DIR server|client
  if [ "$1" = . ]; then echo "$ROOT/tunnel-$2/target/tunnel-$2.jar"; else echo "$1/tunnel-$2.jar"; fi
}
need=(); for t in wrk iperf3 nginx $([[ " $REFS " == *" haproxy "* ]] && echo haproxy) \
    $([[ " $REFS " == *" ssh "* ]] && echo sshd ssh ssh-keygen); do command -v $t >/dev/null || need+=($t); done
if [ ${#need[@]} -gt 0 ]; then
  log "installing: wrk iperf3 nginx-light haproxy openssh-server openssh-client (missing: ${need[*]})"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk iperf3 nginx-light haproxy \
      openssh-server openssh-client >/dev/null
fi

P=${PORT_BASE:-18600}
NGINX=$P; IPERF=$((P + 1))
nginx_conf "$WORK" $NGINX > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -g 'daemon off;' > "$WORK/nginx.log" 2>&1 & PIDS+=($!)
iperf3 -s -B 127.0.0.1 -p $IPERF > "$WORK/iperf.log" 2>&1 & PIDS+=($!)
wait_port $NGINX && wait_port $IPERF || { echo "backends did not start" >&2; exit 1; }

# Each column: public ports WEB/IPP, and the pids of its public side (COL-server.pid) and home side (COL-client.pid).
COLUMNS=(direct)
declare -A WEB IPP
WEB[direct]=$NGINX; IPP[direct]=$IPERF

if [[ " $REFS " == *" haproxy "* ]]; then
  hap_cfg() { # hap_cfg NAME "LISTEN TARGET"... : one HAProxy process of one thread
    local name=$1; shift
    { printf 'global\n  maxconn 8000\n  nbthread 1\ndefaults\n  mode tcp\n  timeout connect 5s\n  timeout client 60s\n  timeout server 60s\n'
      local i=0 pair
      for pair in "$@"; do set -- $pair; printf 'listen l%s\n  bind 127.0.0.1:%s\n  server s 127.0.0.1:%s\n' $i $1 $2; i=$((i + 1)); done
    } > "$WORK/haproxy-$name.cfg"
  }
  hap_cfg public "$((P + 5)) $((P + 7))" "$((P + 6)) $((P + 8))"
  hap_cfg home "$((P + 7)) $NGINX" "$((P + 8)) $IPERF"
  haproxy -f "$WORK/haproxy-home.cfg" -db > "$WORK/haproxy-home.log" 2>&1 & PIDS+=($!); echo $! > "$WORK/haproxy-client.pid"
  haproxy -f "$WORK/haproxy-public.cfg" -db > "$WORK/haproxy-public.log" 2>&1 & PIDS+=($!); echo $! > "$WORK/haproxy-server.pid"
  wait_port $((P + 5)) && wait_port $((P + 6)) || { echo "haproxy did not start" >&2; exit 1; }
  WEB[haproxy]=$((P + 5)); IPP[haproxy]=$((P + 6)); COLUMNS+=(haproxy)
fi

if [[ " $REFS " == *" ssh "* ]]; then
  SSH_PORT=$([ -n "${PORT_BASE:-}" ] && echo $((P + 99)) || echo 18022)
  ssh-keygen -q -t ed25519 -N '' -f "$WORK/id" && ssh-keygen -q -t ed25519 -N '' -f "$WORK/hostkey"
  cp "$WORK/id.pub" "$WORK/authorized_keys"; chmod 600 "$WORK/authorized_keys"; mkdir -p /run/sshd
  printf '%s\n' "Port $SSH_PORT" "ListenAddress 127.0.0.1" "HostKey $WORK/hostkey" "PidFile $WORK/sshd.pid" \
      "AuthorizedKeysFile $WORK/authorized_keys" "PermitRootLogin prohibit-password" "PubkeyAuthentication yes" \
      "PasswordAuthentication no" "KbdInteractiveAuthentication no" "UsePAM no" "StrictModes no" \
      "AllowTcpForwarding remote" "LogLevel ERROR" > "$WORK/sshd_config"
  "$(command -v sshd || echo /usr/sbin/sshd)" -D -f "$WORK/sshd_config" -E "$WORK/sshd.log" & PIDS+=($!); SSHD_PID=$!
  wait_port $SSH_PORT || { echo "sshd did not start" >&2; exit 1; }
  ssh -N -i "$WORK/id" -p $SSH_PORT -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
      -o ExitOnForwardFailure=yes -o LogLevel=ERROR \
      -R $((P + 3)):127.0.0.1:$NGINX -R $((P + 4)):127.0.0.1:$IPERF root@127.0.0.1 > "$WORK/ssh.log" 2>&1 & PIDS+=($!)
  echo $! > "$WORK/ssh-client.pid"
  wait_port $((P + 4)) 20 || { echo "ssh -R did not come up" >&2; cat "$WORK/ssh.log" >&2; exit 1; }
  pgrep -P $SSHD_PID > "$WORK/ssh-server.pid" || true # the session's sshd (privileged + user) processes
  for p in $(cat "$WORK/ssh-server.pid"); do pgrep -P $p >> "$WORK/ssh-server.pid" || true; done
  WEB[ssh]=$((P + 3)); IPP[ssh]=$((P + 4)); COLUMNS+=(ssh)
fi

# One tunnel (server + client) per variant and mode; public ports base+1 (web), base+2 (iperf).
base=$((P + 10))
for v in $VARIANTS; do
  name=${v%%=*}; dir=${v#*=}; opts_var=OPTS_$name; opts="${JAVA_OPTS:-} ${!opts_var:-}"
  conf_var=CONF_$name; conf="${!conf_var:-}"
  for mode in $MODES; do
    col=$name-$mode
    tls=$([ $mode = plain ] && echo false || echo true); mux=$([ $mode = pool ] && echo false || echo true)
    printf 'bindAddr = "127.0.0.1"\nbindPort = %d\nauth.token = "bench"\ntransport.tls.force = %s\ntransport.tcpMux = %s\nlog.level = "warn"\n%s\n' \
        $base $tls $mux "$conf" > "$WORK/$col-s.toml"
    printf 'serverAddr = "127.0.0.1"\nserverPort = %d\nauth.token = "bench"\ntransport.tls.enable = %s\ntransport.tcpMux = %s\ntransport.poolCount = 5\nlog.level = "warn"\n%s\n[[proxies]]\nname = "web"\nlocalPort = %d\nremotePort = %d\n[[proxies]]\nname = "iperf"\nlocalPort = %d\nremotePort = %d\n' \
        $base $tls $mux "$conf" $NGINX $((base + 1)) $IPERF $((base + 2)) > "$WORK/$col-c.toml"
    java $opts -jar "$(jar "$dir" server)" -c "$WORK/$col-s.toml" > "$WORK/$col-server.log" 2>&1 & PIDS+=($!)
    echo $! > "$WORK/$col-server.pid"
    wait_port $base 60 || { echo "$col: server did not start" >&2; cat "$WORK/$col-server.log" >&2; exit 1; }
    java $opts -jar "$(jar "$dir" client)" -c "$WORK/$col-c.toml" > "$WORK/$col-client.log" 2>&1 & PIDS+=($!)
    echo $! > "$WORK/$col-client.pid"
    wait_port $((base + 2)) 60 || { echo "$col: client did not come up" >&2; cat "$WORK/$col-client.log" >&2; exit 1; }
    WEB[$col]=$((base + 1)); IPP[$col]=$((base + 2))
    COLUMNS+=($col)
    base=$((base + 10))
  done
done
log "columns: ${COLUMNS[*]} (work dir $WORK)"

# CPU ticks (user + system) of one side (server|client) of a column; 0 for direct.
ticks() {
  [ "$1" = direct ] && { echo 0; return; }
  local t=0 p
  for p in $(cat "$WORK/$1-$2.pid"); do
    [ -r /proc/$p/stat ] && t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat)))
  done
  echo $t
}
iperf_mbit() { iperf3 -c 127.0.0.1 -p "$1" -P "$2" -t "$T" ${RATE:+-b $RATE} -f m 2>&1 | awk '/receiver/ {v=$(NF-2)} END {print v+0}'; }
wrk_rps() { # wrk_rps PORT [header...]
  local port=$1; shift
  wrk -t1 -c50 -d"${D}s" --timeout 10s "$@" "http://127.0.0.1:$port/ping" 2>&1 | awk '/Requests\/sec/ {printf "%.0f", $2}'
}
plain_only() { [[ $1 == *-plain ]]; }
tunnel_col() { [[ $1 != direct && $1 != haproxy && $1 != ssh ]]; }

# Warm-up: JIT every tunnel's paths before measuring (C2 needs seconds on a busy machine).
for col in "${COLUMNS[@]}"; do
  tunnel_col $col || continue
  iperf3 -c 127.0.0.1 -p "${IPP[$col]}" -t 8 > /dev/null 2>&1 || true
  wrk -t1 -c50 -d"${WARM:-15}s" -H "Connection: close" "http://127.0.0.1:${WEB[$col]}/ping" > /dev/null 2>&1 || true
  wrk -t1 -c50 -d5s "http://127.0.0.1:${WEB[$col]}/ping" > /dev/null 2>&1 || true
done

RES=$WORK/results.txt; : > "$RES"
HZ=$(getconf CLK_TCK)
for r in $(seq 1 "$ROUNDS"); do
  # each round starts one column further on, so that no column always runs first or right after
  # another (a column's run warms or loads the machine for the next one)
  n=${#COLUMNS[@]}; ORDER=()
  for i in $(seq 0 $((n - 1))); do ORDER+=("${COLUMNS[$(( (i + r - 1) % n ))]}"); done
  for test in $TESTS; do
    for col in "${ORDER[@]}"; do
      # i1p: one stream without TLS, for the plain tunnel columns (its ratios use i1's direct and haproxy)
      if [ $test = i1p ]; then plain_only $col || continue; else plain_only $col && continue; fi
      s0=$(ticks $col server); c0=$(ticks $col client)
      case $test in
        i1|i1p) v=$(iperf_mbit "${IPP[$col]}" 1) ;;
        i8) v=$(iperf_mbit "${IPP[$col]}" 8) ;;
        close) v=$(wrk_rps "${WEB[$col]}" -H "Connection: close") ;;
        keep) v=$(wrk_rps "${WEB[$col]}") ;;
      esac
      s1=$(ticks $col server); c1=$(ticks $col client)
      echo "$r $test $col ${v:-0}" >> "$RES"
      [ $col = direct ] && { log "round $r $test $col ${v:-0}"; continue; }
      # CPU per unit of work, per side: us per request for wrk, ms per GB for iperf3.
      per() { awk -v a=$1 -v b=$2 -v v=${v:-0} -v t=$T -v d=$D -v k=$test -v hz=$HZ 'BEGIN {
        ms = (b - a) * 1000 / hz; if (v <= 0) { print 0; exit }
        if (k == "close" || k == "keep") printf "%.1f", ms * 1000 / (v * d); else printf "%.0f", ms / (v * t / 8000) }'; }
      cs=$(per $s0 $s1); cc=$(per $c0 $c1)
      echo "$r $test-cpu-s $col $cs" >> "$RES"; echo "$r $test-cpu-c $col $cc" >> "$RES"
      log "round $r $test $col ${v:-0} (cpu server $cs, client $cc)"
    done
  done
done

# Medians: of the values, and of each round's ratios to direct and to haproxy in the same round.
echo "test column median_value median_ratio_to_direct median_ratio_to_haproxy (rounds=$ROUNDS, iperf3 ${T}s in Mbit/s, wrk ${D}s -c50 in req/s;"
echo "  *-cpu-s / *-cpu-c: CPU of the relay's public / home side, us per request (wrk) or ms per GB (iperf3))"
awk '
  { val[$2" "$3] = val[$2" "$3] " " $4; row[NR] = $0
    if ($3 == "direct") d[$1" "$2] = $4; if ($3 == "haproxy") h[$1" "$2] = $4 }
  END {
    for (i = 1; i <= NR; i++) { split(row[i], f, " "); if (f[2] ~ /-cpu/) continue
      base = f[2] == "i1p" ? "i1" : f[2]
      if (f[3] != "direct" && d[f[1]" "base] > 0) rd[f[2]" "f[3]] = rd[f[2]" "f[3]] " " f[4] / d[f[1]" "base]
      if (f[3] != "haproxy" && h[f[1]" "base] > 0) rh[f[2]" "f[3]] = rh[f[2]" "f[3]] " " f[4] / h[f[1]" "base] }
    for (k in val) printf "%s %s %s %s\n", k, med(val[k]), (k in rd) ? med(rd[k]) : "-", (k in rh) ? med(rh[k]) : "-"
  }
  function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? sprintf("%.3f", a[(n + 1) / 2]) : sprintf("%.3f", (a[n / 2] + a[n / 2 + 1]) / 2) }
' "$RES" | sort | column -t
