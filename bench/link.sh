#!/usr/bin/env bash
# What a download does to the other proxies of the same client (issue 18), side by side in one run.
#
#   bench/link.sh                                   this tree's jars
#   VARIANTS="main=/tmp/main-base/jars now=." bench/link.sh
#       each value: a directory holding tunnel-server.jar and tunnel-client.jar, or "." for this
#       tree's target/ jars; OPTS_<name>="-D..." adds JVM options to one build's tunnels;
#       CONF_<name>="transport.x = y" adds a line to both of its configs (the same jars with the
#       express lane off: VARIANTS="now=. onelane=." CONF_onelane="transport.tcpMuxExpressLane = false")
#   env: ROUNDS=3, TESTS="link loop fat", SSH=1 (the ssh -R column), POOL=1 (pool-mode columns)
#
# link: client and server joined by LinkEmulator (80 ms RTT, 50 Mbit/s, 512 KiB queue per
#   connection and direction, like fq_codel's per-flow queues). Proxy "web" (nginx /ping), proxy
#   "iperf" (iperf3 -s) of the same client. Idle: wrk -t1 -c2 keep-alive /ping for 8 s. Loaded:
#   iperf3 -R (download through the tunnel) for 16 s, wrk as before from second 4 to 14.
#   Columns: each build in mux mode, each build in pool mode (POOL=1), and ssh -R over the same
#   emulated link (SSH=1). Prints p50/p99 of /ping idle and loaded and the download's Mbit/s.
# loop: loopback, no emulator: wrk -c2 /ping req/s on the second proxy while iperf3 -P4 runs
#   through the first, with both proxies on one client ("same") or on two clients ("separate").
# fat: one iperf3 -R stream over an 80 ms link with no rate cap, each build, to see what
#   TCP_NOTSENT_LOWAT costs a single stream on a long fat link (OPTS_x=-Dtunnel.notsentLowat=0
#   turns it off in a column).
#
# Listens on 127.0.0.1:18700-18799 only; every load is bounded in time; all is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
ROUNDS=${ROUNDS:-3}; TESTS=${TESTS:-"link loop fat"}; VARIANTS=${VARIANTS:-"now=."}
SSH=${SSH:-1}; POOL=${POOL:-1}
WORK=$(mktemp -d /tmp/tunnel-link.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else echo "work dir kept: $WORK" >&2; fi
}
trap cleanup EXIT INT TERM
log() { echo "[$(date +%T)] $*" >&2; }
jar() { if [ "$1" = . ]; then echo "$ROOT/tunnel-$2/target/tunnel-$2.jar"; else echo "$1/tunnel-$2.jar"; fi; }
BENCH_JAR=$ROOT/tunnel-bench/target/tunnel-bench.jar
[ -f "$BENCH_JAR" ] || mvn -B -q -DskipTests package -pl tunnel-bench -am

NGINX=18700; IPERF=18701
nginx_conf "$WORK" $NGINX > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -g 'daemon off;' > "$WORK/nginx.log" 2>&1 & PIDS+=($!)
iperf3 -s -B 127.0.0.1 -p $IPERF > "$WORK/iperf.log" 2>&1 & PIDS+=($!)
wait_port $NGINX && wait_port $IPERF || { echo "backends did not start" >&2; exit 1; }

emulator() { # emulator LISTEN TARGET RATE_MBIT : an emulated 80 ms link
  java -cp "$BENCH_JAR" dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:$1 --target 127.0.0.1:$2 \
      --delay-ms 40 --rate-mbit $3 --max-queue-kib 512 --threads 1 > "$WORK/emu-$1.log" 2>&1 & PIDS+=($!)
  wait_port $1
}

