#!/usr/bin/env bash
# The client plugins behind a real server and client, driven by real clients (curl, openssl):
#   http_proxy          curl -x (absolute URI), curl -p -x (CONNECT), no / wrong credentials -> 407
#   socks5              curl --socks5 / --socks5-hostname, wrong password refused
#   unix_domain_socket  curl to the public port of an HTTP server on a Unix socket
#   tls2raw             curl -k https:// to the public port of a plain HTTP server
#   https2http          curl -k https:// (two downloads in one curl run); http2http with curl
#   tcpmux              curl -p -x to the server's tcpmuxHTTPConnectPort, routed by host; 404 / 407
#   hostile             an oversized head (431), a trickling head closed at the deadline
# Every download is checked by sha256. Prints one PASS/FAIL line per check; exits 1 on a FAIL.
#
#   bench/plugins.sh      uses this tree's jars (mvn -B -q -o package -DskipTests first)
#   options (env): SIZE_MB=64 KEEP_WORK=1 JAVA_OPTS="..."
#
# Listens on 127.0.0.1:19600-19619 only; everything it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
SIZE_MB=${SIZE_MB:-64}
WORK=$(mktemp -d /tmp/tunnel-plugins.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for _ in $(seq 1 30); do # a process that does not end on SIGTERM within 30 s is killed, and said so
    alive=0; for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break; sleep 1
  done
  for p in "${PIDS[@]:-}"; do
    if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then echo "FAIL pid $p did not stop on SIGTERM" >&2; kill -9 "$p"; fi
  done
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else echo "work dir kept: $WORK" >&2; fi
}
trap cleanup EXIT INT TERM
log() { echo "[$(date +%T)] $*" >&2; }
missing=()
for tool in curl openssl python3 sha256sum; do command -v $tool > /dev/null || missing+=($tool); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} from Debian"
  apt-get update -qq && apt-get install -y -qq curl openssl python3 coreutils > /dev/null
fi

APP=19601; TUNNEL=19600; HP=19602; SOCKS=19603; UDS=19604; TLS=19605; MUX=19606; H2H=19607; HH=19608
for port in $APP $TUNNEL $HP $SOCKS $UDS $TLS $MUX $H2H $HH; do
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then echo "port $port is in use; stop what runs there first" >&2; exit 1; fi
done
mkdir -p "$WORK/www"
head -c $((SIZE_MB * 1024 * 1024)) /dev/urandom > "$WORK/www/blob"
SUM=$(sha256sum "$WORK/www/blob" | cut -d' ' -f1)

# The apps: one HTTP server on TCP, one on a Unix socket, both serving $WORK/www.
(cd "$WORK/www" && exec python3 -m http.server $APP --bind 127.0.0.1 > "$WORK/app.log" 2>&1) & PIDS+=($!)
cat > "$WORK/uds.py" <<'PY'
import http.server, os, socketserver, sys
os.chdir(sys.argv[2])
class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
class Handler(http.server.SimpleHTTPRequestHandler):
    def address_string(self):
        return "unix"
Server(sys.argv[1], Handler).serve_forever()
PY
python3 "$WORK/uds.py" "$WORK/app.sock" "$WORK/www" > "$WORK/uds.log" 2>&1 & PIDS+=($!)

printf 'bindAddr = "127.0.0.1"\nbindPort = %d\ntcpmuxHTTPConnectPort = %d\nauth.token = "bench"\nlog.level = "warn"\n' \
    $TUNNEL $MUX > "$WORK/server.toml"
cat > "$WORK/client.toml" <<TOML
serverAddr = "127.0.0.1"
serverPort = $TUNNEL
auth.token = "bench"
log.level = "warn"
[[proxies]]
name = "hp"
remotePort = $HP
plugin = { type = "http_proxy", httpUser = "abc", httpPassword = "s3cret" }
[[proxies]]
name = "socks"
remotePort = $SOCKS
plugin = { type = "socks5", username = "abc", password = "s3cret" }
[[proxies]]
name = "uds"
remotePort = $UDS
plugin = { type = "unix_domain_socket", unixPath = "$WORK/app.sock" }
[[proxies]]
name = "tls"
remotePort = $TLS
plugin = { type = "tls2raw", localAddr = "127.0.0.1:$APP" }
[[proxies]]
name = "https2http"
remotePort = $H2H
plugin = { type = "https2http", localAddr = "127.0.0.1:$APP", hostHeaderRewrite = "app.internal" }
[[proxies]]
name = "http2http"
remotePort = $HH
plugin = { type = "http2http", localAddr = "127.0.0.1:$APP" }
[[proxies]]
name = "mux"
type = "tcpmux"
multiplexer = "httpconnect"
localPort = $APP
customDomains = ["tunnel1"]
httpUser = "abc"
httpPassword = "s3cret"
TOML
java ${JAVA_OPTS:-} -jar tunnel-server/target/tunnel-server.jar -c "$WORK/server.toml" > "$WORK/server.log" 2>&1 & PIDS+=($!)
wait_port $TUNNEL 60 || { cat "$WORK/server.log"; exit 1; }
java ${JAVA_OPTS:-} -jar tunnel-client/target/tunnel-client.jar -c "$WORK/client.toml" > "$WORK/client.log" 2>&1 & PIDS+=($!)
for port in $APP $HP $SOCKS $UDS $TLS $MUX $H2H $HH; do wait_port $port 60 || { cat "$WORK/client.log"; exit 1; }; done

