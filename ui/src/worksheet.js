// The worksheet view: datasets on one shared time axis, live every second,
// with drill-down from a breakdown's legend.
import { call, getData, getColumns, emptyColumns, mergeColumns, fromColumns, dsPath, wsPath, drillSpec, ApiError } from './api.js';
import { extremes } from './series.js';
import { Heatmap, keyCounts } from './heatmap.js';
import { Flame, stackBreakdown } from './flame.js';
import { TimeWindow, PRESETS, DEFAULT_SPAN as WINDOW, toParams, fromParams, same } from './timewin.js';
import { rows as csvRows, toCSV } from './csv.js';
import { el, clear, fmtNum, fmtNs, fmtTime } from './util.js';
import { toast, app } from './state.js';

// TABLE_TOP is how many keys a selection's table lists; the rest are summed.
const TABLE_TOP = 15;

// Panel is one dataset of the worksheet: its chart or heat map, its
// ranked legend and the readout of the value under the cursor.
class Panel {
  constructor(ws, name) {
    this.ws = ws;
    this.name = name;
    this.ds = null;
    this.view = null;
    // cols is the window's data as the agent's compact answer (with t:
    // each interval's start in seconds), what charts and heat maps draw;
    // intervals gives it as the default answer's intervals.
    this.cols = emptyColumns();
    this.ivMemo = null;
    this.root = el('section', { class: 'panel', 'data-name': name, 'aria-label': name });
  }

  async load() {
    try {
      this.ds = (await call('GET', dsPath(this.name))).dataset;
    } catch (e) {
      this.root.append(el('h3', { text: this.name }), el('p', { class: 'error', text: e.message }));
      return;
    }
    const ds = this.ds;
    this.root.style.setProperty('--depth', String((ds.filters || []).length));
    if ((ds.filters || []).length) this.root.classList.add('child');
    this.readout = el('span', { class: 'readout', 'aria-live': 'off' });
    this.legend = el('ul', { class: 'legend', 'aria-label': 'legend of ' + this.name });
    this.plot = el('div', { class: 'plot' });
    const tools = el('span', { class: 'tools' });
    const head = el('header', {}, el('h3', { text: this.name }), el('span', { class: 'unit', text: `${ds.kind}, ${ds.unit || ''}${ds.suspended ? ' — suspended' : ''}` }), tools,
      el('button', { type: 'button', class: 'small', 'aria-label': 'remove ' + this.name + ' from the worksheet', text: 'Remove', onclick: () => this.ws.remove(this.name) }));
    this.minmax = el('span', { class: 'minmax', 'aria-live': 'off' });
    if (stackBreakdown(ds) >= 0) {
      this.view = new Flame(this.plot, ds, (text) => {
        this.hovering = !!text;
        if (text) this.readout.textContent = text;
      });
    } else if (ds.kind === 'distribution') {
      this.view = new Heatmap(this.plot, (text) => {
        this.hovering = !!text;
        if (text) this.readout.textContent = text;
      });
      const sel = el('select', { 'aria-label': 'shading', class: 'shading' },
        el('option', { value: 'rank', text: 'rank shading' }), el('option', { value: 'linear', text: 'linear shading' }));
      sel.addEventListener('change', () => { this.view.mode = sel.value; this.view.draw(); });
      const crop = el('input', { type: 'checkbox', class: 'crop' });
      crop.addEventListener('change', () => { this.view.crop = crop.checked; this.view.draw(); });
      tools.append(sel, el('label', { class: 'check', title: 'drop the top 0.1% of events from the y-range' }, crop, 'crop outliers'));
      this.view.onSelect = (sel) => this.selected(sel);
    } else {
      // uPlot is loaded with the first chart (chart.js, a chunk of its
      // own): a page of heat maps does not evaluate it.
      const { Chart, modeButton } = await import('./chart.js');
      this.view = new Chart(this.plot, ds, (idx) => this.showReadout(idx), (from, to) => { this.ws.win.zoomTo(from, to); this.ws.moved(); });
      this.chart = true;
      if ((ds.breakdowns || []).length) tools.append(modeButton(this.view, () => { this.view.sig = ''; this.redraw(); }));
    }
    this.selection = el('div', { class: 'selection', hidden: true });
    this.root.append(head, this.plot, el('div', { class: 'readouts' }, this.readout, this.minmax), this.legend, this.selection);
  }

