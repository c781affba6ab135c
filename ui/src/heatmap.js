// A heat map of a distribution, drawn on a canvas: one column per second,
// one cell per bucket of the log-linear distribution, coloured by count,
// linearly or by rank (false colour: every distinct count its own step,
// so that rare outliers show beside a dense band).
import { fmtNs, fmtNum, fmtTime } from './util.js';

const HEIGHT = 220;
const LEFT = 64;
const BOTTOM = 18;

// Yellow to red on the light theme (a ColorBrewer YlOrRd ramp); on the
// dark one, dim purple to bright yellow (as magma), so that few events
// are dark and many bright on either background.
const RAMP = [[255, 237, 160], [254, 178, 76], [240, 59, 32], [128, 0, 38]];
const DARK_RAMP = [[70, 30, 100], [180, 55, 110], [245, 120, 60], [252, 240, 150]];

export function rampColor(t, dark) {
  const ramp = dark ? DARK_RAMP : RAMP;
  const x = Math.min(1, Math.max(0, t)) * (ramp.length - 1);
  const i = Math.min(ramp.length - 2, Math.floor(x));
  const f = x - i;
  const c = ramp[i].map((a, j) => Math.round(a + (ramp[i + 1][j] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

const palettes = {};

// parseColor reads #rrggbb (the themes' --chart-bg).
export function parseColor(hex) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(hex);
  return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [255, 255, 255];
}

// pack is an opaque pixel of ImageData's buffer (RGBA bytes, read as a
// little-endian uint32).
function pack([r, g, b]) {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

// palette32 is the ramp in 256 steps as pixels, each blended over the
// background bg with alpha 0.3 to 1: faint cells fade into either theme.
export function palette32(dark, bg) {
  const k = (dark ? 'dark' : 'light') + bg.join(',');
  if (!palettes[k]) {
    const out = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      const t = i / 255;
      const a = 0.3 + 0.7 * t;
      const c = rampColor(t, dark).match(/\d+/g).map(Number);
      out[i] = pack(c.map((v, j) => Math.round(a * v + (1 - a) * bg[j])));
    }
    palettes[k] = out;
  }
  return palettes[k];
}

// grid turns a compact answer (api.js getColumns: t the intervals'
// starts in seconds) into a dense grid over xs: the rows are the buckets
// (by their lower bound) that have any count in the window, and counts
// holds cell (x, y) at x * rows.length + y (typed, not a Map a column: a
// day of minutes is 57,600 cells, drawn at first paint). present marks
// the columns that had an interval. Two buckets with one lower bound
// (a dataset whose scale changed) add up in one row.
export function grid(xs, c) {
  const index = new Map();
  for (let i = 0; i < xs.length; i++) index.set(xs[i], i);
  const n = c.t.length;
  const at = new Int32Array(n);
  const present = new Uint8Array(xs.length);
  for (let i = 0; i < n; i++) {
    const j = index.get(c.t[i]);
    at[i] = j === undefined ? -1 : j;
    if (j !== undefined) present[j] = 1;
  }
  const rowMax = new Map(); // min -> max, of the buckets with a count
  const used = [];
  for (const b of c.buckets || []) {
    let any = false;
    for (let i = 0; i < n; i++) if (at[i] >= 0 && b.count[i]) { any = true; break; }
    if (!any) continue;
    used.push(b);
    // The wider bucket's upper bound (undefined: the open last bucket).
    const prev = rowMax.get(b.min);
    if (!rowMax.has(b.min) || (prev !== undefined && (b.max === undefined || b.max > prev))) rowMax.set(b.min, b.max);
  }
  const mins = [...rowMax.keys()].sort((a, b) => a - b);
  const rows = mins.map((m) => ({ min: m, max: rowMax.get(m) }));
  const rowOf = new Map(mins.map((m, y) => [m, y]));
  const nr = rows.length;
  const counts = new Float64Array(xs.length * nr);
  for (const b of used) {
    const y = rowOf.get(b.min);
    for (let i = 0; i < n; i++) {
      const v = b.count[i];
      if (at[i] >= 0 && v) counts[at[i] * nr + y] += v;
    }
  }
  return { xs, rows, counts, present };
}

// cellCount is the count of column x, row y (0 where nothing occurred).
export function cellCount(g, x, y) {
  return g.counts[x * g.rows.length + y];
}

// CROP is the share of events "crop outliers" drops from the top of the
// y-range.
export const CROP = 0.001;

// crop is how many rows (from the bottom) keep all but at most CROP of
// the window's events: the rows above, whose events add up to no more
// than CROP of them, are dropped. It answers the rows kept and the
// events dropped.
export function crop(g) {
  const nr = g.rows.length;
  const perRow = new Float64Array(nr);
  let total = 0;
  const k = g.counts;
  for (let i = 0; i < k.length; i++) {
    perRow[i % nr] += k[i];
    total += k[i];
  }
  let keep = nr;
  let dropped = 0;
  while (keep > 1 && dropped + perRow[keep - 1] <= total * CROP) dropped += perRow[--keep];
  return { keep, dropped, total };
}

// sumRect adds the counts of the cells in columns [c0, c1] and rows
// [r0, r1] (indices into g.xs and g.rows).
export function sumRect(g, c0, c1, r0, r1) {
  let n = 0;
  for (let x = c0; x <= c1; x++) for (let y = r0; y <= r1; y++) n += cellCount(g, x, y);
  return n;
}

// shade maps counts to [0, 1]: linear in count, or by the count's rank
// among the distinct counts of the window's shown rows (the keep lowest).
export function shader(g, mode, keep) {
  const nr = g.rows.length;
  const kr = keep === undefined ? nr : Math.min(keep, nr);
  const k = g.counts;
  const all = new Float64Array(kr * g.xs.length);
  let m = 0;
  for (let x = 0, o = 0; x < g.xs.length; x++, o += nr) {
    for (let y = 0; y < kr; y++) if (k[o + y]) all[m++] = k[o + y];
  }
  const sorted = all.subarray(0, m).sort();
  let u = 0; // the distinct counts, in place
  for (let i = 0; i < m; i++) if (i === 0 || sorted[i] !== sorted[u - 1]) sorted[u++] = sorted[i];
  const max = u ? sorted[u - 1] : 1;
  if (mode === 'rank') {
    // A count's place among the distinct ones, by bisection.
    return (c) => {
      let lo = 0;
      let hi = u - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid] < c) lo = mid + 1; else hi = mid;
      }
      return u > 1 ? (lo + 1) / u : 1;
    };
  }
  return (c) => c / max;
}

