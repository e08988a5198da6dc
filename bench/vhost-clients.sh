#!/usr/bin/env bash
# Real clients against the vhost ports, through a real tunnel on this machine:
#   - curl --resolve: pages by subdomain and custom domain, keep-alive reuse (curl keeps a connection
#     per host name; one connection carrying several hosts is VhostTest's job),
#     404 for an unknown host, HTTPS by SNI verified against a certificate only the home side holds
#   - headless Chromium (Debian's chromium, driven over its DevTools port by node): a page whose
#     CSS, JS and image load through the vhost port and whose script opens a WebSocket through it
#     and gets an echo back
# Installs what it needs (Debian packages: curl chromium nodejs openssl), builds the jars if missing.
# Prints one line per check and exits non-zero if one fails.
#
# Listens on 127.0.0.1:19440-19459 only; everything it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
need=()
for c in curl:curl chromium:chromium node:nodejs openssl:openssl; do
  command -v "${c%%:*}" > /dev/null || need+=("${c#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null
fi
[ -f tunnel-server/target/tunnel-server.jar ] || mvn -B -q -DskipTests package
WORK=$(mktemp -d /tmp/tunnel-vhost-clients.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ "${KEEP_WORK:-0}" = 1 ] && echo "work dir kept: $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
TUNNEL=19440; HTTP=19441; HTTPS=19442; DEVTOOLS=19443; APP=19450; TLSAPP=19451
for port in $TUNNEL $HTTP $HTTPS $DEVTOOLS $APP $TLSAPP; do # never measure (or talk to) someone else's service
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then echo "port $port is in use; stop what runs there first" >&2; exit 1; fi
done
FAILED=0
check() { # check NAME COMMAND...
  if "${@:2}"; then echo "ok    $1"; else echo "FAIL  $1"; FAILED=1; fi
}

# The home side's certificate for secure.example.test: the server never sees its key.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=secure.example.test \
    -addext subjectAltName=DNS:secure.example.test -keyout "$WORK/home.key" -out "$WORK/home.crt" 2> /dev/null

# The local app: a page with assets and a WebSocket echo (node, no packages), and a TLS app.
mkdir -p "$WORK/www"
cat > "$WORK/www/index.html" <<'HTML'
<!DOCTYPE html><html><head><title>vhost</title><link rel="stylesheet" href="/style.css">
<script src="/app.js"></script></head><body><img id="img" src="/pixel.svg"><p id="out">loading</p></body></html>
HTML
echo 'body { color: rgb(1, 2, 3); }' > "$WORK/www/style.css"
echo '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>' > "$WORK/www/pixel.svg"
cat > "$WORK/www/app.js" <<'JS'
window.addEventListener('load', () => {
  const css = getComputedStyle(document.body).color === 'rgb(1, 2, 3)';
  const img = document.getElementById('img').naturalWidth === 1;
  const ws = new WebSocket('ws://' + location.host + '/ws');
  ws.onopen = () => ws.send('hello from chromium');
  ws.onmessage = (e) => { document.getElementById('out').textContent = 'css=' + css + ' img=' + img + ' ws=' + e.data; };
  ws.onerror = () => { document.getElementById('out').textContent = 'ws error'; };
});
JS
cat > "$WORK/app.js" <<'JS'
const http = require('http'), https = require('https'), fs = require('fs'), path = require('path'), crypto = require('crypto');
const [www, port, tlsPort, key, cert] = process.argv.slice(2);
const types = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml' };
const serve = (req, res) => {
  const file = path.join(www, req.url === '/' ? 'index.html' : path.normalize(req.url));
  fs.readFile(file, (err, data) => {
    if (err) { res.writeHead(404); res.end('no'); return; }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'text/plain', 'X-Seen-Host': req.headers.host,
      'X-Seen-Forwarded-For': req.headers['x-forwarded-for'] || '' });
    res.end(data);
  });
};
const server = http.createServer(serve);
server.on('upgrade', (req, socket) => { // a minimal RFC 6455 echo: unfragmented text frames
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n');
  socket.on('data', (buf) => {
    if ((buf[0] & 0x0f) !== 1) { socket.end(); return; }
    let len = buf[1] & 0x7f, off = 2;
    if (len === 126) { len = buf.readUInt16BE(2); off = 4; }
    const mask = buf.slice(off, off + 4), data = Buffer.alloc(len);
    for (let i = 0; i < len; i++) data[i] = buf[off + 4 + i] ^ mask[i % 4];
    const reply = Buffer.from('echo: ' + data.toString());
    socket.write(Buffer.concat([Buffer.from([0x81, reply.length]), reply]));
  });
});
server.listen(port, '127.0.0.1');
https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => res.end('secure hello from home\n'))
  .listen(tlsPort, '127.0.0.1');
JS
node "$WORK/app.js" "$WORK/www" $APP $TLSAPP "$WORK/home.key" "$WORK/home.crt" > "$WORK/app.log" 2>&1 & PIDS+=($!)
wait_port $APP && wait_port $TLSAPP || { echo "local apps did not start" >&2; cat "$WORK/app.log" >&2; exit 1; }