  // intervals are the window's data as the default answer's intervals
  // (each sample its start in seconds): CSV, selections, flame graphs.
  get intervals() {
    if (!this.ivMemo || this.ivMemo.cols !== this.cols) this.ivMemo = { cols: this.cols, ivs: fromColumns(this.cols) };
    return this.ivMemo.ivs;
  }

  // poll reads the window's data (w a TimeWindow). A live window that only moved
  // on reads just the intervals since the last it has (and that one
  // again: it may have been filling), unless full. It answers how many
  // intervals have data.
  async poll(w, full) {
    if (!this.ds) return 0;
    const width = w.width;
    const inc = !full && w.live && this.tier === w.tier && this.span === w.span && this.cols.t.length > 0;
    let query = w.query();
    // The first read was asked beside the dataset's description (prefetch).
    const pre = this.prefetch;
    this.prefetch = null;
    if (inc) {
      const last = this.last();
      const n = Math.max(2, Math.min(w.intervals, Math.ceil((Date.now() / 1000 - last) / width) + 2));
      query = 'seconds=' + n * width + '&granularity=' + w.tier;
    }
    try {
      const c = await (pre && !inc && pre.query === query ? pre.data : getColumns(this.name, query));
      if (inc && c.t.length) {
        this.cols = mergeColumns(this.cols, c, c.t[c.t.length - 1] - (w.intervals - 1) * width);
      } else if (!inc) {
        this.cols = c;
      }
      this.width = width;
      this.tier = w.tier;
      this.span = w.span;
    } catch (e) {
      this.cols = emptyColumns();
      this.readout.textContent = e.message;
    }
    return this.cols.samples.filter((n) => n).length;
  }

  // within says whether an interval with data ends by end (seconds).
  within(end) {
    return this.cols.t.some((t, i) => this.cols.samples[i] && t + this.width <= end);
  }

  last() {
    const t = this.cols.t;
    return t.length ? t[t.length - 1] : 0;
  }

  redraw(xs) {
    if (!this.view) return;
    this.xs = xs || this.xs;
    if (!this.xs) return;
    this.view.long = this.ws.win.span > 86400;
    this.view.markers = this.ws.markers;
    this.view.update(this.xs, this.view instanceof Flame ? this.intervals : this.cols);
    this.showExtremes();
    if (this.chart) {
      this.drawLegend();
      if (!this.hovering) this.showReadout(null);
    } else if (this.view instanceof Flame) {
      if (!this.hovering) this.readout.textContent = this.view.summary();
    } else if (!this.hovering) {
      const c = this.cols;
      const n = c.t.length;
      this.readout.textContent = n ? `${fmtTime(c.t[n - 1], this.ws.win.span > 86400)}  ${fmtNum(c.value[n - 1])} events` : '';
    }
  }

  // extremes is the total's lowest and highest interval on the axis.
  extremes() {
    if (!this.xs) return null;
    const index = new Map(this.xs.map((x, i) => [x, i]));
    const total = this.xs.map(() => null);
    this.cols.t.forEach((t, j) => {
      const i = index.get(t);
      if (i !== undefined) total[i] = this.cols.value[j];
    });
    const e = extremes(total);
    return e && { min: { t: this.xs[e.min], v: total[e.min] }, max: { t: this.xs[e.max], v: total[e.max] } };
  }

