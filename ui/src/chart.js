// A line or stacked chart of a scalar or a breakdown, drawn by uPlot.
import uPlot from 'uplot';
import { build, stack } from './series.js';
import { el, fmtNum, fmtTime } from './util.js';

function themeColors() {
  const cs = getComputedStyle(document.documentElement);
  return { fg: cs.getPropertyValue('--fg').trim(), grid: cs.getPropertyValue('--grid').trim() };
}

export class Chart {
  constructor(host, ds, onHover) {
    this.host = host;
    this.ds = ds;
    this.onHover = onHover;
    this.hasBreakdowns = (ds.breakdowns || []).length > 0;
    this.stacked = this.hasBreakdowns;
    this.series = null;
    this.u = null;
    this.sig = '';
  }

  // update draws intervals on the axis xs.
  update(xs, intervals) {
    this.series = build(xs, intervals, this.hasBreakdowns);
    const s = this.series;
    const sig = (this.stacked ? 's' : 'l') + s.entries.map((e) => e.key).join('\u0000');
    const data = [s.xs];
    const ys = this.hasBreakdowns ? (this.stacked ? stack(s) : s.entries.map((e) => e.values)) : [s.total];
    // uPlot draws series in order: for a stack draw the tallest first.
    const order = this.stacked ? ys.map((_, i) => ys.length - 1 - i) : ys.map((_, i) => i);
    for (const i of order) data.push(ys[i]);
    this.order = order;
    if (!this.u || sig !== this.sig) this.create(data, order);
    else this.u.setData(data);
    this.sig = sig;
  }

  create(data, order) {
    if (this.u) this.u.destroy();
    const c = themeColors();
    const s = this.series;
    const series = [{}];
    if (!this.hasBreakdowns) {
      series.push({ label: 'total', stroke: '#4e79a7', fill: '#4e79a733', width: 1.5 });
    } else {
      for (const i of order) {
        const e = s.entries[i];
        series.push({ label: e.key, stroke: e.color, width: 1.2, fill: this.stacked ? e.color + 'cc' : undefined });
      }
    }
    const axis = { stroke: c.fg, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid } };
    this.u = new uPlot({
      width: Math.max(200, this.host.clientWidth),
      height: 180,
      series,
      legend: { show: false },
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [axis, { ...axis, size: 60, values: (u, vals) => vals.map(fmtNum) }],
      focus: { alpha: 0.25 },
      cursor: { drag: { x: false, y: false }, focus: { prox: -1 } },
      hooks: { setCursor: [(u) => this.onHover(u.cursor.idx)] },
    }, data, this.host);
  }

  // highlight focuses the series of key (null: none).
  highlight(key) {
    if (!this.u) return;
    const i = key === null ? -1 : this.u.series.findIndex((se, j) => j > 0 && se.label === key);
    this.u.setSeries(i > 0 ? i : null, { focus: i > 0 });
  }

  resize() {
    if (this.u) this.u.setSize({ width: Math.max(200, this.host.clientWidth), height: 180 });
  }

  // drawn is what the chart holds now (for tests): its x and y arrays.
  drawn() {
    return this.u ? this.u.data : null;
  }

  // readout is the time and values at index idx (null: the latest).
  readout(idx) {
    const s = this.series;
    if (!s) return null;
    let i = idx;
    if (i === null || i === undefined) {
      for (i = s.xs.length - 1; i > 0 && !s.present[i]; i--);
    }
    return { time: fmtTime(s.xs[i]), total: s.total[i], values: s.entries.map((e) => e.values[i]) };
  }

  destroy() {
    if (this.u) this.u.destroy();
    this.u = null;
  }
}

export function modeButton(chart, redraw) {
  const b = el('button', { type: 'button', class: 'small', text: chart.stacked ? 'Lines' : 'Stacked' });
  b.addEventListener('click', () => {
    chart.stacked = !chart.stacked;
    b.textContent = chart.stacked ? 'Lines' : 'Stacked';
    redraw();
  });
  return b;
}
