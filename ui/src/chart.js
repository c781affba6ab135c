// A line or stacked chart of a scalar or a breakdown, drawn by uPlot.
import uPlot from 'uplot';
import { build, stack, extremes } from './series.js';
import { el, fmtNum, fmtTime } from './util.js';

function themeColors() {
  const cs = getComputedStyle(document.documentElement);
  return { fg: cs.getPropertyValue('--fg').trim(), grid: cs.getPropertyValue('--grid').trim() };
}

export class Chart {
  constructor(host, ds, onHover, onZoom) {
    this.host = host;
    this.ds = ds;
    this.onHover = onHover;
    this.onZoom = onZoom; // (from, to): the seconds a drag across the chart selected
    this.hasBreakdowns = (ds.breakdowns || []).length > 0;
    this.stacked = this.hasBreakdowns;
    this.series = null;
    this.u = null;
    this.sig = '';
    this.markers = false; // min/max markers of the total
    this.long = false; // the window spans days: times carry their date
  }

  // extremes is the total's min and max in the window: {min, max} with
  // their index, value and time, or null.
  extremes() {
    const s = this.series;
    const e = s && extremes(s.total);
    if (!e) return null;
    const at = (i) => ({ i, v: s.total[i], t: s.xs[i] });
    return { min: at(e.min), max: at(e.max) };
  }

  // drawMarkers marks the total's min and max where the chart draws the
  // total (a scalar, or the top of a stack).
  drawMarkers(u) {
    if (!this.markers || (this.hasBreakdowns && !this.stacked)) return;
    const e = this.extremes();
    if (!e) return;
    const ctx = u.ctx;
    const c = themeColors();
    ctx.save();
    ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
    for (const [label, m] of [['max', e.max], ['min', e.min]]) {
      const x = u.valToPos(m.t, 'x', true);
      const y = u.valToPos(m.v, 'y', true);
      ctx.fillStyle = label === 'max' ? '#d62728' : '#2a9d8f';
      ctx.beginPath();
      ctx.arc(x, y, 4 * devicePixelRatio, 0, 2 * Math.PI);
      ctx.fill();
      ctx.fillStyle = c.fg;
      const text = `${label} ${fmtNum(m.v)}`;
      const w = ctx.measureText(text).width;
      const tx = Math.min(Math.max(x - w / 2, u.bbox.left), u.bbox.left + u.bbox.width - w);
      ctx.textBaseline = label === 'max' ? 'bottom' : 'top';
      ctx.fillText(text, tx, label === 'max' ? Math.max(y - 6, u.bbox.top + 12 * devicePixelRatio) : y + 6);
    }
    ctx.restore();
  }

  // update draws c (a compact answer with t) on the axis xs.
  update(xs, c) {
    this.series = build(xs, c, this.hasBreakdowns);
    const s = this.series;
    // A stack of more intervals than pixels is drawn filled, without
    // outlines: stroking thousands of segments with round joins cost
    // most of an hour's first render (bench/ui), and at one interval a
    // pixel or less the outlines are not seen apart from the fills.
    this.dense = xs.length > Math.max(200, this.host.clientWidth);
    // A series' colour is its rank's (series.js), so a new ranking of
    // the keys only relabels the series: the chart is made again only
    // when their number, the mode or "other" changes (making it each
    // second, as live rankings change, cost frames).
    const last = s.entries[s.entries.length - 1];
    const sig = (this.stacked ? 's' : 'l') + (this.dense ? 'd' : '') + s.entries.length + (last && last.other ? 'o' : '');
    const data = [s.xs];
    const ys = this.hasBreakdowns ? (this.stacked ? stack(s) : s.entries.map((e) => e.values)) : [s.total];
    // uPlot draws series in order: for a stack draw the tallest first.
    const order = this.stacked ? ys.map((_, i) => ys.length - 1 - i) : ys.map((_, i) => i);
    for (const i of order) data.push(ys[i]);
    this.order = order;
    if (!this.u || sig !== this.sig) {
      this.create(data, order);
    } else {
      if (this.hasBreakdowns) order.forEach((i, j) => { this.u.series[j + 1].label = s.entries[i].key; });
      this.u.setData(data);
      if (this.hl !== undefined && this.hl !== null) this.highlight(this.hl);
    }
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
        series.push({ label: e.key, stroke: e.color, width: this.stacked && this.dense ? 0 : 1.2, fill: this.stacked ? e.color + 'cc' : undefined });
      }
    }
    const axis = { stroke: c.fg, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid } };
    this.u = new uPlot({
      width: Math.max(200, this.host.clientWidth),
      height: 180,
      series,
      legend: { show: false },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.15 : 1] } },
      axes: [axis, { ...axis, size: 60, values: (u, vals) => vals.map(fmtNum) }],
      focus: { alpha: 0.25 },
      // One cursor for every chart of the worksheet, on its shared axis.
      // Dragging across a chart zooms every chart to the times selected.
      cursor: { drag: { x: true, y: false, setScale: false }, focus: { prox: -1 }, sync: { key: 'sonde-worksheet' } },
      hooks: { setCursor: [(u) => this.onHover(u.cursor.idx)], draw: [(u) => this.drawMarkers(u)], setSelect: [(u) => this.selected(u)] },
    }, data, this.host);
  }

  selected(u) {
    if (u.select.width < 3) return;
    const from = u.posToVal(u.select.left, 'x');
    const to = u.posToVal(u.select.left + u.select.width, 'x');
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    if (this.onZoom) this.onZoom(from, to);
  }

  // highlight focuses the series of key (null: none).
  highlight(key) {
    this.hl = key;
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
    return { time: fmtTime(s.xs[i], this.long), total: s.total[i], values: s.entries.map((e) => e.values[i]) };
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
