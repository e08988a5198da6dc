'use strict';
// The tunnel dashboard: polls the REST API every 2 s (same origin, so the browser's basic-auth
// credentials go with it) and draws the traffic of the last 5 minutes as an SVG line chart.
(() => {
  const POLL_MS = 2000;
  const POINTS = 150;
  const TYPES = (document.documentElement.dataset.types || 'tcp').split(' ');
  const samples = [];
  let last = null;

  const $ = id => document.getElementById(id);
  const api = path => fetch(new URL(path, location.origin), {cache: 'no-store'}).then(r => {
    if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
    return r.json();
  });
  const bytes = n => {
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : Math.round(n)) + ' ' + units[i];
  };
  const cell = (row, text, cls) => {
    const td = row.insertCell();
    td.textContent = text;
    if (cls) td.className = cls;
  };
  const fill = (id, rows, render) => {
    const body = $(id).tBodies[0];
    body.replaceChildren();
    rows.forEach(item => render(body.insertRow(), item));
  };

  function chart(info) {
    const now = Date.now();
    if (last) {
      const secs = (now - last.at) / 1000;
      samples.push({
        in: Math.max(0, info.totalTrafficIn - last.in) / secs,
        out: Math.max(0, info.totalTrafficOut - last.out) / secs
      });
      if (samples.length > POINTS) samples.shift();
    }
    last = {at: now, in: info.totalTrafficIn, out: info.totalTrafficOut};
    const peak = Math.max(1, ...samples.map(s => Math.max(s.in, s.out)));
    const line = key => samples.map((s, i) =>
      (600 * (i + POINTS - samples.length) / (POINTS - 1)).toFixed(1) + ',' + (158 - 150 * s[key] / peak).toFixed(1)).join(' ');
    $('lineIn').setAttribute('points', line('in'));
    $('lineOut').setAttribute('points', line('out'));
    const latest = samples[samples.length - 1] || {in: 0, out: 0};
    $('rateIn').textContent = bytes(latest.in) + '/s';
    $('rateOut').textContent = bytes(latest.out) + '/s';
    $('peak').textContent = bytes(peak === 1 ? 0 : peak) + '/s';
  }

  async function refresh() {
    try {
      // one round of requests, all at once: the page names every proxy type the server has
      const [info, clients, ...byType] = await Promise.all([api('/api/serverinfo'), api('/api/clients'),
        ...TYPES.map(t => api('/api/proxy/' + encodeURIComponent(t)))]);
      const proxies = byType.flatMap(r => r.proxies).sort((a, b) => a.name.localeCompare(b.name));
      $('version').textContent = 'v' + info.version + ' · port ' + info.bindPort;
      $('clientCounts').textContent = info.clientCounts;
      $('proxyCounts').textContent = Object.values(info.proxyTypeCount || {}).reduce((a, b) => a + b, 0);
      $('curConns').textContent = info.curConns;
      $('trafficIn').textContent = bytes(info.totalTrafficIn);
      $('trafficOut').textContent = bytes(info.totalTrafficOut);
      chart(info);
      fill('clients', clients, (row, c) => {
        cell(row, c.runID.slice(0, 8));
        cell(row, c.user || '-');
        cell(row, c.hostname);
        cell(row, c.clientIP || '');
        cell(row, c.version || '');
        cell(row, c.rttMillis ? c.rttMillis.toFixed(1) + ' ms' : '-');
        cell(row, c.online ? 'online' : 'offline', c.online ? 'online' : 'offline');
      });
      fill('proxies', proxies, (row, p) => {
        cell(row, p.name);
        cell(row, p.conf ? p.conf.type : '');
        cell(row, p.conf ? p.conf.remotePort : '');
        cell(row, p.status, p.status);
        cell(row, p.curConns);
        cell(row, bytes(p.todayTrafficIn));
        cell(row, bytes(p.todayTrafficOut));
        cell(row, p.lastStartTime);
      });
      $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
      if (!document.documentElement.dataset.firstRenderMs) {
        // when the first data was on screen, for bench/web-clients.sh
        document.documentElement.dataset.firstRenderMs = Math.round(performance.now());
      }
      $('error').hidden = true;
    } catch (e) {
      $('error').textContent = 'cannot reach the API: ' + e.message;
      $('error').hidden = false;
    }
  }

  refresh();
  setInterval(refresh, POLL_MS);
})();