export class Heatmap {
  constructor(host, onHover) {
    this.host = host;
    this.onHover = onHover;
    this.mode = 'rank';
    this.crop = false;
    this.long = false;
    this.sel = null; // the selected rectangle: columns c0..c1, rows r0..r1
    this.cursor = null; // the keyboard's cell
    this.onSelect = null;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'heatmap';
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', 'heat map: drag, or arrows and shift+arrows then Enter, to select a rectangle');
    this.canvas.height = HEIGHT;
    this.canvas.dataset.cells = '0';
    host.append(this.canvas);
    this.g = null;
    this.canvas.addEventListener('mousemove', (ev) => this.hover(ev));
    this.canvas.addEventListener('mouseleave', () => this.onHover(null));
    this.canvas.addEventListener('mousedown', (ev) => this.press(ev));
    this.canvas.addEventListener('keydown', (ev) => this.key(ev));
  }

  // index is the column and row under a point, clamped to the map.
  index(ev) {
    const g = this.g;
    const rect = this.canvas.getBoundingClientRect();
    const sx = this.canvas.width / rect.width;
    const sy = this.canvas.height / rect.height;
    const px = (ev.clientX - rect.left) * sx;
    const py = (ev.clientY - rect.top) * sy;
    const { w, h } = this.cell();
    const clamp = (v, n) => Math.min(n - 1, Math.max(0, v));
    return { c: clamp(Math.floor((px - LEFT) / w), g.xs.length), r: clamp(Math.floor((this.canvas.height - BOTTOM - py) / h), this.kept()) };
  }

