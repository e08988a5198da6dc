#!/usr/bin/env bash
# Latency under load on a shared home link: what a download through one proxy does to /ping on
# another proxy of the same client, for each proxy type, beside pool mode and `ssh -R`.
#
#   bench/link.sh                                   this tree's jars
#   VARIANTS="main=/tmp/main-jars now=." bench/link.sh
#       each value: a directory holding tunnel-server.jar and tunnel-client.jar, or "." for this
#       tree's target/ jars; OPTS_<name>="-D..." adds JVM options to one build's tunnels;
#       CONF_<name>="transport.x = y" adds a line to both of its configs
#   env: ROUNDS=3  SHARES="fifo fair"  COLS="tcp http tcphttp pool ssh"  DLS="1 4"
#        IDLE_S=8 DL_S=12 PING_S=8 (seconds)  OUT=FILE (also write the tables there)  KEEP_WORK=1
#
# The link: LinkEmulator --share fifo|fair between each tunnel-client (or ssh) and its server:
# 80 ms RTT, 50 Mbit/s, ONE 512 KiB queue per direction shared by every TCP connection of that
# client, as behind a home uplink; fifo is a cable modem's buffer, fair is per-flow round robin
# (fq_codel-like). Every column has a link of its own.
# Columns (default configs; each a client with these proxies, on its own link):
#   tcp      /ping on tcp proxy "web", download through tcp proxy "iperf" (iperf3 -R)
#   http     /ping on http vhost ping.test, download of a file through http vhost dl.test (curl)
#   tcphttp  /ping on http vhost ping.test, download through tcp proxy "iperf"
#   pool     as tcp, transport.tcpMux = false with transport.poolCount = 4
#   ssh      as tcp, through `ssh -R` (OpenSSH) over the same kind of link
# Rows: 1 download, and 4 downloads at once (iperf3 -P4, or 4 curls).
# Each round and column: wrk -t1 -c2 keep-alive /ping for IDLE_S s on the idle link; then for each
# row a download for DL_S s with wrk from second 3 for PING_S s. Figures: /ping p50 and p99
# during the download as a multiple of idle, from wrk's raw latency histograms merged over the
# rounds; the download as % of the link rate, the median of the rounds.
#
# Listens on 127.0.0.1:18700-18799 only; every load is bounded in time; all is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
ROUNDS=${ROUNDS:-3}; VARIANTS=${VARIANTS:-"now=."}; SHARES=${SHARES:-"fifo fair"}
COLS=${COLS:-"tcp http tcphttp pool ssh"}; DLS=${DLS:-"1 4"}
IDLE_S=${IDLE_S:-8}; DL_S=${DL_S:-12}; PING_S=${PING_S:-8}
RATE_MBIT=50; DELAY_MS=40; QUEUE_KIB=512
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
has() { [[ " $1 " == *" $2 "* ]]; }

