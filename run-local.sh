#!/usr/bin/env bash
# Builds the two jars and runs tunnel-server and tunnel-client on this machine with the sample
# configs (config/server.toml, config/client.toml). The client's sample proxy serves ./docs
# through the tunnel on public port 6080: try `curl http://127.0.0.1:6080/` in another shell.
# Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -B -q -DskipTests package
fi

java -jar tunnel-server/target/tunnel-server.jar -c config/server.toml &
server=$!
trap 'kill $server $client 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
# The client retries until the server listens only when loginFailExit = false; wait for the port.
for _ in $(seq 1 50); do
  (exec 3<>/dev/tcp/127.0.0.1/7000) 2>/dev/null && break
  sleep 0.2
done
java -jar tunnel-client/target/tunnel-client.jar -c config/client.toml &
client=$!
# "Up" once the public port answers: the client logs in and the server opens the port first.
up=0
for _ in $(seq 1 100); do
  (exec 3<>/dev/tcp/127.0.0.1/6080) 2>/dev/null && { up=1; break; }
  kill -0 $client 2>/dev/null || break
  sleep 0.2
done
if [ $up = 1 ]; then
  echo "tunnel is up: curl http://127.0.0.1:6080/   (Ctrl-C to stop)"
else
  echo "the public port 6080 did not open: see the server's and the client's messages above" >&2
fi
wait