  showExtremes() {
    const e = this.ws.markers && this.extremes();
    this.minmax.hidden = !e;
    if (!e) return;
    const long = this.ws.win.span > 86400;
    this.minmax.dataset.min = String(e.min.v);
    this.minmax.dataset.max = String(e.max.v);
    this.minmax.dataset.maxTime = String(e.max.t);
    this.minmax.textContent = `min ${fmtNum(e.min.v)} at ${fmtTime(e.min.t, long)} · max ${fmtNum(e.max.v)} at ${fmtTime(e.max.t, long)}`;
  }

  // selected shows a heat map's selected rectangle: its events by this
  // dataset's own breakdown (exact: the same data), and buttons that break
  // it down by another, read from the dataset with that breakdown added
  // (created, and put under this one, when it does not exist: it records
  // from then on, so only seconds after its creation are covered).
  selected(sel) {
    const box = clear(this.selection);
    box.hidden = !sel;
    if (!sel) return;
    const long = this.ws.win.span > 86400;
    Object.assign(box.dataset, { from: String(sel.from), to: String(sel.to), min: String(sel.min), max: sel.max === undefined ? '' : String(sel.max), count: String(sel.count) });
    box.append(el('p', { class: 'what', text: `Selected ${fmtTime(sel.from, long)} – ${fmtTime(sel.to, long)}, [${fmtNs(sel.min)}, ${fmtNs(sel.max)}): ${fmtNum(sel.count)} events` }));
    if ((this.ds.breakdowns || []).length) box.append(this.keyTable(this.name, keyCounts(this.intervals, sel.from, sel.to, sel.min, sel.max), sel.count));
    const st = app.stats.get(this.ds.statistic);
    const used = new Set([...(this.ds.breakdowns || []), ...(this.ds.filters || []).map((f) => f.breakdown)]);
    const choices = (st ? st.breakdowns : []).map((b) => b.name).filter((b) => !used.has(b));
    if (!choices.length) return;
    this.byOther = el('div', { class: 'by-other' });
    box.append(el('div', { class: 'choices', role: 'group', 'aria-label': 'break the selection down by' }, el('span', { text: 'by ' }),
      choices.map((b) => el('button', { type: 'button', class: 'small', 'data-breakdown': b, text: b, onclick: () => this.selectionBy(sel, b) }))), this.byOther);
  }

  async selectionBy(sel, by) {
    const out = clear(this.byOther);
    try {
      const name = await this.ws.ensure(this.name + '[' + by + ']');
      if (!this.ws.panels.has(name)) await this.ws.add(name, this.name);
      const w = this.ws.win;
      const q = `start=${new Date(sel.from * 1000).toISOString().replace('.000Z', 'Z')}&seconds=${sel.to - sel.from}&granularity=${w.tier}`;
      const ivs = await getData(name, q);
      const counts = keyCounts(ivs, sel.from, sel.to, sel.min, sel.max);
      const sum = counts.reduce((a, c) => a + c.count, 0);
      out.append(this.keyTable(name, counts, null),
        el('p', { class: 'hint', text: `from ${name}, a dataset of its own: its keys add up to ${fmtNum(sum)} of the selection's ${fmtNum(sel.count)} events for the seconds it recorded` }));
    } catch (e) {
      out.append(el('p', { class: 'error', text: e.message }));
    }
  }

  // keyTable lists a selection's events by key.
  keyTable(name, counts, total) {
    const sum = counts.reduce((a, c) => a + c.count, 0);
    return el('table', { class: 'bykey', 'data-dataset': name },
      el('caption', { text: `${name}: ${fmtNum(sum)}${total !== null ? ' of ' + fmtNum(total) : ''} events in the selection` }),
      el('thead', {}, el('tr', {}, el('th', { text: 'key' }), el('th', { text: 'events' }))),
      el('tbody', {}, counts.length ? counts.slice(0, TABLE_TOP).map((c) => el('tr', { 'data-key': c.key }, el('td', { text: c.key }), el('td', { class: 'num', text: String(c.count) })))
        : el('tr', {}, el('td', { colspan: 2, text: 'none recorded in the selection' })),
      counts.length > TABLE_TOP ? el('tr', { class: 'rest' }, el('td', { text: `${counts.length - TABLE_TOP} more keys` }),
        el('td', { class: 'num', text: String(counts.slice(TABLE_TOP).reduce((a, c) => a + c.count, 0)) })) : null));
  }

