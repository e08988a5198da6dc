#!/usr/bin/env bash
# Real clients against the built jars (issue 15): curl on the server's REST API and the client's
# admin API (with and without credentials, cross-site), Python's Prometheus text-format parser on
# /metrics, and headless Chromium (Debian's) on the dashboard: a screenshot checked by this script
# (it renders the client and its proxies, no console errors), the first load's time and size, in
# virtual time and in real time (node's DevTools client, bench/page-load.js; REAL_LOADS=5 loads).
# Installs curl, chromium and python3-prometheus-client from Debian (needs root).
#   bench/web-clients.sh            builds the jars unless JARS=DIR holds tunnel-server.jar and tunnel-client.jar
# Exit status 0 when every check passes; the figures are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh

need=()
command -v curl >/dev/null || need+=(curl)
command -v chromium >/dev/null || need+=(chromium)
command -v node >/dev/null || need+=(nodejs)
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null || need+=(python3-prometheus-client)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ -z "${JARS:-}" ]; then
    mvn -B -q -o package -DskipTests -pl tunnel-server,tunnel-client -am
    JARS=$ROOT/target/jars; mkdir -p "$JARS"
    cp tunnel-server/target/tunnel-server.jar tunnel-client/target/tunnel-client.jar "$JARS/"
fi