printf 'bindAddr = "127.0.0.1"\nbindPort = %d\nvhostHTTPPort = %d\nvhostHTTPSPort = %d\nsubDomainHost = "tunnel.test"\nauth.token = "clients"\n' \
    $TUNNEL $HTTP $HTTPS > "$WORK/server.toml"
cat > "$WORK/client.toml" <<TOML
serverAddr = "127.0.0.1"
serverPort = $TUNNEL
auth.token = "clients"
[[proxies]]
name = "site"
type = "http"
localPort = $APP
subdomain = "app"
customDomains = ["www.example.test"]
[[proxies]]
name = "secure"
type = "https"
localPort = $TLSAPP
customDomains = ["secure.example.test"]
TOML
java -jar tunnel-server/target/tunnel-server.jar -c "$WORK/server.toml" > "$WORK/server.log" 2>&1 & PIDS+=($!)
wait_port $TUNNEL || { cat "$WORK/server.log" >&2; exit 1; }
java -jar tunnel-client/target/tunnel-client.jar -c "$WORK/client.toml" > "$WORK/client.log" 2>&1 & PIDS+=($!)
R="--resolve app.tunnel.test:$HTTP:127.0.0.1 --resolve www.example.test:$HTTP:127.0.0.1 --resolve nope.tunnel.test:$HTTP:127.0.0.1"
for i in $(seq 1 100); do curl -sf $R "http://app.tunnel.test:$HTTP/" > /dev/null 2>&1 && break; sleep 0.2; done

check "curl: page by subdomain" bash -c "curl -sf $R http://app.tunnel.test:$HTTP/ | grep -q '<title>vhost</title>'"
check "curl: page by custom domain, forwarded headers" bash -c \
    "curl -sfi $R http://www.example.test:$HTTP/style.css | grep -qi '^x-seen-forwarded-for: 127.0.0.1'"
check "curl: keep-alive, two requests on one connection" bash -c \
    "curl -sv $R http://app.tunnel.test:$HTTP/style.css http://app.tunnel.test:$HTTP/pixel.svg -o /dev/null -o /dev/null 2>&1 \
     | grep -q 'Re-using existing connection'"
check "curl: 404 for an unknown host" bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' $R http://nope.tunnel.test:$HTTP/)\" = 404 ]"
check "curl: https by SNI, certificate held at home" bash -c \
    "curl -sf --cacert $WORK/home.crt --resolve secure.example.test:$HTTPS:127.0.0.1 https://secure.example.test:$HTTPS/ \
     | grep -q 'secure hello from home'"
# Chromium is driven over its DevTools port: the check reads the page once the WebSocket echo
# has arrived (or 20 s have passed), not at the load event as --dump-dom would. Node's own
# WebSocket client (--experimental-websocket) speaks the DevTools protocol; no npm packages.
cat > "$WORK/cdp.js" <<'JS'
const [port, url, ms] = process.argv.slice(2);
const deadline = Date.now() + Number(ms);
const sleep = (t) => new Promise((r) => setTimeout(r, t));
async function page() {
  while (Date.now() < deadline) {
    try {
      const t = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()).find((t) => t.type === 'page');
      if (t) return t;
    } catch (e) { /* not listening yet */ }
    await sleep(200);
  }
  throw new Error('no DevTools page on port ' + port);
}
(async () => {
  const ws = new WebSocket((await page()).webSocketDebuggerUrl);
  let next = 0; const replies = new Map();
  const call = (method, params) => new Promise((res) => { const id = ++next; replies.set(id, res); ws.send(JSON.stringify({ id, method, params })); });
  ws.onmessage = (e) => { const m = JSON.parse(e.data); if (replies.has(m.id)) { replies.get(m.id)(m); replies.delete(m.id); } };
  await new Promise((res, rej) => { ws.onopen = res; ws.onerror = () => rej(new Error('DevTools WebSocket failed')); });
  await call('Page.navigate', { url });
  let text = '';
  while (Date.now() < deadline) {
    const r = await call('Runtime.evaluate', { expression: "(document.getElementById('out') || {}).textContent || ''", returnByValue: true });
    text = (r.result && r.result.result && r.result.result.value) || '';
    if (text.includes('ws=') || text === 'ws error') break;
    await sleep(200);
  }
  console.log(text);
  process.exit(0);
})().catch((e) => { console.error(String(e)); process.exit(1); });
JS
chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$WORK/chromium" --remote-debugging-port=$DEVTOOLS \
    --host-resolver-rules="MAP app.tunnel.test 127.0.0.1" about:blank > "$WORK/chromium.log" 2>&1 & PIDS+=($!)
DOM=$(timeout 60 node --experimental-websocket --no-warnings "$WORK/cdp.js" $DEVTOOLS "http://app.tunnel.test:$HTTP/" 20000 \
    2>> "$WORK/chromium.log" || true)
check "chromium: assets and a WebSocket through the vhost port" \
    grep -q 'css=true img=true ws=echo: hello from chromium' <<< "$DOM"
[ $FAILED = 0 ] || { echo "--- server log"; tail -20 "$WORK/server.log"; echo "--- client log"; tail -20 "$WORK/client.log";
                     echo "--- page"; echo "$DOM" | tail -5; echo "--- chromium"; tail -5 "$WORK/chromium.log"; }
exit $FAILED