  // csv is the panel's rows of the CSV export: its intervals on the axis.
  csv() {
    if (!this.xs || !this.ds) return [];
    return csvRows(this.name, this.ws.win.tier, this.intervals, this.xs[0], this.xs[this.xs.length - 1] + this.width);
  }

  showReadout(idx) {
    this.hovering = idx !== null && idx !== undefined;
    const r = this.view.readout(idx);
    if (!r) return;
    this.readout.textContent = `${r.time}  total ${fmtNum(r.total)}`;
    const items = this.legend.querySelectorAll('.value');
    r.values.forEach((v, i) => { if (items[i]) items[i].textContent = fmtNum(v); });
  }

  drawLegend() {
    const s = this.view.series;
    const sig = s.entries.map((e) => e.key).join('\u0000');
    if (sig === this.legendSig) return;
    this.legendSig = sig;
    // The ranking changed: rebuild, keeping the keyboard's place.
    const focused = this.legend.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    clear(this.legend);
    for (const e of s.entries) {
      const label = e.other ? `other (${e.folded || 'folded'})` : e.key;
      const b = el('button', { type: 'button', class: 'entry', 'data-key': e.key, disabled: e.other || undefined,
        'aria-haspopup': e.other ? undefined : 'menu', title: e.other ? 'keys past the top ' + s.entries.length : 'drill down' },
      el('span', { class: 'swatch', style: 'background:' + e.color }), el('span', { class: 'key', text: label }), el('span', { class: 'value', text: '' }));
      if (!e.other) b.addEventListener('click', () => this.menu(e));
      // Hovering or focusing an entry highlights its key in every chart.
      const on = () => this.ws.highlight(e.key);
      const off = () => this.ws.highlight(null);
      b.addEventListener('mouseenter', on);
      b.addEventListener('focus', on);
      b.addEventListener('mouseleave', off);
      b.addEventListener('blur', off);
      this.legend.append(el('li', {}, b));
    }
    if (focused !== null) {
      const b = this.entry(focused);
      if (b) b.focus();
    }
  }

  entry(key) {
    return [...this.legend.querySelectorAll('.entry')].find((b) => b.dataset.key === key);
  }

  // menu offers the further breakdowns of a legend entry.
  menu(entry) {
    closeMenus();
    const st = app.stats.get(this.ds.statistic);
    const used = new Set([...(this.ds.breakdowns || []), ...(this.ds.filters || []).map((f) => f.breakdown)]);
    const choices = (st ? st.breakdowns : []).map((b) => b.name).filter((b) => !used.has(b));
    const m = el('div', { class: 'menu', role: 'menu', 'aria-label': 'break ' + entry.key + ' down by' },
      el('div', { class: 'menu-title', text: `${entry.key} by…` }));
    for (const b of choices) {
      m.append(el('button', { type: 'button', role: 'menuitem', 'data-breakdown': b, text: b,
        onclick: () => { closeMenus(); this.ws.drill(this, entry.keys, b); } }));
    }
    if (!choices.length) m.append(el('div', { text: 'no further breakdown' }));
    m.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') {
        closeMenus();
        const b = this.entry(entry.key);
        if (b) b.focus();
      }
    });
    // The menu lives beside the legend, which is rebuilt when the ranking changes.
    this.legend.after(m);
    const first = m.querySelector('button');
    if (first) first.focus();
  }

  destroy() {
    if (this.view) this.view.destroy();
    this.root.remove();
  }
}