WORK=$(mktemp -d /tmp/web-clients.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
fail=0
check() { # check NAME CONDITION-COMMAND...
    local name=$1; shift
    if "$@"; then echo "ok    $name"; else echo "FAIL  $name"; fail=1; fi
}
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

BIND=$(free_port); WEB=$(free_port); ADMIN=$(free_port); APP=$(free_port); PUB=$(free_port)
mkdir -p "$WORK/site" && head -c 200000 /dev/urandom > "$WORK/site/blob.bin" && echo hello > "$WORK/site/index.html"
(cd "$WORK/site" && exec /usr/bin/python3 -m http.server "$APP" --bind 127.0.0.1 --protocol HTTP/1.1 >/dev/null 2>&1) & PIDS+=($!)
cat > "$WORK/server.toml" <<TOML
bindAddr = "127.0.0.1"
bindPort = $BIND
enablePrometheus = true
auth.token = "web-clients"
webServer.port = $WEB
webServer.user = "admin"
webServer.password = "s3cret"
TOML
cat > "$WORK/client.toml" <<TOML
serverPort = $BIND
auth.token = "web-clients"
webServer.port = $ADMIN
webServer.user = "admin"
webServer.password = "s3cret"
[[proxies]]
name = "web"
localPort = $APP
remotePort = $PUB
[[proxies]]
name = "files"
remotePort = 0
[proxies.plugin]
type = "static_file"
localPath = "$WORK/site"
TOML
java -jar "$JARS/tunnel-server.jar" -c "$WORK/server.toml" > "$WORK/server.log" 2>&1 & PIDS+=($!)
wait_port "$BIND" 30 && wait_port "$WEB" 30
java -jar "$JARS/tunnel-client.jar" -c "$WORK/client.toml" > "$WORK/client.log" 2>&1 & PIDS+=($!)
wait_port "$PUB" 30 || { cat "$WORK/client.log"; exit 1; }
for i in 1 2 3 4 5; do curl -s -o /dev/null "http://127.0.0.1:$PUB/blob.bin"; done

S="http://127.0.0.1:$WEB"; A="http://127.0.0.1:$ADMIN"; CRED=(-u admin:s3cret)
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
echo "== server REST API (curl)"
check "/healthz without credentials: 200" [ "$(code "$S/healthz")" = 200 ]
for path in /api/serverinfo /api/proxy/tcp /api/clients /metrics /static/; do
    check "$path without credentials: 401" [ "$(code "$S$path")" = 401 ]
    check "$path with a wrong password: 401" [ "$(code -u admin:wrong "$S$path")" = 401 ]
done
info=$(curl -sf "${CRED[@]}" "$S/api/serverinfo")
check "serverinfo: clientCounts 1, 2 tcp proxies" /usr/bin/python3 -c '
import json,sys; i=json.loads(sys.argv[1]); assert i["clientCounts"]==1 and i["proxyTypeCount"]["tcp"]==2, i' "$info"
proxies=$(curl -sf "${CRED[@]}" "$S/api/proxy/tcp")
check "proxy/tcp: web and files online, frp fields" /usr/bin/python3 -c '
import json,sys; p={x["name"]:x for x in json.loads(sys.argv[1])["proxies"]}
assert p["web"]["status"]=="online" and p["files"]["status"]=="online", p
assert p["web"]["conf"]["remotePort"]==int(sys.argv[2])
for k in ("todayTrafficIn","todayTrafficOut","curConns","lastStartTime","lastCloseTime"): assert k in p["web"], k' "$proxies" "$PUB"
check "proxy/tcp/web: 200, proxy/tcp/nope: 404" [ "$(code "${CRED[@]}" "$S/api/proxy/tcp/web")$(code "${CRED[@]}" "$S/api/proxy/tcp/nope")" = 200404 ]
check "traffic/web: 7 days in and out" /usr/bin/python3 -c '
import json,sys; t=json.loads(sys.argv[1]); assert len(t["trafficIn"])==7 and len(t["trafficOut"])==7' "$(curl -sf "${CRED[@]}" "$S/api/traffic/web")"
check "clients: one online client from 127.0.0.1" /usr/bin/python3 -c '
import json,sys; c=json.loads(sys.argv[1]); assert len(c)==1 and c[0]["online"] and c[0]["clientIP"]=="127.0.0.1", c' "$(curl -sf "${CRED[@]}" "$S/api/clients")"

echo "== /metrics (prometheus_client's text parser)"
curl -sf "${CRED[@]}" "$S/metrics" > "$WORK/metrics.txt"
check "metrics parse, frp names and labels" /usr/bin/python3 - "$WORK/metrics.txt" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
samples = {s.name: s for f in fams.values() for s in f.samples}
for name in ["frp_server_client_counts", "frp_server_proxy_counts", "frp_server_proxy_counts_detailed",
             "frp_server_connection_counts", "frp_server_traffic_in", "frp_server_traffic_out",
             "tunnel_server_failed_logins_total", "tunnel_server_refused_connections_total"]:
    assert name in samples, name
assert samples["frp_server_client_counts"].value == 1
labels = [s.labels for f in fams.values() for s in f.samples if s.name == "frp_server_traffic_in"]
assert {"name": "web", "type": "tcp"} in labels, labels
assert any(s.labels == {"type": "tcp"} and s.value == 2 for s in fams["frp_server_proxy_counts"].samples)
PY

echo "== client admin API (curl)"
check "admin /healthz: 200" [ "$(code "$A/healthz")" = 200 ]
check "admin /api/status without credentials: 401" [ "$(code "$A/api/status")" = 401 ]
check "admin /api/status: web running on the server's port" /usr/bin/python3 -c '
import json,sys; s=json.loads(sys.argv[1]); w=[p for p in s["tcp"] if p["name"]=="web"][0]
assert w["status"]=="running" and w["remote_addr"].endswith(":"+sys.argv[2]), w' "$(curl -sf "${CRED[@]}" "$A/api/status")" "$PUB"
check "admin /api/config: the file" grep -q "webServer.port = $ADMIN" <(curl -sf "${CRED[@]}" "$A/api/config")
check "cross-site POST /api/stop (Origin): 403" [ "$(code "${CRED[@]}" -X POST -H 'Origin: https://evil.example' "$A/api/stop")" = 403 ]
check "cross-site PUT /api/config (Sec-Fetch-Site): 403" [ "$(code "${CRED[@]}" -X PUT -H 'Sec-Fetch-Site: cross-site' --data-binary 'x = 1' "$A/api/config")" = 403 ]
check "invalid PUT /api/config: 400, file unchanged" [ "$(code "${CRED[@]}" -X PUT --data-binary 'serverPort = 70000' "$A/api/config")$(grep -c 'remotePort = 0' "$WORK/client.toml")" = 4001 ]
check "tunnel-client status -c: lists web running" grep -q '^web .*running' <(java -jar "$JARS/tunnel-client.jar" status -c "$WORK/client.toml")
PUB2=$(free_port)
cp "$WORK/client.toml" "$WORK/client.before"
printf '[[proxies]]\nname = "web2"\nlocalPort = %s\nremotePort = %s\n' "$APP" "$PUB2" >> "$WORK/client.toml"
exec 7<>/dev/tcp/127.0.0.1/$PUB; printf 'GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n' >&7
check "tunnel-client reload -c: adds web2" java -jar "$JARS/tunnel-client.jar" reload -c "$WORK/client.toml"
check "web2 serves after the reload" bash -c "sleep 1; curl -sf http://127.0.0.1:$PUB2/index.html | grep -q hello"
check "a connection held on web across the reload still answers" bash -c "printf 'GET /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&7; timeout 5 cat <&7 | grep -c 'HTTP/1.1 200' | grep -q 2"
exec 7>&-
cp "$WORK/client.toml" "$WORK/client.good"; echo 'serverPort = 70000' >> "$WORK/client.toml"
check "reload of an invalid file: refused (exit 1), nothing changes" bash -c "! java -jar '$JARS/tunnel-client.jar' reload -c '$WORK/client.good' >/dev/null 2>&1 && curl -sf http://127.0.0.1:$PUB2/index.html | grep -q hello"
cp "$WORK/client.before" "$WORK/client.toml"
check "SIGHUP reloads (web2 removed)" bash -c "kill -HUP ${PIDS[2]}; for i in \$(seq 50); do curl -s -o /dev/null http://127.0.0.1:$PUB2/ || exit 0; sleep 0.1; done; exit 1"

echo "== dashboard (headless chromium)"
URL="http://admin:s3cret@127.0.0.1:$WEB/static/"
first=$(curl -s -o /dev/null "${CRED[@]}" -w '%{time_total} %{size_download}' "$S/static/")
bytes=0; for f in "" app.js app.css; do
    bytes=$(( bytes + $(curl -s "${CRED[@]}" -o /dev/null -w '%{size_download}' "$S/static/$f") )); done
CHROME=(chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WORK/chrome"
        --window-size=1280,900 --virtual-time-budget=6000)
"${CHROME[@]}" --enable-logging=stderr --v=0 --dump-dom "$URL" > "$WORK/dom.html" 2> "$WORK/chrome.log" || true
"${CHROME[@]}" --dump-dom "$URL#proxy=web" > "$WORK/detail.html" 2>> "$WORK/chrome.log" || true
# screenshots: a desktop and a phone width, and a proxy's detail (SCREENSHOTS=DIR keeps them)
"${CHROME[@]}" --screenshot="$WORK/dashboard-1280.png" "$URL" > /dev/null 2>&1 || true
"${CHROME[@]}" --screenshot="$WORK/dashboard-proxy-1280.png" "$URL#proxy=web" > /dev/null 2>&1 || true
"${CHROME[@]/--window-size=1280,900/--window-size=390,844}" --screenshot="$WORK/dashboard-390.png" "$URL" > /dev/null 2>&1 || true
[ -n "${SCREENSHOTS:-}" ] && mkdir -p "$SCREENSHOTS" && cp "$WORK"/dashboard-*.png "$SCREENSHOTS/"
check "page shows the client, both proxies online, a chart with axes" /usr/bin/python3 - "$WORK/dom.html" "$(hostname)" "$PUB" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
for needle in ["<td>web</td>", "<td>files</td>", "<td>" + sys.argv[2] + "</td>", 'class="online">online',
               "<td>" + sys.argv[3] + "</td>", ">now</text>", ">-60 min</text>", "/s</text>"]:
    assert needle in dom, needle
assert re.search(r'<polyline class="in" points="[0-9.]+,[0-9.]+ ', dom), "no traffic line"
assert " MB" not in dom and " KB" not in dom, "decimal unit names for binary sizes"
assert 'id="error" hidden' in dom, "the page reports an error"
PY
check "#proxy=web opens its detail: address, last hour and 7 days charted" /usr/bin/python3 - "$WORK/detail.html" "$PUB" <<'PY'
import sys
dom = open(sys.argv[1]).read()
detail = dom[dom.index('id="detail"'):]
assert not detail.startswith('id="detail" hidden'), "detail hidden"
for needle in ["web (tcp, online)", "<dd>" + sys.argv[2] + "</dd>", ">today</text>", "<rect class=\"in\"", ">-60 min</text>"]:
    assert needle in detail, needle
PY
check "no console errors" bash -c "! grep -E 'CONSOLE|Uncaught|Failed to load' '$WORK/chrome.log'"
for shot in 1280x900:dashboard-1280 1280x900:dashboard-proxy-1280 390x844:dashboard-390; do
    check "screenshot ${shot#*:}.png is a ${shot%%:*} PNG that is not blank" /usr/bin/python3 - "$WORK/${shot#*:}.png" "${shot%%:*}" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
w, h = struct.unpack(">II", data[16:24]); assert "%dx%d" % (w, h) == sys.argv[2], (w, h)
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8]); pos += 8
    if kind == b"IDAT": idat += data[pos:pos + n]
    pos += n + 4
