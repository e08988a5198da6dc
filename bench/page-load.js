// First load of a page in headless Chromium, in real time (no virtual time), over the DevTools
// protocol: [VIEWPORT=WxH] node --experimental-websocket bench/page-load.js DEVTOOLS_PORT URL [SELECTOR_ATTR]
// Chromium must already run with --remote-debugging-port=DEVTOOLS_PORT and a fresh profile (cold
// cache). Prints one JSON line: ms from navigation start to DOMContentLoaded and to load, ms until
// the page set data-SELECTOR_ATTR on <html> (the dashboard's first render with data; "" to skip),
// bytes transferred (encoded, headers included, every request of the page until then), requests,
// console errors or exceptions seen, and the page's scroll width beside the window's (a page
// wider than its window scrolls sideways).
const [port, url, attr = 'first-render-ms'] = process.argv.slice(2);
const fail = (m) => { console.error(m); process.exit(2); };
setTimeout(() => fail('page-load: timed out after 20 s'), 20000).unref();

(async () => {
  const target = await (await fetch(`http://127.0.0.1:${port}/json/new?about:blank`, { method: 'PUT' })).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((ok, ko) => { ws.onopen = ok; ws.onerror = ko; });
  let id = 0; const pending = new Map(); const events = [];
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); } else events.push(msg);
  };
  const send = (method, params = {}) => new Promise((ok) => { const n = ++id; pending.set(n, ok); ws.send(JSON.stringify({ id: n, method, params })); });
  await send('Network.enable'); await send('Runtime.enable'); await send('Page.enable');
  await send('Network.setCacheDisabled', { cacheDisabled: true });
  if (process.env.VIEWPORT) { // WIDTHxHEIGHT: a phone's viewport (a headless window is at least 500 px wide)
    const [width, height] = process.env.VIEWPORT.split('x').map(Number);
    await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: true });
  }
  await send('Page.navigate', { url });
  const evaluate = async (expr) => (await send('Runtime.evaluate', { expression: expr, returnByValue: true })).result?.result?.value;
  let render = null;
  for (let i = 0; i < 400; i++) {
    const v = await evaluate(`[document.readyState, document.documentElement.dataset[${JSON.stringify(attr.replace(/-([a-z])/g, (_, c) => c.toUpperCase()))}] || null]`);
    if (v && v[0] === 'complete' && (attr === '' || v[1] !== null)) { render = v[1] === null ? null : Number(v[1]); break; }
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 100)); // let the last loadingFinished events arrive
  const nav = await evaluate('JSON.stringify(performance.getEntriesByType("navigation")[0])');
  const widths = await evaluate('[document.documentElement.scrollWidth, window.innerWidth]');
  const t = JSON.parse(nav || '{}');
  let bytes = 0, requests = 0; const errors = []; const urls = new Map();
  for (const e of events) {
    if (e.method === 'Network.requestWillBeSent') urls.set(e.params.requestId, e.params.request.url);
    if (e.method === 'Network.loadingFinished' && urls.has(e.params.requestId)) {
      bytes += e.params.encodedDataLength; requests++;
      if (process.env.VERBOSE) console.error(e.params.encodedDataLength, urls.get(e.params.requestId));
    }
    if (e.method === 'Runtime.exceptionThrown') errors.push(e.params.exceptionDetails.text);
    if (e.method === 'Runtime.consoleAPICalled' && e.params.type === 'error') errors.push(JSON.stringify(e.params.args));
    if (e.method === 'Network.loadingFailed' && urls.has(e.params.requestId)) errors.push(urls.get(e.params.requestId) + ': ' + e.params.errorText);
  }
  console.log(JSON.stringify({ domContentLoadedMs: Math.round(t.domContentLoadedEventEnd), loadMs: Math.round(t.loadEventEnd),
    renderMs: render, bytes, requests, errors, scrollWidth: widths[0], innerWidth: widths[1] }));
  ws.close(); process.exit(0);
})().catch((e) => fail('page-load: ' + e));
