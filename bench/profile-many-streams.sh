#!/usr/bin/env bash
# Reproduces the long-connection tail seen in docs/benchmarks.md and records JFR of both sides:
# N connections through a mux TLS tunnel, one 64-byte message per second each, 25 s.
#   N=8000 bench/profile-many-streams.sh      (jars built; JFR files and logs land in $WORK)
# Seen on 2 cores: p50 18 s and most replies late while server and client used ~20% CPU each
# and the server's event loop sat in epollWait0 (a stall, not CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-8000}
WORK=$(mktemp -d /tmp/tunnel-profile.XXXXXX)
BENCH=tunnel-bench/target/tunnel-bench.jar
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; echo "JFR and logs: $WORK"' EXIT
printf 'bindAddr = "127.0.0.1"\nbindPort = 18500\nauth.token = "bench"\ntransport.tls.force = true\nlog.level = "warn"\n' > "$WORK/s.toml"
printf 'serverAddr = "127.0.0.1"\nserverPort = 18500\nauth.token = "bench"\ntransport.tls.enable = true\nlog.level = "warn"\n[[proxies]]\nname = "echo"\nlocalPort = 18300\nremotePort = 18510\n' > "$WORK/c.toml"
java -cp $BENCH dev.tunnel.bench.EchoServer --listen 127.0.0.1:18300 --threads 1 > "$WORK/echo.log" 2>&1 & PIDS+=($!)
java -XX:StartFlightRecording=filename=$WORK/server.jfr,settings=profile -jar tunnel-server/target/tunnel-server.jar -c "$WORK/s.toml" > "$WORK/server.log" 2>&1 & S=$!; PIDS+=($S)
sleep 2
java -XX:StartFlightRecording=filename=$WORK/client.jfr,settings=profile -jar tunnel-client/target/tunnel-client.jar -c "$WORK/c.toml" > "$WORK/client.log" 2>&1 & C=$!; PIDS+=($C)
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/18510) 2>/dev/null && break; sleep 0.2; done
java -cp $BENCH dev.tunnel.bench.LongConnLoad --target 127.0.0.1:18510 --connections "$N" --interval-ms 1000 \
    --duration-s 25 --warmup-ms 5000 --sources 127.0.0.2 | tee "$WORK/load.txt" &
L=$!
sleep 20
top -b -n1 -p "$S,$C" | tail -3
jcmd "$S" JFR.dump name=1 filename="$WORK/server.jfr" >/dev/null
jcmd "$C" JFR.dump name=1 filename="$WORK/client.jfr" >/dev/null
wait $L
for f in server client; do
  echo "== $f: top native frames"
  jfr print --events jdk.NativeMethodSample --stack-depth 1 "$WORK/$f.jfr" | grep -A1 'stackTrace = \[' \
    | grep -v 'stackTrace\|--' | sed 's/line:.*//' | sort | uniq -c | sort -rn | head -5
done
