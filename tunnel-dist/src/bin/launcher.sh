#!/bin/sh
# Launcher for tunnel-server and tunnel-client: the release ships this file under both names
# (bin/tunnel-server, bin/tunnel-client) and the name picks the jar, lib/<name>.jar.
#
# JVM flags: the small-VPS set (README "Running on a 1 GB VPS", dev.tunnel.runtime.SmallVpsJvm),
# then $JAVA_OPTS, whose flags win because the JVM takes the last of a repeated flag
# (JAVA_OPTS="-Xmx512m" raises the heap).
# Runtime: the bundled runtime/ beside bin/, else $JAVA_HOME, else `java` on the PATH; it must
# be Java 17 or newer.
set -eu

self=$(readlink -f "$0" 2>/dev/null || printf '%s\n' "$0")
name=$(basename "$self")
home=$(cd "$(dirname "$self")/.." && pwd -P)
jar="$home/lib/$name.jar"

SMALL_VPS_FLAGS="-Xms8m -Xmx128m -Xmn2m -XX:MaxDirectMemorySize=64m -XX:+UseSerialGC -Xss512k -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -Dio.netty.jfr.enabled=false"

fail() {
    printf '%s: %s\n' "$name" "$*" >&2
    exit 1
}

# The version of the java at $1 (17.0.15, 1.8.0_402), from the release file of its home or,
# without one, from `java -version`.
java_version() {
    release="$(dirname "$(dirname "$(readlink -f "$1" 2>/dev/null || printf '%s\n' "$1")")")/release"
    if [ -r "$release" ]; then
        sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$release"
    else
        "$1" -version 2>&1 | sed -n 's/^[^"]* version "\([^"]*\)".*/\1/p' | head -n 1
    fi
}

if [ -x "$home/runtime/bin/java" ]; then
    java="$home/runtime/bin/java"
    where="the bundled runtime"
elif [ -n "${JAVA_HOME:-}" ]; then
    java="$JAVA_HOME/bin/java"
    where="JAVA_HOME"
    [ -x "$java" ] || fail "JAVA_HOME=$JAVA_HOME has no bin/java; point it at a Java 17+ install"
elif java=$(command -v java 2>/dev/null); then
    where="the PATH"
else
    fail "no Java runtime: $home/runtime is missing, JAVA_HOME is not set and no java is on the PATH; install Java 17 or newer, or use the release tarball (it bundles one)"
fi

version=$(java_version "$java")
major=${version#1.}
major=${major%%[!0-9]*}
if [ -z "$major" ] || [ "$major" -lt 17 ]; then
    fail "needs Java 17 or newer; $java (from $where) is version ${version:-unknown}; set JAVA_HOME to a Java 17+ install"
fi
[ -r "$jar" ] || fail "$jar is missing: this launcher expects lib/$name.jar beside its bin/"

# shellcheck disable=SC2086 # the flag lists are meant to split on spaces
exec "$java" $SMALL_VPS_FLAGS ${JAVA_OPTS:-} -jar "$jar" "$@"