  press(ev) {
    if (!this.g || ev.button !== 0 || !this.kept()) return;
    ev.preventDefault();
    // The anchor is a time and a bucket, not indices: a live map moves
    // under the mouse (a column a second; rows come and go).
    const i = this.index(ev);
    const anchor = { t: this.g.xs[i.c], min: this.g.rows[i.r].min };
    const move = (e) => {
      const b = this.index(e);
      const a = this.locate(anchor);
      this.sel = { c0: Math.min(a.c, b.c), c1: Math.max(a.c, b.c), r0: Math.min(a.r, b.r), r1: Math.max(a.r, b.r) };
      this.draw();
    };
    move(ev);
    const up = (e) => {
      move(e);
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      this.select();
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  }

  // locate is the column and row of a time and a bucket now: the nearest
  // ones on the map when they left it.
  locate(p) {
    const g = this.g;
    let c = g.xs.findIndex((x) => x >= p.t);
    if (c < 0) c = g.xs.length - 1;
    let r = g.rows.findIndex((row) => row.min >= p.min);
    if (r < 0) r = g.rows.length - 1;
    return { c, r: Math.min(r, this.kept() - 1) };
  }

  // key moves a cell cursor with the arrows; shift+arrows grow the
  // selection from it; Enter selects it; Escape clears it.
  key(ev) {
    if (!this.g || !this.kept()) return;
    const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[ev.key];
    const n = this.g.xs.length;
    const m = this.kept();
    if (d) {
      ev.preventDefault();
      if (!this.cursor) this.cursor = { c: n - 1, r: 0 };
      if (!ev.shiftKey || !this.sel) this.anchor = null;
      const prev = { ...this.cursor };
      this.cursor = { c: Math.min(n - 1, Math.max(0, prev.c + d[0])), r: Math.min(m - 1, Math.max(0, prev.r + d[1])) };
      if (ev.shiftKey) {
        if (!this.anchor) this.anchor = prev;
        const a = this.anchor;
        const b = this.cursor;
        this.sel = { c0: Math.min(a.c, b.c), c1: Math.max(a.c, b.c), r0: Math.min(a.r, b.r), r1: Math.max(a.r, b.r) };
      } else {
        this.sel = { c0: this.cursor.c, c1: this.cursor.c, r0: this.cursor.r, r1: this.cursor.r };
      }
      const r = this.g.rows[this.cursor.r];
      this.onHover(`${fmtTime(this.g.xs[this.cursor.c], this.long)}  [${fmtNs(r.min)}, ${fmtNs(r.max)}): ${fmtNum(cellCount(this.g, this.cursor.c, this.cursor.r))}`);
      this.draw();
    } else if (ev.key === 'Enter' && this.sel) {
      ev.preventDefault();
      this.select();
    } else if (ev.key === 'Escape') {
      this.sel = null;
      this.cursor = null;
      this.draw();
      if (this.onSelect) this.onSelect(null);
    }
  }

  // selection is the selected rectangle as times and bucket bounds:
  // [from, to) seconds, [min, max) of the buckets, and its events.
  selection() {
    const g = this.g;
    const s = this.sel;
    if (!g || !s || s.c1 >= g.xs.length || s.r1 >= g.rows.length) return null;
    const width = g.xs.length > 1 ? g.xs[1] - g.xs[0] : 1;
    return { from: g.xs[s.c0], to: g.xs[s.c1] + width, min: g.rows[s.r0].min, max: g.rows[s.r1].max,
      count: sumRect(g, s.c0, s.c1, s.r0, s.r1), ...s };
  }

  select() {
    if (this.onSelect) this.onSelect(this.selection());
  }

  kept() {
    return this.g ? (this.crop ? crop(this.g).keep : this.g.rows.length) : 0;
  }

  cell() {
    const c = this.canvas;
    return { w: (c.width - LEFT) / this.g.xs.length, h: (c.height - BOTTOM) / Math.max(1, this.kept()) };
  }

  // update draws c (a compact answer with t) on the axis xs.
  update(xs, c) {
    const prev = this.g;
    this.g = grid(xs, c);
    // A live map moves a column a second: the selection moves with its
    // times and buckets, or goes when they leave the window.
    if (this.sel && prev) {
      const s = this.sel;
      const c0 = xs.indexOf(prev.xs[s.c0]);
      const c1 = xs.indexOf(prev.xs[s.c1]);
      const r0 = this.g.rows.findIndex((r) => r.min === prev.rows[s.r0]?.min);
      const r1 = this.g.rows.findIndex((r) => r.min === prev.rows[s.r1]?.min);
      this.sel = c0 < 0 || c1 < 0 || r0 < 0 || r1 < 0 || r1 >= this.kept() ? null : { c0, c1, r0, r1 };
      this.cursor = null;
      this.anchor = null;
    }
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
    const keep = this.kept();
    const { w, h } = this.cell();
    const shade = shader(g, this.mode, keep);
    const cr = this.crop ? crop(g) : { keep, dropped: 0, total: 0 };
    const dark = document.documentElement.dataset.theme === 'dark';
    let cells = 0;
    let columns = 0;
    // Into pixels, not a fillRect a cell: an hour of seconds is 3,600
    // columns of up to 40 cells on ~1,200 pixels. Where several columns
    // share a pixel, the highest shade shows (an outlier is not hidden).
    const W = c.width;
    const H = c.height;
    // The buffers are kept from draw to draw (a live map draws every
    // second): allocated again only when the canvas's size changes.
    if (!this.buf || this.buf.W !== W || this.buf.H !== H) {
      this.buf = { W, H, level: new Uint16Array(W * H), img: ctx.createImageData(W, H) };
    }
    const level = this.buf.level;
    level.fill(0);
    const nr = g.rows.length;
    const k = g.counts;
    for (let x = 0, o = 0; x < g.xs.length; x++, o += nr) {
      const x0 = Math.floor(LEFT + x * w);
      const x1 = Math.max(x0 + 1, Math.floor(LEFT + (x + 1) * w));
      let any = false;
      for (let y = 0; y < nr; y++) {
        const count = k[o + y];
        if (!count) continue;
        any = true;
        if (y >= keep) continue;
        const v = Math.round(shade(count) * 255) + 1;
        const y0 = Math.floor(H - BOTTOM - (y + 1) * h);
        const y1 = Math.max(y0 + 1, Math.floor(H - BOTTOM - y * h));
        for (let py = y0; py < y1; py++) {
          const row = py * W;
          for (let px = x0; px < x1; px++) if (level[row + px] < v) level[row + px] = v;
        }
        cells++;
      }
      if (any) columns++;
    }
    const bg = parseColor(cs.getPropertyValue('--chart-bg').trim() || '#ffffff');
    const steps = palette32(dark, bg);
    const img = this.buf.img;
    const px = new Uint32Array(img.data.buffer);
    const back = pack(bg);
    for (let i = 0; i < px.length; i++) px[i] = level[i] ? steps[level[i] - 1] : back;
    ctx.putImageData(img, 0, 0);
    c.dataset.cells = String(cells);
    c.dataset.columns = String(columns);
    c.dataset.rows = String(keep);
    c.dataset.allRows = String(g.rows.length);
    c.dataset.dropped = String(cr.dropped);
    this.axes(ctx, cs, w, h);
    if (this.crop && cr.dropped) {
      ctx.fillStyle = cs.getPropertyValue('--muted').trim() || '#666';
      ctx.textBaseline = 'top';
      ctx.textAlign = 'right';
      ctx.fillText(`cropped: ${fmtNum(cr.dropped)} of ${fmtNum(cr.total)} events above ${fmtNs(g.rows[keep - 1].max)}`, c.width - 4, 2);
      ctx.textAlign = 'left';
    }
    if (this.sel) {
      const s = this.sel;
      ctx.strokeStyle = cs.getPropertyValue('--accent').trim() || '#06f';
      ctx.lineWidth = 2;
      ctx.setLineDash([5, 3]);
      ctx.strokeRect(LEFT + s.c0 * w, c.height - BOTTOM - (s.r1 + 1) * h, (s.c1 - s.c0 + 1) * w, (s.r1 - s.r0 + 1) * h);
      ctx.setLineDash([]);
    }
  }

  axes(ctx, cs, w, h) {
    const c = this.canvas;
    const g = this.g;
    ctx.fillStyle = cs.getPropertyValue('--fg').trim() || '#000';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const keep = this.kept();
    const step = Math.max(1, Math.ceil(keep / 8));
    g.rows.slice(0, keep).forEach((r, i) => {
      if (i % step) return;
      ctx.fillText(fmtNs(r.min), 4, c.height - BOTTOM - (i + 0.5) * h);
    });
    ctx.textBaseline = 'bottom';
    // A label about every 110 pixels.
    const every = Math.max(1, Math.ceil(110 / w));
    for (let x = 0; x < g.xs.length; x += every) {
      const t = fmtTime(g.xs[x], this.long);
      ctx.fillText(this.long ? t.slice(5, 16) : t.slice(0, 8), LEFT + x * w, c.height - 2);
    }
  }

  // cellAt is the column and bucket under a point of the canvas.
  cellAt(px, py) {
    const g = this.g;
    if (!g || px < LEFT) return null;
    const c = this.canvas;
    const { w, h } = this.cell();
    const x = Math.floor((px - LEFT) / w);
    const y = Math.floor((c.height - BOTTOM - py) / h);
    if (x < 0 || x >= g.xs.length || y < 0 || y >= this.kept()) return null;
    const r = g.rows[y];
    return { time: g.xs[x], min: r.min, max: r.max, count: cellCount(g, x, y) };
  }

  hover(ev) {
    const rect = this.canvas.getBoundingClientRect();
    const cell = this.cellAt(ev.clientX - rect.left, ev.clientY - rect.top);
    this.onHover(cell && `${fmtTime(cell.time, this.long)}  [${fmtNs(cell.min)}, ${fmtNs(cell.max)}): ${fmtNum(cell.count)}`);
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

// keyCounts adds, per breakdown key, the counts of the buckets whose
// lower bound is in [min, max) in the intervals of [from, to): the
// events of a selected rectangle by key. max undefined is no bound.
export function keyCounts(intervals, from, to, min, max) {
  const out = new Map();
  for (const iv of intervals) {
    if (iv.sample < from || iv.sample >= to || !iv.data) continue;
    for (const k of iv.data.data || []) {
      let n = 0;
      for (const b of k.buckets || []) if (b.min >= min && (max === undefined || max === null || b.min < max)) n += b.count;
      if (n) out.set(k.key, (out.get(k.key) || 0) + n);
    }
  }
  return [...out].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
}