raw = zlib.decompress(idat)
assert len(set(raw[i:i + 3] for i in range(0, len(raw) - 3, 97))) > 20, "too few colors: blank page?"
PY
done
render=$(grep -o 'data-first-render-ms="[0-9]*"' "$WORK/dom.html" | grep -o '[0-9]*' || echo "?")
check "first load transfers < 200 KB ($bytes bytes)" [ "$bytes" -lt 204800 ]

# Real time (no virtual time): REAL_LOADS first loads, each in a new Chromium with an empty
# profile, timed by the page's own navigation timing over the DevTools protocol (bench/page-load.js).
: > "$WORK/real.jsonl"
for i in $(seq 1 "${REAL_LOADS:-5}"); do
    DT=$(free_port)
    chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WORK/chrome-rt$i" \
        --window-size=1200,900 --remote-debugging-port="$DT" about:blank > /dev/null 2>&1 & cpid=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$DT/json/version" > /dev/null && break; sleep 0.1; done
    node --no-warnings --experimental-websocket bench/page-load.js "$DT" "$URL" >> "$WORK/real.jsonl" || true
    kill $cpid 2>/dev/null || true; wait $cpid 2>/dev/null || true
done
DT=$(free_port)
chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WORK/chrome-390" \
    --window-size=390,844 --remote-debugging-port="$DT" about:blank > /dev/null 2>&1 & cpid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$DT/json/version" > /dev/null && break; sleep 0.1; done