need=(); for t in wrk iperf3 nginx curl sshd ssh ssh-keygen; do command -v $t >/dev/null || [ -x /usr/sbin/$t ] || need+=($t); done
if [ ${#need[@]} -gt 0 ]; then
  log "installing: wrk iperf3 nginx-light curl openssh-server openssh-client (missing: ${need[*]})"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk iperf3 nginx-light curl \
      openssh-server openssh-client >/dev/null
fi
BENCH_JAR=$ROOT/tunnel-bench/target/tunnel-bench.jar
[ -f "$BENCH_JAR" ] || mvn -B -q -DskipTests package -pl tunnel-bench -am

# ---- backends: nginx (/ping and a file to download), iperf3 ----
NGINX=18700; IPERF=18701; SSHD_PORT=18702
mkdir -p "$WORK/www"; truncate -s 4G "$WORK/www/big"   # sparse: read as zeros, no disk used
chmod 755 "$WORK" "$WORK/www"; chmod 644 "$WORK/www/big"   # nginx workers run as nobody
nginx_conf "$WORK" $NGINX | sed "s|location /ping|location /big { root $WORK/www; } location /ping|" > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -g 'daemon off;' > "$WORK/nginx.log" 2>&1 & PIDS+=($!)
iperf3 -s -B 127.0.0.1 -p $IPERF > "$WORK/iperf.log" 2>&1 & PIDS+=($!)
wait_port $NGINX && wait_port $IPERF || { echo "backends did not start" >&2; exit 1; }
cat > "$WORK/raw.lua" <<'LUA'
-- writes wrk's raw latency histogram (microseconds, count per line) to $WRK_RAW
done = function(summary, latency, requests)
  local f = assert(io.open(os.getenv("WRK_RAW"), "w"))
  for i = 1, #latency do local v, c = latency(i); f:write(v, " ", c, "\n") end
  f:close()
end
LUA

# ---- one setup per discipline: an emulated link per column ----
STARTED=()   # pids of the current discipline's setup
bg() { "$@" & PIDS+=($!); STARTED+=($!); }
emulator() { # emulator LISTEN TARGET SHARE
  bg java -cp "$BENCH_JAR" dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:$1 --target 127.0.0.1:$2 \
      --delay-ms $DELAY_MS --rate-mbit $RATE_MBIT --max-queue-kib $QUEUE_KIB --share $3 > "$WORK/emu-$1.log" 2>&1
  wait_port $1
}
# tunnel NAME VARIANT DIR MUX BASE SHARE: server on BASE, link on BASE+1, tcp proxies web BASE+2 and
# iperf BASE+3, http vhosts ping.test and dl.test on BASE+4
tunnel() {
  local name=$1 v=$2 dir=$3 mux=$4 base=$5 share=$6 opts_var=OPTS_$2 conf_var=CONF_$2
  local opts="${JAVA_OPTS:-} ${!opts_var:-}" conf="${!conf_var:-}"
  printf 'bindAddr = "127.0.0.1"\nbindPort = %d\nvhostHTTPPort = %d\nauth.token = "bench"\ntransport.tcpMux = %s\nlog.level = "warn"\n%s\n' \
      $base $((base + 4)) $mux "$conf" > "$WORK/$name-s.toml"
  {
    printf 'serverAddr = "127.0.0.1"\nserverPort = %d\nauth.token = "bench"\nlog.level = "warn"\n' $((base + 1))
    printf 'transport.tcpMux = %s\ntransport.poolCount = 4\n%s\n' $mux "$conf"
    printf '[[proxies]]\nname = "web"\nlocalPort = %d\nremotePort = %d\n' $NGINX $((base + 2))
    printf '[[proxies]]\nname = "iperf"\nlocalPort = %d\nremotePort = %d\n' $IPERF $((base + 3))
    printf '[[proxies]]\nname = "ping"\ntype = "http"\nlocalPort = %d\ncustomDomains = ["ping.test"]\n' $NGINX
    printf '[[proxies]]\nname = "dl"\ntype = "http"\nlocalPort = %d\ncustomDomains = ["dl.test"]\n' $NGINX
  } > "$WORK/$name-c.toml"
  bg java $opts -jar "$(jar "$dir" server)" -c "$WORK/$name-s.toml" > "$WORK/$name-server.log" 2>&1
  wait_port $base 60 || { echo "$name: server did not start" >&2; cat "$WORK/$name-server.log" >&2; exit 1; }
  emulator $((base + 1)) $base $share
  bg java $opts -jar "$(jar "$dir" client)" -c "$WORK/$name-c.toml" > "$WORK/$name-client.log" 2>&1
  wait_port $((base + 3)) 60 || { echo "$name: client did not come up" >&2; cat "$WORK/$name-client.log" >&2; exit 1; }
  for _ in $(seq 1 100); do curl -fs -m 2 -o /dev/null -H "Host: ping.test" "http://127.0.0.1:$((base + 4))/ping" && break; sleep 0.2; done
}
SSH_READY=0
ssh_setup() { # ssh_setup BASE SHARE: ssh -R over its own link, web on BASE+2, iperf on BASE+3
  local base=$1 share=$2
  if [ $SSH_READY = 0 ]; then
    ssh-keygen -q -t ed25519 -N '' -f "$WORK/hostkey"; ssh-keygen -q -t ed25519 -N '' -f "$WORK/id"
    cp "$WORK/id.pub" "$WORK/authorized_keys"; chmod 600 "$WORK/authorized_keys"; mkdir -p /run/sshd
    printf 'Port %d\nListenAddress 127.0.0.1\nHostKey %s/hostkey\nPidFile %s/sshd.pid\nAuthorizedKeysFile %s/authorized_keys\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nUsePAM no\nStrictModes no\nAllowTcpForwarding remote\nLogLevel ERROR\n' \
        $SSHD_PORT "$WORK" "$WORK" "$WORK" > "$WORK/sshd_config"
    "$(command -v sshd || echo /usr/sbin/sshd)" -D -f "$WORK/sshd_config" -E "$WORK/sshd.log" & PIDS+=($!)
    wait_port $SSHD_PORT || { echo "sshd did not start" >&2; cat "$WORK/sshd.log" >&2; exit 1; }
    SSH_READY=1
  fi
  emulator $((base + 1)) $SSHD_PORT $share
  bg ssh -N -i "$WORK/id" -p $((base + 1)) -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
      -o ExitOnForwardFailure=yes -o LogLevel=ERROR -R 127.0.0.1:$((base + 2)):127.0.0.1:$NGINX \
      -R 127.0.0.1:$((base + 3)):127.0.0.1:$IPERF root@127.0.0.1 > "$WORK/ssh-$share.log" 2>&1
  wait_port $((base + 3)) 20 || { echo "ssh -R did not come up" >&2; cat "$WORK/ssh-$share.log" >&2; exit 1; }
}

# ---- load ----
# ping_load PORT HOST SECONDS RAWFILE: wrk keep-alive /ping, its raw latency histogram in RAWFILE
ping_load() {
  WRK_RAW=$4 wrk -t1 -c2 -d"$3s" --timeout 5s --latency -s "$WORK/raw.lua" -H "Host: $2" "http://127.0.0.1:$1/ping" > "$4.wrk" 2>&1 || true
  [ -s "$4" ] || : > "$4"
}
# download KIND PORT N SECONDS OUT: N downloads at once (iperf3 -R through a tcp proxy, or curl
# through an http vhost) for SECONDS; Mbit/s they made together in OUT. In the background ($dl).
download() {
  local kind=$1 port=$2 n=$3 s=$4 out=$5
  if [ $kind = iperf ]; then
    ( for _ in 1 2 3 4 5; do # the iperf3 server may still be finishing the previous test ("busy")
        iperf3 -c 127.0.0.1 -p $port -R -P $n -t $s -f m > "$out.log" 2>&1 && break
        grep -q busy "$out.log" || break; sleep 1
      done
      awk '/receiver/ {v=$(NF-2); u=$(NF-1)} END {if (u == "Gbits/sec") v *= 1000; print v+0}' "$out.log" > "$out" ) & dl=$!
  else
    ( for i in $(seq 1 $n); do
        curl -s -o /dev/null -m $s -H "Host: dl.test" -w '%{size_download} %{time_total}\n' "http://127.0.0.1:$port/big" >> "$out.log" &
      done
      wait
      awk -v s=$s '{b += $1} END {printf "%.1f\n", b * 8 / 1e6 / s}' "$out.log" > "$out" ) & dl=$!
  fi
}

# column COL SETUP -> "PING_PORT PING_HOST DL_KIND DL_PORT" for a column of a setup at BASE
declare -A BASE
column_ports() {
  local col=$1 b=${BASE[$2]}
  case $col in
    tcp|pool|ssh) echo "$((b + 2)) web $((b + 3))" ;;
    http) echo "$((b + 4)) ping.test $((b + 4))" ;;
    tcphttp) echo "$((b + 4)) ping.test $((b + 3))" ;;
  esac
}