export function closeMenus() {
  document.querySelectorAll('.menu').forEach((m) => m.remove());
}

// Worksheet holds the open worksheet and its panels.
export class Worksheet {
  constructor(main) {
    this.main = main;
    this.ws = null;
    this.panels = new Map();
    this.timer = null;
    this.win = new TimeWindow(WINDOW);
    this.markers = false;
    this.xs = null;
  }

  // render shows worksheet id (the last one when undefined, none when
  // null) at the window params give (the URL's: toParams).
  async render(id, params) {
    clear(this.main);
    // The list and the worksheet asked at once, when its id is known.
    const one = id ? call('GET', wsPath(id)) : null;
    if (one) one.catch(() => {});
    const list = (await call('GET', '/worksheets')).worksheets || [];
    if (!id && list.length) id = list[list.length - 1].id;
    this.ws = null;
    if (id) {
      try {
        this.ws = (await (one || call('GET', wsPath(id)))).worksheet;
        this.win = fromParams(params || new URLSearchParams(), this.ws.seconds || WINDOW);
      } catch (e) {
        toast(e.message, true);
      }
    }
    this.main.append(this.toolbar(list));
    if (this.ws) this.main.append(this.timebar());
    this.panelsEl = el('div', { class: 'panels' });
    this.main.append(this.panelsEl);
    if (!this.ws) {
      this.panelsEl.append(el('p', { class: 'hint', text: 'No worksheet open: name one and press New.' }));
      return;
    }
    this.shownHash = location.hash;
    // Every panel in place at once, their datasets read in parallel.
    await Promise.all(this.ws.datasets.map((name) => this.addPanel(name)));
    this.start();
  }