# tunnel NAME DIR MUX SERVER_PORT CLIENT_DIAL_PORT WEB_PORT IPERF_PORT [NO_SERVER]
# starts a server (unless NO_SERVER) on SERVER_PORT and a client dialing CLIENT_DIAL_PORT with
# proxies web -> WEB_PORT and iperf -> IPERF_PORT (either may be 0 to leave it out)
tunnel() {
  local name=$1 dir=$2 mux=$3 sport=$4 dial=$5 web=$6 ip=$7 opts_var=OPTS_${1%%-*} conf_var=CONF_${1%%-*}
  local opts="${JAVA_OPTS:-} ${!opts_var:-}" conf="${!conf_var:-}"
  if [ "${8:-}" != noserver ]; then
    printf 'bindAddr = "127.0.0.1"\nbindPort = %d\nauth.token = "bench"\ntransport.tcpMux = %s\nlog.level = "warn"\n%s\n' \
        $sport $mux "$conf" > "$WORK/$name-s.toml"
    java $opts -jar "$(jar "$dir" server)" -c "$WORK/$name-s.toml" > "$WORK/$name-server.log" 2>&1 & PIDS+=($!)
    wait_port $sport 60 || { echo "$name: server did not start" >&2; cat "$WORK/$name-server.log" >&2; exit 1; }
  fi
  {
    printf 'serverAddr = "127.0.0.1"\nserverPort = %d\nauth.token = "bench"\nlog.level = "warn"\n' $dial
    printf 'transport.tcpMux = %s\ntransport.poolCount = 4\n%s\n' $mux "$conf"
    [ "$web" != 0 ] && printf '[[proxies]]\nname = "web"\nlocalPort = %d\nremotePort = %d\n' $NGINX $web
    [ "$ip" != 0 ] && printf '[[proxies]]\nname = "iperf"\nlocalPort = %d\nremotePort = %d\n' $IPERF $ip
    true
  } > "$WORK/$name-c.toml"
  java $opts -jar "$(jar "$dir" client)" -c "$WORK/$name-c.toml" > "$WORK/$name-client.log" 2>&1 & PIDS+=($!)
  local last=$ip; [ "$last" = 0 ] && last=$web
  wait_port $last 60 || { echo "$name: client did not come up" >&2; cat "$WORK/$name-client.log" >&2; exit 1; }
}

# iperf_bg OUTFILE ARGS...: iperf3 ARGS in the background, its pid in $bulk. The columns share one
# iperf3 server, which may still be finishing the previous column's test: it answers "the server is
# busy" and the client exits at once, so that start is made again (up to 10 times, a second apart).
iperf_bg() {
  local out=$1; shift
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    iperf3 "$@" > "$out" 2>&1 & bulk=$!
    sleep 0.5
    if kill -0 $bulk 2>/dev/null || ! grep -q busy "$out"; then return 0; fi
    wait $bulk || true
    log "iperf3 server busy, starting again"
    sleep 1
  done
}

# wrk's latency in ms from a line like "50%  83.12ms"
wrk_pct() { awk -v p="$1%" '$1 == p { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) sub(/ms$/, "", v); else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }; printf "%.2f", v + 0 }'; }
wrk_run() { # wrk_run PORT SECONDS OUTFILE
  wrk -t1 -c2 -d"$2s" --timeout 5s --latency "http://127.0.0.1:$1/ping" > "$3" 2>&1 || true
}
iperf_rx() { awk '/receiver/ {v=$(NF-2); u=$(NF-1)} END {if (u == "Gbits/sec") v *= 1000; print v+0}' "$1"; }

