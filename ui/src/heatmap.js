// A heat map of a distribution, drawn on a canvas: one column per second,
// one cell per bucket of the log-linear distribution, coloured by count,
// linearly or by rank (false colour: every distinct count its own step,
// so that rare outliers show beside a dense band).
import { fmtNs, fmtNum, fmtTime } from './util.js';

const HEIGHT = 220;
const LEFT = 64;
const BOTTOM = 18;

// Yellow to red (a ColorBrewer YlOrRd ramp).
const RAMP = [[255, 237, 160], [254, 178, 76], [240, 59, 32], [128, 0, 38]];

export function rampColor(t) {
  const x = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const f = x - i;
  const c = RAMP[i].map((a, j) => Math.round(a + (RAMP[i + 1][j] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// grid turns intervals into columns over xs and the rows (buckets, by
// their lower bound) that have any count in the window.
export function grid(xs, intervals) {
  const index = new Map(xs.map((x, i) => [x, i]));
  const rows = new Map(); // min -> max
  const cols = xs.map(() => null);
  for (const iv of intervals) {
    const i = index.get(iv.sample);
    if (i === undefined || !iv.data) continue;
    const col = new Map();
    for (const b of iv.data.buckets || []) {
      if (!b.count) continue;
      col.set(b.min, b.count);
      rows.set(b.min, b.max);
    }
    cols[i] = col;
  }
  const mins = [...rows.keys()].sort((a, b) => a - b);
  return { xs, cols, rows: mins.map((m) => ({ min: m, max: rows.get(m) })) };
}

// shade maps counts to [0, 1]: linear in count, or by the count's rank
// among the distinct counts of the window.
export function shader(g, mode) {
  const counts = new Set();
  for (const col of g.cols) if (col) for (const c of col.values()) counts.add(c);
  const sorted = [...counts].sort((a, b) => a - b);
  const max = sorted.length ? sorted[sorted.length - 1] : 1;
  if (mode === 'rank') {
    const rank = new Map(sorted.map((c, i) => [c, sorted.length > 1 ? (i + 1) / sorted.length : 1]));
    return (c) => rank.get(c);
  }
  return (c) => c / max;
}

export class Heatmap {
  constructor(host, onHover) {
    this.host = host;
    this.onHover = onHover;
    this.mode = 'rank';
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'heatmap';
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', 'latency heat map');
    this.canvas.height = HEIGHT;
    this.canvas.dataset.cells = '0';
    host.append(this.canvas);
    this.g = null;
    this.canvas.addEventListener('mousemove', (ev) => this.hover(ev));
    this.canvas.addEventListener('mouseleave', () => this.onHover(null));
  }

  update(xs, intervals) {
    this.g = grid(xs, intervals);
    this.draw();
  }

  draw() {
    const c = this.canvas;
    const g = this.g;
    c.width = Math.max(200, this.host.clientWidth);
    const ctx = c.getContext('2d');
    const cs = getComputedStyle(document.documentElement);
    ctx.fillStyle = cs.getPropertyValue('--chart-bg').trim() || '#fff';
    ctx.fillRect(0, 0, c.width, c.height);
    if (!g) return;
    const w = (c.width - LEFT) / g.xs.length;
    const nrows = Math.max(1, g.rows.length);
    const h = (c.height - BOTTOM) / nrows;
    const shade = shader(g, this.mode);
    const rowOf = new Map(g.rows.map((r, i) => [r.min, i]));
    let cells = 0;
    let columns = 0;
    g.cols.forEach((col, x) => {
      if (!col || !col.size) return;
      columns++;
      for (const [min, count] of col) {
        const y = rowOf.get(min);
        const t = shade(count);
        ctx.fillStyle = rampColor(t);
        ctx.globalAlpha = 0.3 + 0.7 * t; // faint cells fade into either theme's background
        ctx.fillRect(LEFT + x * w, c.height - BOTTOM - (y + 1) * h, Math.ceil(w), Math.ceil(h));
        cells++;
      }
    });
    ctx.globalAlpha = 1;
    c.dataset.cells = String(cells);
    c.dataset.columns = String(columns);
    this.axes(ctx, cs, w, h);
  }

  axes(ctx, cs, w, h) {
    const c = this.canvas;
    const g = this.g;
    ctx.fillStyle = cs.getPropertyValue('--fg').trim() || '#000';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const step = Math.max(1, Math.ceil(g.rows.length / 8));
    g.rows.forEach((r, i) => {
      if (i % step) return;
      ctx.fillText(fmtNs(r.min), 4, c.height - BOTTOM - (i + 0.5) * h);
    });
    ctx.textBaseline = 'bottom';
    for (let x = 0; x < g.xs.length; x += 15) ctx.fillText(fmtTime(g.xs[x]).slice(0, 8), LEFT + x * w, c.height - 2);
  }

  // cellAt is the column and bucket under a point of the canvas.
  cellAt(px, py) {
    const g = this.g;
    if (!g || px < LEFT) return null;
    const c = this.canvas;
    const w = (c.width - LEFT) / g.xs.length;
    const h = (c.height - BOTTOM) / Math.max(1, g.rows.length);
    const x = Math.floor((px - LEFT) / w);
    const y = Math.floor((c.height - BOTTOM - py) / h);
    if (x < 0 || x >= g.xs.length || y < 0 || y >= g.rows.length) return null;
    const col = g.cols[x];
    const r = g.rows[y];
    return { time: g.xs[x], min: r.min, max: r.max, count: col ? col.get(r.min) || 0 : 0 };
  }

  hover(ev) {
    const rect = this.canvas.getBoundingClientRect();
    const cell = this.cellAt(ev.clientX - rect.left, ev.clientY - rect.top);
    this.onHover(cell && `${fmtTime(cell.time)}  [${fmtNs(cell.min)}, ${fmtNs(cell.max)}): ${fmtNum(cell.count)}`);
  }

  resize() {
    this.draw();
  }

  drawn() {
    return this.g ? { cells: Number(this.canvas.dataset.cells), rows: this.g.rows.length } : null;
  }

  destroy() {
    this.canvas.remove();
  }
}