  toolbar(list) {
    const open = el('select', { id: 'ws-open', 'aria-label': 'open a worksheet' },
      el('option', { value: '', text: '— open a worksheet —' }),
      list.map((w) => el('option', { value: w.id, selected: this.ws && w.id === this.ws.id, text: w.name })));
    open.addEventListener('change', () => { if (open.value) location.hash = '#/worksheet/' + encodeURIComponent(open.value); });
    const name = el('input', { id: 'ws-name', type: 'text', 'aria-label': 'worksheet name', placeholder: 'worksheet name', value: this.ws ? this.ws.name : '' });
    const spec = el('input', { id: 'add-spec', type: 'text', list: 'stat-names', size: 40, 'aria-label': 'dataset to add', placeholder: 'syscall.ops[execname]' });
    const names = el('datalist', { id: 'stat-names' });
    app.statsReady.then(() => names.append(...[...app.stats.keys()].map((n) => el('option', { value: n })))).catch(() => {});
    const has = !!this.ws;
    const form = el('form', { class: 'add', onsubmit: (ev) => { ev.preventDefault(); this.add(spec.value.trim()); } },
      spec, names, el('button', { id: 'add-btn', type: 'submit', disabled: !has || undefined, text: 'Add dataset' }));
    return el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'worksheet' },
      open, name,
      el('button', { id: 'ws-new', type: 'button', text: 'New', onclick: () => this.create(name.value.trim()) }),
      el('button', { id: 'ws-rename', type: 'button', disabled: !has || undefined, text: 'Rename', onclick: () => this.save({ name: name.value.trim() }) }),
      el('button', { id: 'ws-save', type: 'button', disabled: !has || undefined, text: 'Save', onclick: () => this.save({}) }),
      el('button', { id: 'ws-clone', type: 'button', disabled: !has || undefined, text: 'Clone', onclick: () => this.clone(name.value.trim()) }),
      el('button', { id: 'ws-delete', type: 'button', disabled: !has || undefined, text: 'Delete', onclick: () => this.destroy() }),
      form);
  }

  // timebar is the time toolbar: move, pause and zoom the window every
  // panel shares, show a preset span, min/max markers, CSV export.
  timebar() {
    const b = (id, text, label, onclick) => el('button', { id, type: 'button', class: 'small', text, 'aria-label': label, title: label, onclick });
    const move = (f) => () => { f(); this.moved(); };
    const now = () => Date.now() / 1000;
    const last = () => (this.xs ? this.xs[this.xs.length - 1] : now());
    this.rangeEl = el('span', { id: 't-range', class: 'range', 'aria-live': 'polite' });
    this.pauseBtn = b('t-pause', 'Pause', 'pause: stop following now', () => {
      if (this.win.live) this.win.pause(last());
      else this.win.toNow();
      this.moved();
    });
    this.presetBtns = PRESETS.map(([id, text, span]) => b('t-' + id, text, 'show ' + text, move(() => this.win.show(span))));
    this.markersBtn = b('t-minmax', 'Min/max', 'mark the minimum and maximum', () => {
      this.markers = !this.markers;
      this.redrawAll();
    });
    const bar = el('div', { class: 'toolbar timebar', role: 'toolbar', 'aria-label': 'time' },
      b('t-back', '◀ Back', 'back half a window', move(() => this.win.back(last()))),
      b('t-fwd', 'Forward ▶', 'forward half a window', move(() => this.win.forward(now()))),
      b('t-now', 'Now ▶▶', 'forward to now', move(() => this.win.toNow())),
      this.pauseBtn,
      b('t-zoomin', 'Zoom in', 'zoom in: half the span', move(() => this.win.zoom(0.5))),
      b('t-zoomout', 'Zoom out', 'zoom out: twice the span', move(() => this.win.zoom(2))),
      el('span', { class: 'sep', 'aria-hidden': 'true' }), ...this.presetBtns,
      el('span', { class: 'sep', 'aria-hidden': 'true' }), this.markersBtn,
      b('t-csv', 'Export CSV', 'export the visible data as CSV', () => this.exportCSV()),
      this.rangeEl);
    this.showWindow();
    return bar;
  }

  // moved reads the window anew after the toolbar changed it, and keeps
  // it in the URL: a new history entry, so that back and forward of the
  // browser step through the windows shown.
  moved() {
    this.showWindow();
    if (this.ws) {
      const p = toParams(this.win, this.ws.seconds || WINDOW);
      const h = this.hash(p);
      if (location.hash !== h) {
        this.shownHash = h;
        location.hash = h;
      }
    }
    this.tick(true);
  }

  hash(params) {
    return '#/worksheet/' + encodeURIComponent(this.ws.id) + (params ? '?' + params : '');
  }

  // showParams moves the open worksheet to the window of its URL (back
  // or forward of the browser, or a URL typed); it answers false when id
  // is not the worksheet open.
  showParams(id, params) {
    if (!this.ws || this.ws.id !== id || !this.panelsEl || !this.panelsEl.isConnected) return false;
    if (location.hash === this.shownHash) return true; // moved() put it there
    this.shownHash = location.hash;
    const w = fromParams(params, this.ws.seconds || WINDOW);
    if (!same(w, this.win)) {
      this.win = w;
      this.xs = null;
      this.showWindow();
      this.tick(true);
    }
    return true;
  }

  showWindow() {
    if (!this.rangeEl) return;
    const w = this.win;
    this.pauseBtn.textContent = w.live ? 'Pause' : 'Resume';
    this.pauseBtn.setAttribute('aria-pressed', String(!w.live));
    for (const [i, [, , span]] of PRESETS.entries()) this.presetBtns[i].setAttribute('aria-pressed', String(w.span === span));
    this.markersBtn.setAttribute('aria-pressed', String(this.markers));
    const long = w.span > 86400;
    const xs = this.xs;
    const range = xs ? `${fmtTime(xs[0], long)} – ${fmtTime(xs[xs.length - 1] + w.width, long)}` : '';
    this.rangeEl.textContent = `${range}  per ${w.tier}${w.coarser ? ' (finer data gone)' : ''}${w.live ? ' · live' : ' · paused'}`;
    Object.assign(this.rangeEl.dataset, { tier: w.tier, live: String(w.live), span: String(w.span),
      from: xs ? String(xs[0]) : '', to: xs ? String(xs[xs.length - 1] + w.width) : '' });
  }

  redrawAll() {
    this.panels.forEach((p) => p.redraw(this.xs));
    this.showWindow();
  }

  // exportCSV downloads the visible data of every panel.
  exportCSV() {
    const all = [];
    this.panels.forEach((p) => all.push(...p.csv()));
    const blob = new Blob([toCSV(all)], { type: 'text/csv' });
    const from = this.xs ? new Date(this.xs[0] * 1000).toISOString().slice(0, 19).replace(/:/g, '') : 'empty';
    const a = el('a', { href: URL.createObjectURL(blob), download: `sonde-${(this.ws ? this.ws.name : 'worksheet').replace(/[^\w.-]+/g, '_')}-${from}Z.csv` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    toast(`exported ${all.length} rows`);
  }

  async create(name) {
    if (!name) { toast('give the worksheet a name', true); return; }
    try {
      const ws = (await call('POST', '/worksheets', { name, datasets: [] })).worksheet;
      location.hash = '#/worksheet/' + encodeURIComponent(ws.id);
    } catch (e) {
      toast(e.message, true);
    }
  }

  // clone makes a new worksheet of this one's datasets.
  async clone(name) {
    if (!this.ws) return;
    if (!name || name === this.ws.name) name = this.ws.name + ' (copy)';
    try {
      const ws = (await call('POST', '/worksheets', { name, datasets: this.ws.datasets, seconds: this.win.span })).worksheet;
      location.hash = '#/worksheet/' + encodeURIComponent(ws.id);
    } catch (e) {
      toast(e.message, true);
    }
  }

  // save writes the worksheet (its datasets, and what is given) to the agent.
  async save(extra) {
    if (!this.ws) return;
    try {
      this.ws = (await call('PUT', wsPath(this.ws.id), { datasets: this.ws.datasets, seconds: this.win.span, ...extra })).worksheet;
      toast('saved ' + this.ws.name);
      if (extra.name) { const o = this.main.querySelector(`#ws-open option[value="${CSS.escape(this.ws.id)}"]`); if (o) o.textContent = this.ws.name; }
    } catch (e) {
      toast(e.message, true);
    }
  }

  async destroy() {
    if (!this.ws) return;
    try {
      await call('DELETE', wsPath(this.ws.id));
      toast('deleted ' + this.ws.name);
      this.stop();
      location.hash = '#/worksheets/none';
    } catch (e) {
      toast(e.message, true);
    }
  }

  // ensure creates the dataset unless it exists; it answers its name.
  async ensure(spec) {
    try {
      return (await call('POST', '/datasets', { statistic: spec })).dataset.name;
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) return spec;
      throw e;
    }
  }

  async add(spec, after) {
    if (!this.ws || !spec) return;
    let name;
    try {
      name = await this.ensure(spec);
    } catch (e) {
      toast(e.message, true);
      return;
    }
    if (this.panels.has(name)) { toast(name + ' is on the worksheet'); return; }
    const at = after ? this.ws.datasets.indexOf(after) + 1 : this.ws.datasets.length;
    this.ws.datasets.splice(at, 0, name);
    await this.addPanel(name, after);
    await this.save({});
    this.tick(true);
  }

  async drill(parent, values, by) {
    await this.add(drillSpec(parent.ds, values, by), parent.name);
  }

  async addPanel(name, after) {
    const p = new Panel(this, name);
    // The window's data is asked at once, not after the dataset's
    // description: the first render waits for one round trip, not two.
    const query = this.win.query();
    p.prefetch = { query, data: getColumns(name, query) };
    p.prefetch.data.catch(() => {}); // poll reports it
    this.panels.set(name, p);
    const prev = after && this.panels.get(after);
    if (prev) prev.root.after(p.root);
    else this.panelsEl.append(p.root);
    await p.load();
  }

  async remove(name) {
    const p = this.panels.get(name);
    if (p) p.destroy();
    this.panels.delete(name);
    this.ws.datasets = this.ws.datasets.filter((n) => n !== name);
    await this.save({});
  }

  start() {
    this.stop();
    this.tick(true);
    this.timer = setInterval(() => this.tick(), 1000);
    this.onResize = () => this.panels.forEach((p) => p.view && p.view.resize());
    window.addEventListener('resize', this.onResize);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.onResize) window.removeEventListener('resize', this.onResize);
  }

  // tick reads every panel's window, then draws them all on one axis: a
  // live window every second (every 10 s at minutes or hours) ending at
  // the latest interval any panel has, a fixed one once when it moves
  // (force). Where a fixed window's tier has no data in any panel (its
  // retention passed), the next coarser tier is read.
  async tick(force) {
    const w = this.win;
    if (!force && (!w.live || (w.tier !== 'second' && Date.now() - this.fetched < 10000))) return;
    if (this.ticking) { this.again = true; this.againFull = this.againFull || !!force; return; }
    this.ticking = true;
    try {
      const panels = [...this.panels.values()];
      const poll = () => Promise.all(panels.map((p) => p.poll(w, force)));
      const counts = await poll();
      if (!w.live && panels.length && counts.every((c) => c === 0)) {
        // Seconds gone, or no data then at all (the datasets are younger
        // than the window)? Only where a coarser tier has intervals that
        // end within the window were the finer ones there and pruned.
        let found = false;
        while (!found && w.fallBack()) {
          await poll();
          found = panels.some((p) => p.within(w.end));
        }
        if (!found) {
          w.coarser = 0;
          await poll();
        }
      }
      this.fetched = Date.now();
      const last = Math.max(0, ...panels.map((p) => p.last()));
      if (w.live && !last) return;
      this.xs = w.xs(last);
      // Marks for bench/ui: each redraw's time, and the first paint of a
      // worksheet whose panels all have data.
      // A live worksheet's update draws one panel a frame: four charts
      // drawn in one task could take longer than a frame, and the
      // browser would drop one every second. A first or forced draw
      // (a new window) draws all at once.
      const spread = this.painted && !force;
      const xs = this.xs;
      let took = 0;
      for (const p of panels) {
        if (spread) {
          await new Promise((done) => requestAnimationFrame(done));
          if (this.panels.get(p.name) !== p || this.xs !== xs) continue; // removed, or a newer draw
        }
        const t0 = performance.now();
        p.redraw(xs);
        took += performance.now() - t0;
      }
      const t0 = performance.now();
      this.showWindow();
      took += performance.now() - t0;
      performance.measure('sonde-redraw', { start: t0, duration: took }); // seen by a PerformanceObserver,
      performance.clearMeasures('sonde-redraw'); // not kept: a day would keep 86,400
      if (!this.painted && panels.length && panels.every((p) => p.cols.t.length)) {
        this.painted = true;
        requestAnimationFrame(() => performance.mark('sonde-first-paint')); // the frame that paints it
      }
    } finally {
      this.ticking = false;
      if (this.again) {
        const full = this.againFull;
        this.again = false;
        this.againFull = false;
        // After a frame: a tick that waited must not delay the paint of this one.
        requestAnimationFrame(() => this.tick(full));
      }
    }
  }

  highlight(key) {
    this.panels.forEach((p) => { if (p.view && p.view.highlight) p.view.highlight(key); });
  }

  // drawn is what each panel draws now (for tests and debugging).
  drawn(name) {
    const p = this.panels.get(name);
    return p && p.view ? JSON.stringify(p.view.drawn()) : null;
  }

  teardown() {
    this.stop();
    this.panels.forEach((p) => p.destroy());
    this.panels.clear();
  }
}