phone=$(VIEWPORT=390x844 node --no-warnings --experimental-websocket bench/page-load.js "$DT" "$URL" || true)
kill $cpid 2>/dev/null || true; wait $cpid 2>/dev/null || true
check "390 px wide: the page does not scroll sideways" /usr/bin/python3 -c '
import json,sys; r=json.loads(sys.argv[1]); assert r["innerWidth"] <= 400 and r["scrollWidth"] <= r["innerWidth"], r' "$phone"
real=$(/usr/bin/python3 - "$WORK/real.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = [r for r in runs if r["renderMs"] is not None and not r["errors"]]
med = lambda k: round(statistics.median(r[k] for r in ok)) if ok else -1
print(len(runs), len(ok), med("renderMs"), med("loadMs"), med("bytes"), max((r["renderMs"] for r in ok), default=-1))
PY
)
read -r nreal nok rt_render rt_load rt_bytes rt_max <<< "$real"
check "real-time first loads: all $nreal render the data, no errors" [ "$nok" = "$nreal" -a "$nok" -gt 0 ]
check "real-time first load: data on screen < 300 ms (median ${rt_render} ms)" [ "$rt_render" -ge 0 -a "$rt_render" -lt 300 ]
check "real-time first load: < 200 KB transferred, headers and API calls included (${rt_bytes} bytes)" [ "$rt_bytes" -gt 0 -a "$rt_bytes" -lt 204800 ]
echo
echo "figures: dashboard files $bytes bytes; index.html over curl ${first% *} s; data on screen ${render} ms after navigation (headless chromium, virtual time)"
echo "figures: real time, median of $nok cold first loads: load event ${rt_load} ms, data on screen ${rt_render} ms (max ${rt_max} ms), ${rt_bytes} bytes transferred; load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ $fail = 0 ] && echo "all checks passed" || { echo "some checks FAILED; logs:"; tail -n 20 "$WORK/server.log" "$WORK/client.log" "$WORK/chrome.log"; }
exit $fail
