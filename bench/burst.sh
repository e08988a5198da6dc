#!/usr/bin/env bash
# A burst of connections on one tunnel session, and what the session's other streams see.
#
#   bench/burst.sh [tunnel|direct]    (default tunnel; direct: the load straight to the backend)
#   env: JARS=DIR (tunnel-server.jar and tunnel-client.jar of another build; default: this tree's,
#        built unless SKIP_BUILD=1), BURST=8000 (connections in the burst), PROBE=500,
#        WARMUP=3 (warm-up bursts before the measured one; 0: the fresh-JVM case)
#
# A probe of PROBE connections sends a 64-byte message every 200 ms for 40 s through a mux TLS
# tunnel to the bench echo backend; 12 s into its sending, a second load process opens BURST
# connections at once, holds them 8 s, and closes them. The probe prints its round trips over
# 100 ms per second of sending: the opening lands around seconds 12-16, the closing around 22-26.
# Everything on 127.0.0.1 (ports 18300-18312); every load is bounded in count and time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
MODE=${1:-tunnel}
case "$MODE" in tunnel|direct) ;; *) echo "usage: bench/burst.sh [tunnel|direct]" >&2; exit 2 ;; esac
BURST=${BURST:-8000}; PROBE=${PROBE:-500}
if [ -z "${JARS:-}" ]; then
  [ "${SKIP_BUILD:-0}" = 1 ] || mvn -B -q -DskipTests package
  SERVER_JAR=$ROOT/tunnel-server/target/tunnel-server.jar; CLIENT_JAR=$ROOT/tunnel-client/target/tunnel-client.jar
else
  SERVER_JAR=$JARS/tunnel-server.jar; CLIENT_JAR=$JARS/tunnel-client.jar
fi
BENCH_JAR=$ROOT/tunnel-bench/target/tunnel-bench.jar
[ -f "$BENCH_JAR" ] || mvn -B -q -DskipTests package -pl tunnel-bench -am
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
WORK=$(mktemp -d /tmp/tunnel-burst.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM
bg() { "$@" & PIDS+=($!); }

bg java -cp "$BENCH_JAR" dev.tunnel.bench.EchoServer --listen 127.0.0.1:18300 --threads 1 > "$WORK/echo.log" 2>&1
wait_port 18300
TARGET=18300
if [ "$MODE" = tunnel ]; then
  printf 'bindAddr = "127.0.0.1"\nbindPort = 18310\nauth.token = "bench"\ntransport.tls.force = true\nlog.level = "warn"\n' > "$WORK/s.toml"
  printf 'serverAddr = "127.0.0.1"\nserverPort = 18310\nauth.token = "bench"\ntransport.tls.enable = true\nlog.level = "warn"\n[[proxies]]\nname = "echo"\nlocalPort = 18300\nremotePort = 18312\n' > "$WORK/c.toml"
  bg java -jar "$SERVER_JAR" -c "$WORK/s.toml" > "$WORK/server.log" 2>&1
  wait_port 18310
  bg java -jar "$CLIENT_JAR" -c "$WORK/c.toml" > "$WORK/client.log" 2>&1
  wait_port 18312 15
  TARGET=18312
fi
# Warm-up: WARMUP bursts before anything is measured. Mass opens and closes in a fresh JVM run
# while C2 compiles those paths (perf: C2 was half of both tunnel processes' CPU during the first
# closing, and still half of the client's during the second); a server that runs for days has
# them compiled.
for _ in $(seq 1 "${WARMUP:-3}"); do
  java -cp "$BENCH_JAR" dev.tunnel.bench.LongConnLoad --target 127.0.0.1:$TARGET --connections "$BURST" --interval-ms 0 \
      --duration-s 2 --connect-rate 100000 --threads 2 --sources 127.0.0.3 > "$WORK/warmup.txt" 2>&1 || true
  sleep 3
done
java -cp "$BENCH_JAR" dev.tunnel.bench.LongConnLoad --target 127.0.0.1:$TARGET --connections "$PROBE" --interval-ms 200 \
    --duration-s 40 --warmup-ms 2000 --threads 1 --sources 127.0.0.2 > "$WORK/probe.txt" 2>&1 &
probe=$!; PIDS+=($probe)
sleep 14
java -cp "$BENCH_JAR" dev.tunnel.bench.LongConnLoad --target 127.0.0.1:$TARGET --connections "$BURST" --interval-ms 0 \
    --duration-s 8 --connect-rate 100000 --threads 2 --sources 127.0.0.3 > "$WORK/burst.txt" 2>&1 || true
wait $probe || true
echo "$MODE: probe of $PROBE connections, burst of $BURST"
grep -E "^connections|^messages|^rtt|^late" "$WORK/probe.txt" | sed 's/^/  probe: /'
grep -E "^connections" "$WORK/burst.txt" | sed 's/^/  burst: /'
