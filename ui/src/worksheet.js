// The worksheet view: datasets on one shared time axis, live every second,
// with drill-down from a breakdown's legend.
import { call, dsPath, wsPath, drillSpec, ApiError } from './api.js';
import { axis } from './series.js';
import { Chart, modeButton } from './chart.js';
import { Heatmap } from './heatmap.js';
import { el, clear, fmtNum } from './util.js';
import { toast, app } from './state.js';

export const WINDOW = 60;

// Panel is one dataset of the worksheet: its chart or heat map, its
// ranked legend and the readout of the value under the cursor.
class Panel {
  constructor(ws, name) {
    this.ws = ws;
    this.name = name;
    this.ds = null;
    this.view = null;
    this.intervals = [];
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
    if (ds.kind === 'distribution') {
      this.view = new Heatmap(this.plot, (text) => {
        this.hovering = !!text;
        if (text) this.readout.textContent = text;
      });
      const sel = el('select', { 'aria-label': 'shading', class: 'shading' },
        el('option', { value: 'rank', text: 'rank shading' }), el('option', { value: 'linear', text: 'linear shading' }));
      sel.addEventListener('change', () => { this.view.mode = sel.value; this.view.draw(); });
      tools.append(sel);
    } else {
      this.view = new Chart(this.plot, ds, (idx) => this.showReadout(idx));
      if ((ds.breakdowns || []).length) tools.append(modeButton(this.view, () => { this.view.sig = ''; this.redraw(); }));
    }
    this.root.append(head, this.plot, this.readout, this.legend);
  }

  // poll reads the last WINDOW seconds the agent completed.
  async poll() {
    if (!this.ds || this.busy) return;
    this.busy = true;
    try {
      const r = await call('GET', dsPath(this.name) + '/data?seconds=' + WINDOW);
      this.intervals = Array.isArray(r.data) ? r.data : r.data ? [r.data] : [];
    } catch (e) {
      this.readout.textContent = e.message;
    } finally {
      this.busy = false;
    }
  }

  last() {
    return this.intervals.length ? this.intervals[this.intervals.length - 1].sample : 0;
  }

  redraw(xs) {
    if (!this.view) return;
    this.xs = xs || this.xs;
    if (!this.xs) return;
    this.view.update(this.xs, this.intervals);
    if (this.view instanceof Chart) {
      this.drawLegend();
      if (!this.hovering) this.showReadout(null);
    } else if (!this.hovering) {
      const last = this.intervals[this.intervals.length - 1];
      this.readout.textContent = last ? `${last.startTime}Z  ${fmtNum(last.data ? last.data.value : 0)} events` : '';
    }
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
  }

  async render(id) {
    clear(this.main);
    const list = (await call('GET', '/worksheets')).worksheets || [];
    if (!id && list.length) id = list[list.length - 1].id;
    this.ws = null;
    if (id) {
      try {
        this.ws = (await call('GET', wsPath(id))).worksheet;
      } catch (e) {
        toast(e.message, true);
      }
    }
    this.main.append(this.toolbar(list));
    this.panelsEl = el('div', { class: 'panels' });
    this.main.append(this.panelsEl);
    if (!this.ws) {
      this.panelsEl.append(el('p', { class: 'hint', text: 'No worksheet open: name one and press New.' }));
      return;
    }
    for (const name of this.ws.datasets) await this.addPanel(name);
    this.start();
  }

  toolbar(list) {
    const open = el('select', { id: 'ws-open', 'aria-label': 'open a worksheet' },
      el('option', { value: '', text: '— open a worksheet —' }),
      list.map((w) => el('option', { value: w.id, selected: this.ws && w.id === this.ws.id, text: w.name })));
    open.addEventListener('change', () => { if (open.value) location.hash = '#/worksheet/' + encodeURIComponent(open.value); });
    const name = el('input', { id: 'ws-name', type: 'text', 'aria-label': 'worksheet name', placeholder: 'worksheet name', value: this.ws ? this.ws.name : '' });
    const spec = el('input', { id: 'add-spec', type: 'text', list: 'stat-names', size: 40, 'aria-label': 'dataset to add', placeholder: 'syscall.ops[execname]' });
    const names = el('datalist', { id: 'stat-names' }, [...app.stats.keys()].map((n) => el('option', { value: n })));
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
      const ws = (await call('POST', '/worksheets', { name, datasets: this.ws.datasets, seconds: WINDOW })).worksheet;
      location.hash = '#/worksheet/' + encodeURIComponent(ws.id);
    } catch (e) {
      toast(e.message, true);
    }
  }

  // save writes the worksheet (its datasets, and what is given) to the agent.
  async save(extra) {
    if (!this.ws) return;
    try {
      this.ws = (await call('PUT', wsPath(this.ws.id), { datasets: this.ws.datasets, seconds: WINDOW, ...extra })).worksheet;
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
    this.tick();
  }

  async drill(parent, values, by) {
    await this.add(drillSpec(parent.ds, values, by), parent.name);
  }

  async addPanel(name, after) {
    const p = new Panel(this, name);
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
    this.tick();
    this.timer = setInterval(() => this.tick(), 1000);
    this.onResize = () => this.panels.forEach((p) => p.view && p.view.resize());
    window.addEventListener('resize', this.onResize);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.onResize) window.removeEventListener('resize', this.onResize);
  }

  // tick polls every panel, then draws them all on one axis ending at the
  // latest second any of them has.
  async tick() {
    const panels = [...this.panels.values()];
    await Promise.all(panels.map((p) => p.poll()));
    const last = Math.max(0, ...panels.map((p) => p.last()));
    if (!last) return;
    const xs = axis(last, WINDOW);
    for (const p of panels) p.redraw(xs);
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