FAILED=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "PASS $1"; else echo "FAIL $1: expected [$2], got [$3]"; FAILED=1; fi
}
sum() { sha256sum | cut -d' ' -f1; }
URL=http://127.0.0.1:$APP/blob
C="curl -sS --max-time 120"

check "http_proxy absolute URI"   "$SUM" "$($C -x http://abc:s3cret@127.0.0.1:$HP $URL | sum)"
check "http_proxy CONNECT"        "$SUM" "$($C -p -x http://abc:s3cret@127.0.0.1:$HP $URL | sum)"
check "http_proxy no credentials" 407 "$($C -o /dev/null -w '%{http_code}' -x http://127.0.0.1:$HP $URL)"
check "http_proxy wrong password" 407 "$($C -o /dev/null -w '%{http_code}' -x http://abc:nope@127.0.0.1:$HP $URL)"
check "socks5 IPv4 target"        "$SUM" "$($C --socks5 abc:s3cret@127.0.0.1:$SOCKS $URL | sum)"
check "socks5 name resolved by the plugin" "$SUM" \
  "$($C --socks5-hostname abc:s3cret@127.0.0.1:$SOCKS http://localhost:$APP/blob | sum)"
check "socks5 wrong password"     97 "$($C -o /dev/null --socks5 abc:nope@127.0.0.1:$SOCKS $URL 2>/dev/null; echo $?)"
check "unix_domain_socket"        "$SUM" "$($C http://127.0.0.1:$UDS/blob | sum)"
check "tls2raw (curl -k)"         "$SUM" "$($C -k https://127.0.0.1:$TLS/blob | sum)"
check "tls2raw self-signed certificate" "Verify return code: 18" \
  "$(openssl s_client -connect 127.0.0.1:$TLS < /dev/null 2>/dev/null | grep -o 'Verify return code: 18' | head -1)"
check "https2http (curl -k)"      "$SUM" "$($C -k https://127.0.0.1:$H2H/blob | sum)"
check "https2http, two downloads in one curl run" "$SUM$SUM" \
  "$( { $C -k https://127.0.0.1:$H2H/blob -o "$WORK/a" https://127.0.0.1:$H2H/blob -o "$WORK/b"; sum < "$WORK/a"; sum < "$WORK/b"; } | tr -d '\n')"
check "http2http"                 "$SUM" "$($C http://127.0.0.1:$HH/blob | sum)"
check "tcpmux CONNECT routed by host" "$SUM" "$($C -p -x http://abc:s3cret@127.0.0.1:$MUX http://tunnel1/blob | sum)"
check "tcpmux unknown host"       404 "$($C -o /dev/null -w '%{http_connect}' -p -x http://abc:s3cret@127.0.0.1:$MUX http://nobody/ 2>/dev/null || true)"
check "tcpmux wrong password"     407 "$($C -o /dev/null -w '%{http_connect}' -p -x http://abc:nope@127.0.0.1:$MUX http://tunnel1/ 2>/dev/null || true)"
BIG=$(head -c 20000 /dev/zero | tr '\0' a)
check "http_proxy oversized head" 431 "$($C -o /dev/null -w '%{http_code}' -x http://abc:s3cret@127.0.0.1:$HP -H "X-Big: $BIG" $URL)"
start=$(date +%s)
(exec 3<>/dev/tcp/127.0.0.1/$HP; printf 'CONNECT 127.0.0.1:%d HTTP/1.1\r\n' $APP >&3; cat <&3 > /dev/null) || true
check "http_proxy trickling head closed at the 60 s deadline" yes "$( [ $(( $(date +%s) - start )) -ge 55 ] && echo yes || echo no)"
[ "$(grep -c ' ERROR ' "$WORK/client.log" || true)" = 0 ] || { echo "client log has errors:"; cat "$WORK/client.log"; FAILED=1; }
exit $FAILED
