// logsift dashboard, served as /ui/app.js. Plain ES2020, no framework, no build step.
//
// Talks to the JSON API of the server that served the page (same origin):
//   GET  /clusters?q=&sort=rate&window=5m&limit=50   top clusters (q only while searching)
//   GET  /clusters/{id}                               template, counts, example lines + labels
//   GET  /clusters/{id}/series?window=1m|5m|1h        counts per bucket; 404 = no recent counts
//   GET  /subscriptions                               webhook subscriptions
//   GET  /alerts?status=pending|failed&limit=50       the outbox
//   POST /alerts/{id}/retry                           re-queue a dead-lettered alert (202; 409 if not failed)
//   GET  /info, GET /metrics                          versions; lines/s from logsift_lines_total
// Every request carries `Authorization: Bearer <token>` once the operator's token has been
// entered (kept in sessionStorage); a 401 shows the token form. No request throws: failures
// end up in the status line and in the section they belong to.
'use strict';

(() => {
  const REFRESH_MS = 5000;
  const NEW_MS = 10 * 60 * 1000; // a cluster first seen this recently is marked NEW
  const SEARCH_DEBOUNCE_MS = 300;
  const CLUSTER_LIMIT = 50;
  const TOKEN_KEY = 'logsift.token';
  const WINDOWS = { '1m': 60, '5m': 300, '1h': 3600 };

  const $ = (id) => document.getElementById(id);
  const numberFmt = new Intl.NumberFormat();

  const state = {
    selected: null, // cluster id shown in the detail panel
    suggestions: [], // the last GET /clusters/suggestions
    query: '', // search text, sent as ?q=
    chartWindow: '1h',
    chart: null, // the Chart.js instance, created on first use
    chartPoints: [],
    noSeries: null, // {key: "id window last_seen", at} of the last series that answered 404
    lines: null, // last logsift_lines_total sample {value, at}
    infoLoaded: false,
    authNeeded: false,
    timer: 0,
    refreshing: null, // the running refresh (a promise), so refreshes never overlap
    refreshAgain: false,
    seq: { clusters: 0, detail: 0, alerts: 0 }, // drop answers that arrive after a newer request
    errors: new Map(), // source -> message, shown in the status line until that source succeeds
    flash: null, // {text, kind, until}
  };

  // ---------- small helpers ----------

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k === 'text') node.textContent = v;
      else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'role' || k === 'title' ||
               k === 'type' || k === 'datetime' || k === 'tabindex') node.setAttribute(k, v === true ? '' : String(v));
      else node[k] = v;
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  // A template with every <*> wrapped in <mark class="var">. Text only, never HTML.
  function templateNodes(template) {
    const frag = document.createDocumentFragment();
    const parts = String(template ?? '').split('<*>');
    parts.forEach((part, i) => {
      if (part) frag.append(part);
      if (i < parts.length - 1) frag.append(el('mark', { class: 'var', title: 'variable' }, '<*>'));
    });
    return frag;
  }

  function parseTime(iso) {
    const t = Date.parse(iso);
    return Number.isFinite(t) ? t : null;
  }

  function relative(ms) {
    const d = Date.now() - ms;
    if (d < 5000) return 'just now';
    if (d < 60e3) return `${Math.round(d / 1e3)} s ago`;
    if (d < 3600e3) return `${Math.round(d / 60e3)} min ago`;
    if (d < 86400e3) return `${Math.round(d / 3600e3)} h ago`;
    return new Date(ms).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
  }

  function fullTime(ms) {
    return new Date(ms).toLocaleString(undefined, {
      year: 'numeric', month: 'short', day: 'numeric',
      hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
    });
  }

  // <time> showing "3 min ago" (or "in 5 s" for future times), the exact time as its tooltip.
  function timeNode(iso) {
    const ms = parseTime(iso);
    if (ms === null) return document.createTextNode('—');
    let text = relative(ms);
    if (ms - Date.now() > 1000) text = `in ${Math.max(1, Math.round((ms - Date.now()) / 1000))} s`;
    return el('time', { datetime: iso, title: fullTime(ms) }, text);
  }

  function fmtCount(n) {
    return typeof n === 'number' && Number.isFinite(n) ? numberFmt.format(n) : '—';
  }

  function fmtDurationMs(ms) {
    if (typeof ms !== 'number') return String(ms);
    if (ms % 3600000 === 0) return `${ms / 3600000}h`;
    if (ms % 60000 === 0) return `${ms / 60000}m`;
    if (ms % 1000 === 0) return `${ms / 1000}s`;
    return `${ms}ms`;
  }

  function show(node, visible) {
    node.hidden = !visible;
  }

  // Re-rendering a table must not steal keyboard focus: remember the focused control's
  // data-focus-key and focus its replacement afterwards.
  function keepFocus(container, render) {
    const active = document.activeElement;
    const key = active && container.contains(active) ? active.getAttribute('data-focus-key') : null;
    render();
    if (key) {
      const again = container.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
      if (again) again.focus({ preventScroll: true });
    }
  }

  // ---------- token (sessionStorage may be unavailable: then the token lives in memory) ----------

  let memoryToken = null;
  function getToken() {
    try { return sessionStorage.getItem(TOKEN_KEY) || memoryToken; } catch { return memoryToken; }
  }
  function setToken(token) {
    memoryToken = token || null;
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch { /* memoryToken still holds it */ }
    show($('forget-token'), Boolean(token));
  }

  // ---------- status line ----------

  function setError(source, message) {
    if (state.authNeeded && source !== 'auth') return; // the token form says it all
    state.errors.set(source, message);
    renderStatus();
  }
  function clearError(source) {
    if (state.errors.delete(source)) renderStatus();
  }
  function flash(text, kind = 'ok', ms = 6000) {
    state.flash = { text, kind, until: Date.now() + ms };
    renderStatus();
    setTimeout(renderStatus, ms + 50);
  }
  function renderStatus() {
    const line = $('status');
    let text = '';
    let kind = '';
    if (state.flash && state.flash.until > Date.now()) {
      ({ text, kind } = state.flash);
    } else if (state.errors.size) {
      const all = [...state.errors.values()];
      text = all[0] + (all.length > 1 ? ` (+${all.length - 1} more)` : '');
      kind = 'error';
    }
    if (line.textContent !== text) line.textContent = text;
    line.className = `status-line ${kind}`;
    line.title = state.errors.size ? [...state.errors.values()].join('\n') : '';
  }

  // ---------- the one place that talks to the server ----------

  // Resolves to {ok, status, data, text, error}; never rejects.
  async function api(path, { method = 'GET', body, text = false } = {}) {
    const headers = { Accept: text ? 'text/plain' : 'application/json' };
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, {
        method, headers, cache: 'no-store', credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      return { ok: false, status: 0, data: null, text: '', error: `cannot reach logsift (${method} ${path}): ${e.message || e}` };
    }
    let raw = '';
    try { raw = await res.text(); } catch { /* body lost: treated as empty */ }
    let data = null;
    if (!text && raw) {
      try { data = JSON.parse(raw); } catch { data = null; }
    }
    if (res.status === 401) needAuth(data && data.error);
    if (!res.ok) {
      const why = data && typeof data.error === 'string' ? data.error : res.statusText;
      return { ok: false, status: res.status, data, text: raw, error: `${method} ${path.split('?')[0]}: ${res.status} ${why}`.trim() };
    }
    if (!text && (data === null || typeof data !== 'object')) {
      return { ok: false, status: res.status, data: null, text: raw, error: `${method} ${path.split('?')[0]}: answer is not JSON` };
    }
    return { ok: true, status: res.status, data, text: raw, error: null };
  }

  // ---------- authentication ----------

  function needAuth(message) {
    const first = !state.authNeeded;
    state.authNeeded = true;
    clearTimeout(state.timer);
    const hadToken = Boolean(getToken());
    $('auth-message').textContent = hadToken
      ? `The token was not accepted${message ? `: ${String(message).replace(/\.$/, '')}.` : '.'} Enter it again.`
      : 'This logsift requires a bearer token. It is kept in this browser tab only (sessionStorage).';
    show($('auth'), true);
    state.errors.clear();
    setError('auth', 'Authentication required: enter the API token.');
    if (first) $('auth-token').focus();
  }

  function onAuthSubmit(event) {
    event.preventDefault();
    const input = $('auth-token');
    const token = input.value.trim();
    if (!token) return;
    setToken(token);
    input.value = '';
    state.authNeeded = false;
    show($('auth'), false);
    clearError('auth');
    refreshAll();
  }

  function onForgetToken() {
    setToken(null);
    flash('Token forgotten.');
    refreshAll();
  }

  // ---------- header: /info and lines/s from /metrics ----------

  async function loadInfo() {
    if (state.infoLoaded) return;
    const r = await api('/info');
    if (!r.ok) { $('info').textContent = 'service info unavailable'; setError('info', r.error); return; }
    clearError('info');
    state.infoLoaded = true;
    const i = r.data;
    const parts = [];
    if (i.encoder) parts.push(`encoder ${i.encoder.version ?? '?'}${i.encoder.dim ? ` (${i.encoder.dim}d)` : ''}`);
    if (i.denoiser) parts.push(`denoiser ${i.denoiser.version ?? '?'}`);
    if (i.lsh) parts.push(`LSH ${i.lsh.bits ?? '?'} bits, seed ${i.lsh.seed ?? '?'}`);
    $('info').textContent = parts.join(' · ') || 'service info: none reported';
  }

  // Sum of every sample of a counter (with or without labels) in Prometheus text format.
  function promCounter(textBody, name) {
    let sum = null;
    for (const line of textBody.split('\n')) {
      if (!line.startsWith(name)) continue;
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
      if (!m || m[1] !== name) continue;
      const v = Number(m[3]);
      if (Number.isFinite(v)) sum = (sum ?? 0) + v;
    }
    return sum;
  }

  async function loadMetrics() {
    const r = await api('/metrics', { text: true });
    if (!r.ok) { $('rate').textContent = '—'; setError('metrics', r.error); return; }
    clearError('metrics');
    const value = promCounter(r.text, 'logsift_lines_total');
    const at = performance.now();
    const prev = state.lines;
    state.lines = value === null ? null : { value, at };
    const out = $('rate');
    if (value === null || !prev || value < prev.value || at - prev.at < 500) {
      out.textContent = '—';
      out.title = 'needs two samples of logsift_lines_total';
      return;
    }
    const rate = (value - prev.value) / ((at - prev.at) / 1000);
    out.textContent = rate >= 10 ? numberFmt.format(Math.round(rate)) : rate.toFixed(1);
    out.title = `logsift_lines_total = ${numberFmt.format(value)}`;
  }

  // ---------- clusters table ----------

  async function loadClusters() {
    const seq = ++state.seq.clusters;
    const q = state.query;
    const params = new URLSearchParams();
    if (q) params.set('q', q);
    params.set('sort', 'rate');
    params.set('window', '5m');
    params.set('limit', String(CLUSTER_LIMIT));
    const r = await api(`/clusters?${params}`);
    const reachable = ![0, 502, 503, 504].includes(r.status);
    if (seq !== state.seq.clusters) return reachable; // a newer search went out meanwhile
    if (!r.ok) { setError('clusters', r.error); return reachable; }
    clearError('clusters');
    let list = Array.isArray(r.data.clusters) ? r.data.clusters : [];
    const notes = [];
    const ranked = r.data.sort === 'rate' || list.some((c) => 'window_count' in c);
    if (!ranked) notes.push('Ranked by total count: this server does not rank by rate yet.');
    if (q && r.data.q === undefined) {
      // The server ignored ?q=: filter what came back so the box still does what it says.
      const needle = q.toLowerCase();
      list = list.filter((c) => String(c.template ?? '').toLowerCase().includes(needle) ||
                                String(c.cluster_id ?? '') === needle);
      notes.push(`Filtered in the browser among the top ${CLUSTER_LIMIT}: this server does not search yet.`);
    }
    if (typeof r.data.total === 'number' && r.data.total > list.length && !q) {
      notes.push(`Showing ${list.length} of ${numberFmt.format(r.data.total)} clusters.`);
    }
    $('clusters-note').textContent = notes.join(' ');
    renderClusters(list);
    return true;
  }

  function renderClusters(list) {
    const body = $('clusters-body');
    // Do not rebuild under a text selection the user is making in the table.
    const sel = window.getSelection();
    if (sel && !sel.isCollapsed && body.contains(sel.anchorNode)) return;
    const now = Date.now();
    keepFocus(body, () => {
      const rows = list.map((c) => {
        const id = String(c.cluster_id ?? '');
        const first = parseTime(c.first_seen);
        const isNew = first !== null && now - first < NEW_MS;
        const selected = id === state.selected;
        const button = el('button', {
          type: 'button', class: 'tpl-button', 'data-focus-key': id,
          'aria-current': selected ? 'true' : null,
          title: `cluster ${id}`,
        }, isNew ? el('span', { class: 'badge new', title: 'first seen in the last 10 minutes' }, 'NEW') : null,
        isNew ? ' ' : null,
        c.merged_into ? el('span', { class: 'badge merged', title: `merged into ${c.merged_into}: its lines go there` }, 'MERGED') : null,
        c.merged_into ? ' ' : null,
        c.muted ? el('span', { class: 'badge muted', title: 'its alerts are muted' }, 'MUTED') : null,
        c.muted ? ' ' : null,
        c.name ? el('span', { class: 'badge name', title: c.note || 'named' }, c.name) : null,
        c.name ? ' ' : null, templateNodes(c.template));
        const windowCount = c.window_count ?? c.count_in_window;
        return el('tr', { class: [isNew ? 'is-new' : '', selected ? 'selected' : ''].join(' ').trim(), 'data-cluster-id': id },
          el('td', { class: 'tpl-cell' }, button),
          el('td', { class: 'num' }, fmtCount(windowCount)),
          el('td', { class: 'num' }, fmtCount(c.count)),
          el('td', { class: 'time' }, timeNode(c.first_seen)),
          el('td', { class: 'time' }, timeNode(c.last_seen)));
      });
      body.replaceChildren(...rows);
    });
    show($('clusters-empty'), list.length === 0);
    show(body.closest('.table-wrap'), list.length > 0);
    $('clusters-empty').textContent = state.query ? `No cluster template matches “${state.query}”.` : 'No clusters yet.';
  }

  function onClusterClick(event) {
    const row = event.target.closest('tr[data-cluster-id]');
    if (!row) return;
    // Let the user select template text with the mouse without changing the selection.
    const sel = window.getSelection();
    if (sel && !sel.isCollapsed && row.contains(sel.anchorNode)) return;
    selectCluster(row.getAttribute('data-cluster-id'));
  }

  function selectCluster(id, { load = true } = {}) {
    if (!/^[0-9a-f]{16}$/i.test(id || '')) return;
    const changed = id !== state.selected;
    state.selected = id;
    for (const row of $('clusters-body').rows) {
      const on = row.getAttribute('data-cluster-id') === id;
      row.classList.toggle('selected', on);
      const b = row.querySelector('.tpl-button');
      if (b) { if (on) b.setAttribute('aria-current', 'true'); else b.removeAttribute('aria-current'); }
    }
    try { history.replaceState(null, '', `#cluster=${id}`); } catch { /* e.g. sandboxed: selection still works */ }
    if (changed) {
      $('detail-heading').textContent = `Cluster ${id}`;
      show($('detail-empty'), true);
      $('detail-empty').textContent = 'Loading…';
      show($('detail-body'), false);
    }
    if (!load) return;
    if (window.matchMedia('(max-width: 1000px)').matches) $('detail').scrollIntoView({ block: 'start' });
    loadDetail();
  }

  // ---------- detail panel ----------

  async function loadDetail() {
    const id = state.selected;
    if (!id) return;
    const seq = ++state.seq.detail;
    const win = state.chartWindow;
    const r = await api(`/clusters/${encodeURIComponent(id)}`);
    if (seq !== state.seq.detail) return;
    if (!r.ok) {
      if (r.status === 404) {
        clearError('detail');
        $('detail-empty').textContent = `Cluster ${id} is not in the catalog.`;
        show($('detail-empty'), true);
        show($('detail-body'), false);
      } else {
        setError('detail', r.error);
      }
      return;
    }
    clearError('detail');
    renderDetail(r.data);

    // The series only covers the last window: skip the request (and its 404) when the
    // cluster was last seen well before it.
    // A 404 ("no recent counts") is not asked again for a minute unless the cluster sees new lines.
    const last = parseTime(r.data.last_seen);
    const span = WINDOWS[win] * 1000;
    const key = `${id} ${win} ${r.data.last_seen}`;
    if ((last !== null && Date.now() - last > span + Math.max(60e3, span)) ||
        (state.noSeries && state.noSeries.key === key && Date.now() - state.noSeries.at < 60e3)) {
      renderSeries(null, win);
      return;
    }
    const s = await api(`/clusters/${encodeURIComponent(id)}/series?window=${win}`);
    if (seq !== state.seq.detail) return;
    if (!s.ok) {
      if (s.status === 404) { clearError('series'); state.noSeries = { key, at: Date.now() }; renderSeries(null, win); }
      else { setError('series', s.error); setChartState('error'); }
      return;
    }
    state.noSeries = null;
    clearError('series');
    renderSeries(s.data, win);
  }

  function renderDetail(c) {
    show($('detail-empty'), false);
    show($('detail-body'), true);
    $('detail-heading').textContent = `Cluster ${c.cluster_id}`;
    $('detail-template').replaceChildren(templateNodes(c.template));
    const first = parseTime(c.first_seen);
    const facts = [
      ['cluster id', el('code', {}, c.cluster_id ?? '—')],
      ['template id', el('code', {}, c.template_id ?? '—')],
      ['total count', fmtCount(c.count)],
      ['first seen', first !== null ? el('span', {}, timeNode(c.first_seen), ` · ${fullTime(first)}`) : '—'],
      ['last seen', timeNode(c.last_seen)],
    ];
    if (c.name) facts.unshift(['name', el('strong', {}, c.name), ]);
    if (c.note) facts.push(['note', c.note]);
    if (c.muted) facts.push(['alerts', c.muted_until ? el('span', {}, 'muted until ', timeNode(c.muted_until)) : 'muted for good']);
    if (c.merged_from) facts.push(['merged', `${c.merged_from.cluster_id} joined this cluster`]);
    if (Array.isArray(c.merged) && c.merged.length) facts.push(['merged in', c.merged.join(', ')]);
    if (c.split) facts.push(['split', `by the values of word ${c.split.position} (action ${c.split.action})`]);
    if (c.metric) facts.push(['metric', el('code', {}, `logsift_cluster_lines_total{cluster_id="${c.cluster_id}"}`)]);
    $('detail-facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
    // The template's words, each a button: a word is a value; a value's
    // values are constants (the cluster splits by them).
    $('curate-words').replaceChildren(...String(c.template ?? '').split(' ').filter((w) => w.length > 0).map((w, i) =>
      w.includes('<*>')
        ? el('button', { type: 'button', class: 'word value', 'data-position': String(i), 'data-split': '1',
          title: `split this cluster by the values of “${w}” (they are constants)` }, w)
        : el('button', { type: 'button', class: 'word', 'data-position': String(i), title: `mark “${w}” as a value` }, w)));
    // The fix-this-cluster form starts from what the cluster has (unless the user is typing in it).
    if (!$('curate').contains(document.activeElement)) {
      $('curate-name').value = c.name ?? '';
      $('curate-note').value = c.note ?? '';
      $('curate-metric').checked = Boolean(c.metric);
    }

    const examples = Array.isArray(c.examples) ? c.examples : [];
    const items = examples.map((e) => {
      const labels = e.labels && typeof e.labels === 'object' ? Object.entries(e.labels) : [];
      return el('li', {},
        el('code', {}, e.text ?? ''),
        el('div', { class: 'labels' },
          ...labels.map(([k, v]) => el('span', { class: 'label' }, `${k}=${v}`)),
          labels.length ? null : el('span', { class: 'note' }, 'no labels'),
          e.seen ? el('span', { class: 'seen' }, 'seen ', timeNode(e.seen)) : null));
    });
    if (!items.length) items.push(el('li', { class: 'empty' }, 'No example lines kept.'));
    $('detail-examples').replaceChildren(...items);
  }

  // ---------- fixing clusters (POST /clusters/{id}/merge, /name, /mute) ----------

  async function curate(action, body, done) {
    const id = state.selected;
    if (!id) return;
    const r = await api(`/clusters/${encodeURIComponent(id)}/${action}`, { method: 'POST', body });
    if (!r.ok) { flash(r.error, 'error'); return; }
    flash(`${done} (action ${r.data.seq}; undo: POST /curation/${r.data.seq}/undo)`);
    await Promise.all([loadClusters(), loadDetail()]);
  }

  function onCurateName() {
    const name = $('curate-name').value.trim();
    if (!name) { flash('Give the cluster a name first.', 'error'); return; }
    return curate('name', { name, note: $('curate-note').value, metric: $('curate-metric').checked }, `Named it “${name}”`);
  }

  function onCurateMerge() {
    const into = $('curate-into').value.trim().toLowerCase();
    if (!/^[0-9a-f]{16}$/.test(into)) { flash('Merge into: give a cluster id (16 hex digits).', 'error'); return; }
    return curate('merge', { into }, `Merged into ${into}`);
  }

  function onCurateWord(event) {
    const b = event.target.closest('button[data-position]');
    if (!b) return;
    const position = Number(b.getAttribute('data-position'));
    if (b.hasAttribute('data-split')) return curate('split', { position }, `Split by the values of word ${position}`);
    return curate('value', { position }, `“${b.textContent}” is a value now`);
  }

  function onCurateMute() {
    const span = $('curate-mute-for').value;
    return curate('mute', span ? { for: span } : {}, span ? `Muted for ${span}` : 'Muted for good');
  }

  async function loadSuggestions() {
    const r = await api('/clusters/suggestions');
    if (!r.ok) { flash(r.error, 'error'); return; }
    state.suggestions = Array.isArray(r.data.suggestions) ? r.data.suggestions : [];
    const items = state.suggestions.map((s) => {
      const values = (s.slots || []).map((slot) =>
        `${(slot.examples || []).join(', ')}${slot.values > (slot.examples || []).length ? ` … (${slot.values} values)` : ''}`);
      return el('li', { 'data-suggestion-id': s.id },
        el('pre', { class: 'template' }, templateNodes(s.template)),
        el('p', { class: 'note' }, `${s.clusters.length} clusters, ${fmtCount(s.lines)} lines; into ${s.into}`,
          values.length ? `; values: ${values.join(' | ')}` : ''),
        el('ul', { class: 'members' }, ...s.clusters.map((c) =>
          el('li', {}, el('code', {}, c.cluster_id), ` ${fmtCount(c.count)} · `, templateNodes(c.template)))),
        el('button', { type: 'button', 'data-accept': '' }, 'Accept'), ' ',
        el('button', { type: 'button', 'data-reject': '' }, 'Reject'));
    });
    $('suggestions-list').replaceChildren(...items);
    show($('suggestions-empty'), items.length === 0);
  }

  async function onSuggestionsClick(event) {
    const button = event.target.closest('button[data-accept], button[data-reject]');
    if (!button) return;
    const id = button.closest('li[data-suggestion-id]').getAttribute('data-suggestion-id');
    const s = state.suggestions.find((x) => x.id === id);
    if (!s) return;
    const accept = button.hasAttribute('data-accept');
    const body = accept ? { into: s.into, members: s.clusters.map((c) => c.cluster_id).filter((c) => c !== s.into) } : undefined;
    const r = await api(`/clusters/suggestions/${encodeURIComponent(id)}/${accept ? 'accept' : 'reject'}`, { method: 'POST', body });
    if (!r.ok) { flash(r.error, 'error'); return; }
    flash(accept ? `Merged ${s.clusters.length} clusters into ${s.into} (action ${r.data.seq})` : 'Suggestion rejected');
    await Promise.all([loadSuggestions(), loadClusters()]);
  }

  function setChartState(s, total) {
    const box = $('chart').parentElement;
    box.setAttribute('data-state', s);
    if (total !== undefined) box.setAttribute('data-total', String(total));
    else box.removeAttribute('data-total');
  }

  function chartColors() {
    const css = getComputedStyle(document.documentElement);
    const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
    return { bar: v('--chart-bar', '#3b7ddd'), grid: v('--chart-grid', 'rgba(128,128,128,.2)'), text: v('--chart-text', '#777') };
  }

  function bucketLabel(ms, bucketSeconds) {
    const opts = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
    if (bucketSeconds < 60) opts.second = '2-digit';
    return new Date(ms).toLocaleTimeString(undefined, opts);
  }

  function renderSeries(series, win) {
    const summary = $('chart-summary');
    const points = series && Array.isArray(series.points) ? series.points : [];
    const total = series ? (series.total ?? points.reduce((a, p) => a + (p.count || 0), 0)) : 0;
    if (!series || points.length === 0) {
      show($('chart-empty'), true);
      $('chart-empty').textContent = `No recent counts in the last ${win}.`;
      summary.textContent = '';
      if (state.chart) { state.chart.data.labels = []; state.chart.data.datasets[0].data = []; state.chart.update('none'); }
      setChartState('empty', 0);
      return;
    }
    show($('chart-empty'), false);
    const bucket = series.bucket_seconds || Math.max(1, Math.round((series.window_seconds || WINDOWS[win]) / points.length));
    const times = points.map((p) => parseTime(p.t) ?? 0);
    const labels = times.map((t) => bucketLabel(t, bucket));
    const counts = points.map((p) => (typeof p.count === 'number' ? p.count : 0));
    state.chartPoints = times;
    let peak = 0;
    counts.forEach((n, i) => { if (n > counts[peak]) peak = i; });
    summary.textContent = `${fmtCount(total)} line${total === 1 ? '' : 's'} in the last ${win}, ${points.length} buckets of ${fmtDurationMs(bucket * 1000)}` +
      (counts[peak] > 0 ? `; peak ${fmtCount(counts[peak])} at ${labels[peak]}.` : '.');

    if (typeof window.Chart !== 'function') {
      setError('chart', 'Chart.js (/ui/chart.js) did not load: counts are shown as text only.');
      setChartState('error', total);
      return;
    }
    clearError('chart');
    try {
      if (!state.chart) state.chart = makeChart(labels, counts);
      else {
        state.chart.data.labels = labels;
        state.chart.data.datasets[0].data = counts;
        applyChartColors();
        state.chart.update('none');
      }
      setChartState('ready', total);
    } catch (e) {
      setError('chart', `chart failed: ${e.message || e}`);
      setChartState('error', total);
    }
  }

  function makeChart(labels, counts) {
    const c = chartColors();
    return new window.Chart($('chart'), {
      type: 'bar',
      data: {
        labels,
        datasets: [{ label: 'lines', data: counts, backgroundColor: c.bar, borderWidth: 0, categoryPercentage: 0.9, barPercentage: 1.0 }],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: (items) => {
                const t = items.length ? state.chartPoints[items[0].dataIndex] : null;
                return t ? fullTime(t) : '';
              },
            },
          },
        },
        scales: {
          x: { grid: { display: false }, ticks: { color: c.text, autoSkip: true, maxTicksLimit: 8, maxRotation: 0 } },
          y: { beginAtZero: true, grid: { color: c.grid }, ticks: { color: c.text, precision: 0 } },
        },
      },
    });
  }

  // Colours follow the page's custom properties (light or dark scheme).
  function applyChartColors() {
    const c = chartColors();
    const o = state.chart.options;
    state.chart.data.datasets[0].backgroundColor = c.bar;
    o.scales.x.ticks.color = c.text;
    o.scales.y.ticks.color = c.text;
    o.scales.y.grid.color = c.grid;
  }

  function recolorChart() {
    if (!state.chart) return;
    applyChartColors();
    state.chart.update('none');
  }

  function onWindowSwitch(event) {
    const b = event.target.closest('button[data-window]');
    if (!b) return;
    state.chartWindow = b.getAttribute('data-window');
    for (const other of $('window-switcher').querySelectorAll('button')) {
      other.setAttribute('aria-pressed', String(other === b));
    }
    loadDetail();
  }

  // ---------- alert outbox ----------

  async function loadAlerts() {
    const seq = ++state.seq.alerts;
    const [failed, pending] = await Promise.all([
      api('/alerts?status=failed&limit=50'),
      api('/alerts?status=pending&limit=50'),
    ]);
    if (seq !== state.seq.alerts) return;
    const totals = {};
    for (const [name, r] of [['failed', failed], ['pending', pending]]) {
      if (!r.ok) { setError(`alerts-${name}`, r.error); continue; }
      clearError(`alerts-${name}`);
      const list = Array.isArray(r.data.alerts) ? r.data.alerts : [];
      totals[name] = typeof r.data.total === 'number' ? r.data.total : list.length;
      renderAlerts(name, list, totals[name]);
    }
    const kpi = $('alerts-kpi');
    if (totals.failed === undefined || totals.pending === undefined) {
      kpi.textContent = '—';
      kpi.classList.remove('bad');
    } else {
      kpi.textContent = `${fmtCount(totals.failed)} failed · ${fmtCount(totals.pending)} pending`;
      kpi.classList.toggle('bad', totals.failed > 0);
    }
  }

  function renderAlerts(name, list, total) {
    const body = $(`${name}-body`);
    keepFocus(body, () => {
      body.replaceChildren(...list.map((a) => alertRow(name, a)));
    });
    $(`${name}-total`).textContent = `(${fmtCount(total)})`;
    show($(`${name}-empty`), list.length === 0);
    show(body.closest('.table-wrap'), list.length > 0);
  }

  function alertRow(name, a) {
    const p = a.alert && typeof a.alert === 'object' ? a.alert : {};
    const kind = p.kind ?? p.rule ?? 'alert';
    const cid = p.cluster_id ? String(p.cluster_id) : '';
    const clusterCell = el('td', { class: 'alert-cluster' },
      p.template !== undefined ? el('div', { class: 'tpl' }, templateNodes(p.template)) : null,
      cid ? el('button', {
        type: 'button', class: 'quiet cid', 'data-select-cluster': cid, 'data-focus-key': `sel-${name}-${a.id}`,
        title: 'show this cluster',
      }, cid) : null);
    const errorText = [a.last_status ? `HTTP ${a.last_status}` : '', a.last_error || ''].filter(Boolean).join(': ');
    const cells = [
      el('td', { class: 'alert-title' },
        el('span', { class: `badge ${name === 'failed' ? 'failed' : 'state'}` }, kind),
        p.state ? el('span', { class: 'note' }, p.state) : null,
        el('div', { class: 'cid', title: `subscription ${a.subscription_id ?? '?'}` }, a.id ?? '')),
      clusterCell,
      el('td', { class: 'num' }, fmtCount(a.attempts)),
      el('td', { class: 'err-text' }, errorText || '—'),
    ];
    if (name === 'failed') {
      cells.push(el('td', { class: 'time' }, timeNode(a.updated_at)));
      cells.push(el('td', {}, el('button', {
        type: 'button', class: 'primary', 'data-retry': a.id, 'data-focus-key': `retry-${a.id}`,
        'aria-label': `Retry alert ${a.id}`,
      }, 'Retry')));
    } else {
      cells.push(el('td', { class: 'time' }, a.next_attempt_at ? timeNode(a.next_attempt_at) : '—'));
    }
    return el('tr', { 'data-alert-id': a.id, 'data-status': a.status ?? name }, ...cells);
  }

  async function onAlertsClick(event) {
    const pick = event.target.closest('button[data-select-cluster]');
    if (pick) { selectCluster(pick.getAttribute('data-select-cluster')); return; }
    const b = event.target.closest('button[data-retry]');
    if (!b) return;
    const id = b.getAttribute('data-retry');
    b.disabled = true;
    b.textContent = 'Retrying…';
    const r = await api(`/alerts/${encodeURIComponent(id)}/retry`, { method: 'POST' });
    if (r.ok) flash(`Alert ${id} re-queued for delivery.`);
    else if (r.status === 409) flash((r.data && r.data.error) || `Alert ${id} is no longer failed.`, 'error');
    else if (r.status !== 401) flash(r.error, 'error', 10000);
    const hadFocus = document.activeElement === b;
    await loadAlerts();
    if (hadFocus && !document.body.contains(b)) $('failed-heading').focus({ preventScroll: true });
  }

  // ---------- subscriptions ----------

  function ruleText(r) {
    if (typeof r === 'string') return r;
    if (!r || typeof r !== 'object') return String(r);
    const bits = [r.kind ?? 'rule'];
    if (r.kind === 'threshold') bits.push(`≥ ${r.threshold} in ${fmtDurationMs(r.window)}`);
    if (r.kind === 'spike') bits.push(`× ${r.spike_factor} baseline, ≥ ${r.min_count} in ${fmtDurationMs(r.window)}`);
    if (r.labels && Object.keys(r.labels).length) bits.push(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(','));
    if (r.min_level) bits.push(`level ≥ ${r.min_level}`);
    if (r.cooldown !== undefined) bits.push(`cooldown ${fmtDurationMs(r.cooldown)}`);
    return bits.join(' · ');
  }

  async function loadSubscriptions() {
    const r = await api('/subscriptions');
    if (!r.ok) { setError('subscriptions', r.error); return; }
    clearError('subscriptions');
    const list = Array.isArray(r.data.subscriptions) ? r.data.subscriptions : [];
    $('subs-body').replaceChildren(...list.map((s) => el('tr', { 'data-subscription-id': s.id },
      el('td', { class: 'cid' }, s.id ?? ''),
      el('td', { class: 'tpl' }, s.url ?? ''),
      el('td', {}, s.format ?? ''),
      el('td', {}, el('ul', { class: 'rules' }, ...(Array.isArray(s.rules) ? s.rules : []).map((x) => el('li', {}, ruleText(x))))),
      el('td', {}, s.secret_set ? 'set' : 'none'),
      el('td', { class: 'time' }, timeNode(s.created_at)))));
    show($('subs-empty'), list.length === 0);
    show($('subs-body').closest('.table-wrap'), list.length > 0);
  }

  // ---------- refresh loop ----------

  function schedule() {
    clearTimeout(state.timer);
    if (!document.hidden && !state.authNeeded) state.timer = setTimeout(refreshAll, REFRESH_MS);
  }

  async function refreshAll() {
    clearTimeout(state.timer);
    if (state.refreshing) { state.refreshAgain = true; return state.refreshing; }
    state.refreshing = (async () => {
      try {
        do {
          state.refreshAgain = false;
          if (state.authNeeded) break;
          // One request first: if it answers 401 the others are not sent (each 401 would be
          // one more failed request in the browser console).
          const reachable = await loadClusters();
          if (state.authNeeded) break;
          if (!reachable) continue; // server down: one failed request per round is enough
          await Promise.all([loadInfo(), loadDetail(), loadAlerts(), loadSubscriptions(), loadMetrics()]);
          const now = new Date();
          const t = $('updated');
          t.textContent = now.toLocaleTimeString(undefined, { hourCycle: 'h23' });
          t.setAttribute('datetime', now.toISOString());
          renderStatus();
        } while (state.refreshAgain);
      } catch (e) {
        setError('page', `dashboard error: ${e.message || e}`);
      } finally {
        state.refreshing = null;
        schedule();
      }
    })();
    return state.refreshing;
  }

  // ---------- wiring ----------

  function debounce(fn, ms) {
    let t = 0;
    return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
  }

  function guard(fn) {
    return (...args) => {
      try {
        const p = fn(...args);
        if (p && typeof p.catch === 'function') p.catch((e) => setError('page', `dashboard error: ${e.message || e}`));
      } catch (e) {
        setError('page', `dashboard error: ${e.message || e}`);
      }
    };
  }

  function init() {
    setToken(getToken()); // shows "Forget token" when one is kept
    $('auth-form').addEventListener('submit', guard(onAuthSubmit));
    $('forget-token').addEventListener('click', guard(onForgetToken));
    $('clusters-body').addEventListener('click', guard(onClusterClick));
    $('window-switcher').addEventListener('click', guard(onWindowSwitch));
    $('failed-body').addEventListener('click', guard(onAlertsClick));
    $('curate-name-save').addEventListener('click', guard(onCurateName));
    $('curate-merge').addEventListener('click', guard(onCurateMerge));
    $('curate-mute').addEventListener('click', guard(onCurateMute));
    $('curate-words').addEventListener('click', guard(onCurateWord));
    $('suggestions-load').addEventListener('click', guard(loadSuggestions));
    $('suggestions-list').addEventListener('click', guard(onSuggestionsClick));
    $('pending-body').addEventListener('click', guard(onAlertsClick));

    const runSearch = debounce(() => { loadClusters(); }, SEARCH_DEBOUNCE_MS);
    $('search').addEventListener('input', guard((e) => {
      const q = e.target.value.trim();
      if (q === state.query) return;
      state.query = q;
      runSearch();
    }));
    $('search-form').addEventListener('submit', guard((e) => { e.preventDefault(); loadClusters(); }));

    document.addEventListener('visibilitychange', guard(() => {
      if (document.hidden) clearTimeout(state.timer);
      else refreshAll();
    }));
    const dark = window.matchMedia('(prefers-color-scheme: dark)');
    if (dark.addEventListener) dark.addEventListener('change', guard(recolorChart));

    window.addEventListener('unhandledrejection', (e) => {
      setError('page', `dashboard error: ${(e.reason && e.reason.message) || e.reason}`);
    });

    const m = /^#cluster=([0-9a-f]{16})$/i.exec(location.hash);
    if (m) selectCluster(m[1].toLowerCase(), { load: false }); // refreshAll loads it
    refreshAll();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