RES=$WORK/results.txt; : > "$RES"; mkdir -p "$WORK/raw"
sidx=0
for share in $SHARES; do
  STARTED=(); CELLS=(); base=$((18710 + sidx * 45)); sidx=$((sidx + 1))
  for v in $VARIANTS; do
    name=${v%%=*}; dir=${v#*=}
    if has "$COLS" tcp || has "$COLS" http || has "$COLS" tcphttp; then
      tunnel "$name-mux-$share" "$name" "$dir" true $base $share; BASE[$name-mux]=$base; base=$((base + 6))
      for c in tcp http tcphttp; do has "$COLS" $c && CELLS+=("$name $c $name-mux"); done
    fi
    if has "$COLS" pool; then
      tunnel "$name-pool-$share" "$name" "$dir" false $base $share; BASE[$name-pool]=$base; base=$((base + 6))
      CELLS+=("$name pool $name-pool")
    fi
  done
  if has "$COLS" ssh; then ssh_setup $base $share; BASE[ssh]=$base; CELLS+=("ssh ssh ssh"); fi
  log "$share: columns $(for c in "${CELLS[@]}"; do set -- $c; printf '%s/%s ' $1 $2; done)"
  for cell in "${CELLS[@]}"; do # warm-up: JIT the paths, let windows settle
    set -- $cell; set -- $(column_ports $2 $3)
    download $([ $3 = $1 ] && echo curl || echo iperf) $3 1 4 "$WORK/warm"; ping_load $1 $2 3 "$WORK/warm.raw"; wait $dl || true
  done
  for r in $(seq 1 "$ROUNDS"); do
    for cell in "${CELLS[@]}"; do
      set -- $cell; v=$1; col=$2; read -r pp ph dp <<< "$(column_ports $2 $3)"
      kind=iperf; [ $col = http ] && kind=curl
      d="$WORK/raw/$share.$v.$col"; mkdir -p "$d"
      ping_load $pp $ph $IDLE_S "$d/idle.$r"
      for n in $DLS; do
        download $kind $dp $n $DL_S "$d/dl$n.$r"
        sleep 3
        ping_load $pp $ph $PING_S "$d/busy$n.$r"
        wait $dl || true
        sleep 2   # what the download left in the link's queue and the tunnel drains before the next figure
        mbit=$(cat "$d/dl$n.$r" 2>/dev/null || echo 0)
        echo "$share $v $col $n $r $mbit" >> "$RES"
        log "round $r $share $v/$col, $n download(s): $mbit Mbit/s; /ping p50 $(awk '$1=="50%" {print $2}' "$d/busy$n.$r.wrk") idle $(awk '$1=="50%" {print $2}' "$d/idle.$r.wrk" 2>/dev/null || true)"
      done
    done
  done
  for p in "${STARTED[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${STARTED[@]}"; do wait "$p" 2>/dev/null || true; done
done

# ---- report ----
pct() { # pct P FILES... : the P-th percentile (ms) of the merged raw histograms
  cat "${@:2}" 2>/dev/null | sort -n | awk -v p=$1 '{v[NR] = $1; c[NR] = $2; n += $2}
      END {if (!n) {print "nan"; exit}; t = n * p / 100; for (i = 1; i <= NR; i++) {s += c[i]; if (s >= t) {printf "%.1f", v[i] / 1000; exit}}}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "-"; else printf "%.2f", a / b}'; }
median() { sort -n | awk '{a[NR] = $1} END {if (!NR) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
title() { case $1 in tcp) echo "tcp -> tcp" ;; http) echo "http vhost -> http vhost" ;; tcphttp) echo "tcp download, http /ping" ;;
  pool) echo "pool mode (tcp)" ;; ssh) echo "ssh -R (tcp)" ;; esac; }
{
  for share in $SHARES; do
    case $share in fifo) desc="one FIFO for all flows (a cable modem's upload buffer)" ;; *) desc="per-flow round robin (fq_codel-like)" ;; esac
    cells=(); for v in $VARIANTS; do for c in tcp http tcphttp pool; do has "$COLS" $c && cells+=("${v%%=*} $c"); done; done
    has "$COLS" ssh && cells+=("ssh ssh")
    echo "Shared queue: $desc. /ping p50 / p99 during the download as a multiple of idle (idle p50 / p99 ms below); download as % of ${RATE_MBIT} Mbit/s."
    echo
    printf '| downloads |'; for c in "${cells[@]}"; do set -- $c; printf ' %s |' "$([ $1 = ssh ] || echo "$1: ")$(title $2)"; done; echo
    printf '|---|'; for c in "${cells[@]}"; do printf -- '---|'; done; echo
    for n in $DLS; do
      printf '| %s |' "$n"
      for c in "${cells[@]}"; do
        set -- $c; d="$WORK/raw/$share.$1.$2"
        i50=$(pct 50 "$d"/idle.*[0-9]); i99=$(pct 99 "$d"/idle.*[0-9]); b50=$(pct 50 "$d"/busy$n.*[0-9]); b99=$(pct 99 "$d"/busy$n.*[0-9])
        dl=$(awk -v s=$share -v v=$1 -v c=$2 -v n=$n '$1 == s && $2 == v && $3 == c && $4 == n {print $6}' "$RES" | median)
        printf ' %s / %s, %s %% |' "$(ratio $b50 $i50)" "$(ratio $b99 $i99)" "$(awk -v m=$dl -v r=$RATE_MBIT 'BEGIN {printf "%.0f", m * 100 / r}')"
        echo "link $share $1 $2 $n idle_p50=$i50 idle_p99=$i99 busy_p50=$b50 busy_p99=$b99 dl_mbit=$dl" >> "$WORK/figures.txt"
      done
      echo
    done
    printf '| idle ms |'
    for c in "${cells[@]}"; do set -- $c; d="$WORK/raw/$share.$1.$2"; printf ' %s / %s |' "$(pct 50 "$d"/idle.*[0-9])" "$(pct 99 "$d"/idle.*[0-9])"; done
    echo; echo
  done
  echo "Medians of $ROUNDS rounds (downloads); percentiles of the rounds' merged raw samples; link 80 ms RTT, ${RATE_MBIT} Mbit/s, ${QUEUE_KIB} KiB shared queue per direction."
} > "$WORK/tables.md"
cat "$WORK/figures.txt" >&2
cat "$WORK/tables.md"
[ -z "${OUT:-}" ] || cp "$WORK/tables.md" "$OUT"
