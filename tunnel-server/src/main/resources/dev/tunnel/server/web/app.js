'use strict';
// The tunnel dashboard: polls the REST API every 2 s (same origin, so the browser's basic-auth
// credentials go with it). The traffic history is the server's (/api/tunnel/history), so the
// charts are full on open and survive a reload. A proxy's row opens its detail (#proxy=NAME):
// its settings, its last hour per minute and its last 7 days. Sizes are binary (KiB = 1024 B).
(() => {
  const POLL_MS = 2000;
  const HISTORY_EVERY = 5; // polls: the server's history moves in 10 s steps
  const TYPES = (document.documentElement.dataset.types || 'tcp').split(' ');
  const SVG = 'http://www.w3.org/2000/svg';
  let polls = 0;
  let proxiesByName = new Map();

  const $ = id => document.getElementById(id);
  const api = path => fetch(new URL(path, location.origin), {cache: 'no-store'}).then(r => {
    if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
    return r.json();
  });
  const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  const scale = n => {
    let i = 0;
    while (n >= 1024 && i < UNITS.length - 1) { n /= 1024; i++; }
    return [n, i];
  };
  const bytes = n => {
    const [v, i] = scale(n);
    return (i && v < 100 ? +v.toFixed(1) : Math.round(v)) + ' ' + UNITS[i];
  };
  const rate = n => bytes(n) + '/s';
  const ago = epochSeconds => {
    const s = Math.max(0, Date.now() / 1000 - epochSeconds);
    if (s < 90) return Math.round(s) + ' s ago';
    if (s < 5400) return Math.round(s / 60) + ' min ago';
    if (s < 129600) return Math.round(s / 3600) + ' h ago';
    return Math.round(s / 86400) + ' d ago';
  };
  const cell = (row, text, cls) => {
    const td = row.insertCell();
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  };
  const fill = (id, rows, render) => {
    const body = $(id).tBodies[0];
    body.replaceChildren();
    rows.forEach(item => render(body.insertRow(), item));
  };
  const el = (parent, name, attrs, text) => {
    const node = document.createElementNS(SVG, name);
    Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) node.textContent = text;
    parent.appendChild(node);
    return node;
  };
  // the smallest 1-2-5 step in the unit of max (B, KiB, ...) that reaches max: the top grid line
  const niceTop = max => {
    const [v, i] = scale(Math.max(max, 1));
    const pow = Math.pow(10, Math.floor(Math.log10(v)));
    const top = [1, 2, 5, 10].map(m => m * pow).find(t => t >= v);
    return top * Math.pow(1024, i);
  };
  // address: the public port for port-based types, the host names for vhost types
  const address = p => (p.domains && p.domains.length) ? p.domains.join(' ') : (p.remotePort ? String(p.remotePort) : '-');
  // a run id (a UUID) stands for a client without clientID: its first 8 characters tell clients apart
  const shortId = id => /^[0-9a-f]{8}-[0-9a-f-]{27}$/.test(id || '') ? id.slice(0, 8) : (id || '-');
  const owner = p => (p.user ? p.user + ' / ' : '') + shortId(p.clientID);

  // A chart with a y axis in bytes (or bytes/s) and an x axis in minutes before now.
  function chart(svg, series, step, format, bars) {
    const w = Math.max(svg.clientWidth || 600, 200), h = svg.clientHeight || 180;
    const L = 70, R = 10, T = 10, B = 22;
    svg.replaceChildren();
    svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    const n = series[0].values.length;
    const top = niceTop(Math.max(0, ...series.flatMap(s => s.values)));
    // lines: point i at the end of its step, the last at the right edge (now); bars: centred in n slots
    const W = w - L - R;
    const x = bars ? (i => L + W * (i + 0.5) / n) : (i => L + W * (i + 1) / n);
    const y = v => T + (h - T - B) * (1 - v / top);
    [0, 0.5, 1].forEach(f => {
      el(svg, 'line', {x1: L, x2: w - R, y1: y(top * f), y2: y(top * f), class: 'grid'});
      el(svg, 'text', {x: L - 6, y: y(top * f) + 4, 'text-anchor': 'end'}, format(top * f));
    });
    const span = n * step;
    if (bars) {
      for (let i = 0; i < n; i++) {
        const back = n - 1 - i;
        el(svg, 'text', {x: x(i), y: h - 6, 'text-anchor': 'middle'}, back === 0 ? 'today' : '-' + back + ' d');
      }
    } else {
      [1, 0.75, 0.5, 0.25, 0].forEach(f => el(svg, 'text', {x: L + W * (1 - f), y: h - 6,
        'text-anchor': f === 1 ? 'start' : (f === 0 ? 'end' : 'middle')}, f === 0 ? 'now' : '-' + Math.round(f * span / 60) + ' min'));
    }
    if (bars) {
      const width = Math.max(2, (w - L - R) / n / 3);
      series.forEach((s, k) => s.values.forEach((v, i) => el(svg, 'rect', {class: s.cls,
        x: x(i) - width * (1 - k), y: y(v), width: width, height: Math.max(0, y(0) - y(v))})));
    } else {
      series.forEach(s => el(svg, 'polyline', {class: s.cls,
        points: s.values.map((v, i) => x(i).toFixed(1) + ',' + y(v).toFixed(1)).join(' ')}));
    }
    el(svg, 'title', {}, (bars ? 'bytes per day' : 'bytes per second') + ' over ' + Math.round(span / 60) + ' min');
  }

  function showHistory(h) {
    chart($('chart'), [{values: h.in, cls: 'in'}, {values: h.out, cls: 'out'}], h.step, rate);
    // the last point is still filling: the rate shown is the last complete step's
    const last = k => h[k].length > 1 ? h[k][h[k].length - 2] : 0;
    $('rateIn').textContent = rate(last('in'));
    $('rateOut').textContent = rate(last('out'));
    $('peak').textContent = rate(Math.max(0, ...h.in, ...h.out));
  }

  function selected() {
    const m = /^#proxy=(.+)$/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }

  async function showDetail() {
    const name = selected();
    document.querySelectorAll('#proxies tbody tr').forEach(r => r.classList.toggle('selected', r.dataset.name === name));
    const p = name && proxiesByName.get(name);
    if (!p) {
      $('detail').hidden = true;
      return;
    }
    const [hour, days] = await Promise.all([api('/api/tunnel/history/' + encodeURIComponent(name)),
      api('/api/traffic/' + encodeURIComponent(name))]);
    $('detailTitle').textContent = p.name + ' (' + p.type + ', ' + p.status + ')';
    const conf = [['address', address(p)], ['owner', owner(p)], ['connections', p.curConns],
      ['started', p.lastStartTime || '-'], ['closed', p.lastCloseTime || '-']];
    const c = p.conf || {};
    if (c.locations) conf.push(['locations', c.locations.join(' ')]);
    if (c.loadBalancer) conf.push(['group', c.loadBalancer.group]);
    Object.entries(c.metadatas || {}).forEach(([k, v]) => conf.push(['metadatas.' + k, v]));
    const dl = $('detailConf');
    dl.replaceChildren();
    conf.forEach(([k, v]) => {
      dl.appendChild(document.createElement('dt')).textContent = k;
      dl.appendChild(document.createElement('dd')).textContent = v;
    });
    $('detail').hidden = false;
    chart($('detailChart'), [{values: hour.in, cls: 'in'}, {values: hour.out, cls: 'out'}], hour.step, rate);
    // frp lists today first; the chart reads left to right, oldest first
    chart($('detailDays'), [{values: days.trafficIn.slice().reverse(), cls: 'in'},
      {values: days.trafficOut.slice().reverse(), cls: 'out'}], 86400, bytes, true);
  }

  async function refresh() {
    try {
      const traffic = polls++ % HISTORY_EVERY === 0 ? api('/api/tunnel/history') : null;
      // one round of requests, all at once: the page names every proxy type the server has
      const [info, clients, ...byType] = await Promise.all([api('/api/serverinfo'), api('/api/clients'),
        ...TYPES.map(t => api('/api/proxy/' + encodeURIComponent(t)))]);
      const proxies = byType.flatMap(r => r.proxies).sort((a, b) => a.name.localeCompare(b.name));
      proxiesByName = new Map(proxies.map(p => [p.name, p]));
      $('version').textContent = 'v' + info.version + ' · port ' + info.bindPort;
      $('clientCounts').textContent = info.clientCounts;
      $('proxyCounts').textContent = Object.values(info.proxyTypeCount || {}).reduce((a, b) => a + b, 0);
      $('curConns').textContent = info.curConns;
      $('trafficIn').textContent = bytes(info.totalTrafficIn);
      $('trafficOut').textContent = bytes(info.totalTrafficOut);
      fill('proxies', proxies, (row, p) => {
        row.dataset.name = p.name;
        row.onclick = () => { location.hash = 'proxy=' + encodeURIComponent(p.name); };
        cell(row, p.name);
        cell(row, p.type);
        cell(row, address(p));
        cell(row, owner(p), 'wide');
        cell(row, p.status, p.status);
        cell(row, p.curConns, 'num');
        cell(row, bytes(p.todayTrafficIn), 'num');
        cell(row, bytes(p.todayTrafficOut), 'num');
        cell(row, p.lastStartTime, 'wide');
      });
      fill('clients', clients, (row, c) => {
        cell(row, shortId(c.clientID || c.runID)).title = 'run ' + c.runID;
        cell(row, c.user || '-');
        cell(row, c.hostname);
        cell(row, c.clientIP || '', 'wide');
        cell(row, c.version || '', 'wide');
        cell(row, c.rttMillis ? c.rttMillis.toFixed(1) + ' ms' : '-', 'num');
        const metas = cell(row, '', 'wide');
        Object.entries(c.metas || {}).forEach(([k, v]) => {
          const chip = metas.appendChild(document.createElement('span'));
          chip.className = 'meta';
          chip.textContent = k + '=' + v;
        });
        cell(row, c.online ? 'online' : 'offline', c.online ? 'online' : 'offline');
        cell(row, c.online ? ago(c.lastConnectedAt) : 'left ' + ago(c.disconnectedAt), 'wide');
      });
      if (traffic) showHistory(await traffic);
      await showDetail();
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

  document.querySelector('#detail .close').onclick = e => {
    e.preventDefault();
    history.replaceState(null, '', location.pathname);
    showDetail();
  };
  window.addEventListener('hashchange', () => showDetail().then(() => {
    if (!$('detail').hidden) $('detail').scrollIntoView({behavior: 'smooth', block: 'start'});
  }).catch(() => {}));
  refresh();
  setInterval(refresh, POLL_MS);
})();
