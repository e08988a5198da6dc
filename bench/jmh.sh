#!/usr/bin/env bash
# Runs the JMH microbenchmarks of the tunnel's own Java path (tunnel-bench, dev.tunnel.bench.jmh):
# the work per request and per bulk chunk apart from the kernel and BoringSSL.
#
#   bench/jmh.sh                       every benchmark, JMH's settings from the annotations
#   bench/jmh.sh -prof gc RelayPath    with allocation per operation; any JMH option works (-h)
#   SKIP_BUILD=1 bench/jmh.sh ...      use the jar already built
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -B -q -DskipTests package -pl tunnel-bench -am
fi
exec java -cp tunnel-bench/target/tunnel-bench.jar org.openjdk.jmh.Main "$@"