RES=$WORK/results.txt; : > "$RES"
port=18710
declare -A WEB IPP
LINK_COLS=()
if [[ " $TESTS " == *" link "* ]]; then
  for v in $VARIANTS; do
    name=${v%%=*}; dir=${v#*=}
    for mode in mux pool; do
      [ $mode = pool ] && [ "$POOL" != 1 ] && continue
      col=$name-$mode
      [ $mode = pool ] && col=$name-pool
      emulator $((port + 1)) $port 50
      tunnel "$col" "$dir" $([ $mode = mux ] && echo true || echo false) $port $((port + 1)) $((port + 2)) $((port + 3))
      WEB[$col]=$((port + 2)); IPP[$col]=$((port + 3)); LINK_COLS+=($col)
      port=$((port + 5))
    done
  done
  if [ "$SSH" = 1 ]; then
    ssh-keygen -q -t ed25519 -N '' -f "$WORK/hostkey"; ssh-keygen -q -t ed25519 -N '' -f "$WORK/userkey"
    mkdir -p /root/.ssh && chmod 700 /root/.ssh
    AUTH=/root/.ssh/authorized_keys; touch $AUTH; cp $AUTH "$WORK/authorized_keys.bak"
    cat "$WORK/userkey.pub" >> $AUTH
    trap 'cp "$WORK/authorized_keys.bak" /root/.ssh/authorized_keys 2>/dev/null; cleanup' EXIT INT TERM
    printf 'Port %d\nListenAddress 127.0.0.1\nHostKey %s/hostkey\nPermitRootLogin prohibit-password\nStrictModes no\nPidFile %s/sshd.pid\nUsePAM no\n' \
        $port "$WORK" "$WORK" > "$WORK/sshd_config"
    mkdir -p /run/sshd
    /usr/sbin/sshd -D -f "$WORK/sshd_config" > "$WORK/sshd.log" 2>&1 & PIDS+=($!)
    wait_port $port
    emulator $((port + 1)) $port 50
    ssh -N -i "$WORK/userkey" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ExitOnForwardFailure=yes \
        -p $((port + 1)) -R 127.0.0.1:$((port + 2)):127.0.0.1:$NGINX -R 127.0.0.1:$((port + 3)):127.0.0.1:$IPERF \
        root@127.0.0.1 > "$WORK/ssh.log" 2>&1 & PIDS+=($!)
    wait_port $((port + 3)) 20 || { echo "ssh -R did not come up" >&2; cat "$WORK/ssh.log" >&2; exit 1; }
    WEB[ssh]=$((port + 2)); IPP[ssh]=$((port + 3)); LINK_COLS+=(ssh)
    port=$((port + 5))
  fi
  log "link columns: ${LINK_COLS[*]}"
  for col in "${LINK_COLS[@]}"; do # warm-up: JIT the paths and let windows settle
    iperf3 -c 127.0.0.1 -p "${IPP[$col]}" -R -t 4 > /dev/null 2>&1 || true
    wrk -t1 -c2 -d2s "http://127.0.0.1:${WEB[$col]}/ping" > /dev/null 2>&1 || true
  done
fi

if [[ " $TESTS " == *" loop "* ]]; then
  for v in $VARIANTS; do
    name=${v%%=*}; dir=${v#*=}
    tunnel "$name-same" "$dir" true $port $port $((port + 1)) $((port + 2))
    tunnel "$name-sep1" "$dir" true $((port + 3)) $((port + 3)) 0 $((port + 4))
    tunnel "$name-sep2" "$dir" true $((port + 3)) $((port + 3)) $((port + 5)) 0 noserver
    WEB[$name-same]=$((port + 1)); IPP[$name-same]=$((port + 2))
    WEB[$name-separate]=$((port + 5)); IPP[$name-separate]=$((port + 4))
    port=$((port + 8))
  done
fi

if [[ " $TESTS " == *" fat "* ]]; then
  for v in $VARIANTS; do
    name=${v%%=*}; dir=${v#*=}
    emulator $((port + 1)) $port 0
    tunnel "$name-fat" "$dir" true $port $((port + 1)) 0 $((port + 2))
    IPP[$name-fat]=$((port + 2))
    port=$((port + 4))
    iperf3 -c 127.0.0.1 -p "${IPP[$name-fat]}" -R -t 4 > /dev/null 2>&1 || true
  done
fi

for r in $(seq 1 "$ROUNDS"); do
  if [[ " $TESTS " == *" link "* ]]; then
    for col in "${LINK_COLS[@]}"; do
      wrk_run "${WEB[$col]}" 8 "$WORK/idle.txt"
      iperf_bg "$WORK/dl.txt" -c 127.0.0.1 -p "${IPP[$col]}" -R -t 16 -f m
      dl=$bulk
      sleep 3.5
      wrk_run "${WEB[$col]}" 10 "$WORK/busy.txt"
      wait $dl || true
      i50=$(wrk_pct 50 < "$WORK/idle.txt"); i99=$(wrk_pct 99 < "$WORK/idle.txt")
      b50=$(wrk_pct 50 < "$WORK/busy.txt"); b99=$(wrk_pct 99 < "$WORK/busy.txt"); mbit=$(iperf_rx "$WORK/dl.txt")
      echo "$r link $col $i50 $i99 $b50 $b99 $mbit" >> "$RES"
      log "round $r link $col: idle p50 $i50 p99 $i99 ms; loaded p50 $b50 p99 $b99 ms; download $mbit Mbit/s"
    done
  fi
  if [[ " $TESTS " == *" loop "* ]]; then
    for v in $VARIANTS; do
      name=${v%%=*}
      for kind in same separate; do
        col=$name-$kind
        # a /ping figure counts only with the transfer beside it: the shared iperf3 server can
        # still refuse the client after iperf_bg saw it start, so a round with none runs again
        for _ in 1 2 3; do
          iperf_bg "$WORK/bulk.txt" -c 127.0.0.1 -p "${IPP[$col]}" -P4 -t 12 -f m
          sleep 1.5
          wrk_run "${WEB[$col]}" 8 "$WORK/loop.txt"
          wait $bulk || true
          [ "$(iperf_rx "$WORK/bulk.txt")" != 0 ] && break
          log "round $r loop $col: no transfer beside /ping, running it again"
          sleep 2
        done
        rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$WORK/loop.txt"); p50=$(wrk_pct 50 < "$WORK/loop.txt")
        echo "$r loop $col ${rps:-0} $p50 $(iperf_rx "$WORK/bulk.txt")" >> "$RES"
        log "round $r loop $col: /ping ${rps:-0} req/s p50 $p50 ms during iperf3 -P4 ($(iperf_rx "$WORK/bulk.txt") Mbit/s)"
      done
    done
  fi
  if [[ " $TESTS " == *" fat "* ]]; then
    for v in $VARIANTS; do
      name=${v%%=*}
      iperf_bg "$WORK/fat.txt" -c 127.0.0.1 -p "${IPP[$name-fat]}" -R -t 10 -f m
      wait $bulk || true
      echo "$r fat $name-fat $(iperf_rx "$WORK/fat.txt")" >> "$RES"
      log "round $r fat $name: $(iperf_rx "$WORK/fat.txt") Mbit/s"
    done
  fi
done

echo "medians over $ROUNDS rounds"
awk '
  function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { key = $2 " " $3; keys[key] = 1; for (i = 4; i <= NF; i++) v[key, i] = v[key, i] " " $i; nf[key] = NF }
  END {
    for (k in keys) {
      split(k, kk, " ")
      if (kk[1] == "link") printf "link %-12s /ping idle p50 %7.2f p99 %7.2f | during download p50 %7.2f (x%.2f) p99 %7.2f (x%.2f) | download %5.1f Mbit/s\n", kk[2], med(v[k,4]), med(v[k,5]), med(v[k,6]), med(v[k,6]) / med(v[k,4]), med(v[k,7]), med(v[k,7]) / med(v[k,5]), med(v[k,8])
      else if (kk[1] == "loop") printf "loop %-14s /ping %7.0f req/s p50 %6.2f ms during iperf3 -P4 (%6.0f Mbit/s)\n", kk[2], med(v[k,4]), med(v[k,5]), med(v[k,6])
      else printf "fat  %-14s %7.1f Mbit/s one stream, 80 ms, uncapped\n", kk[2], med(v[k,4])
    }
  }' "$RES" | sort
