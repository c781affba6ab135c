// The worksheet's time window: its span, its end (null while live), and
// the granularity it is read at. One window for every panel, so that all
// charts share one time axis.

// WIDTH is each granularity's interval in seconds (the API's tiers).
export const WIDTH = { second: 1, minute: 60, hour: 3600 };
export const TIERS = ['second', 'minute', 'hour'];

// PRESETS are the toolbar's "show" buttons.
export const PRESETS = [['1m', '1 minute', 60], ['1h', '1 hour', 3600], ['1d', '1 day', 86400], ['1w', '1 week', 7 * 86400], ['1mo', '1 month', 30 * 86400]];

// DEFAULT_SPAN is a worksheet's window when it saved none.
export const DEFAULT_SPAN = 60;

export const MIN_SPAN = 10;
export const MAX_SPAN = 90 * 86400;
// MAX_POINTS is the most intervals a window reads: past it, the next
// coarser tier (1 hour is 3600 seconds; 1 day 1440 minutes; 1 week 168 hours).
export const MAX_POINTS = 3600;

// tierFor is the finest granularity whose intervals over span stay
// within MAX_POINTS.
export function tierFor(span) {
  for (const g of TIERS) if (span / WIDTH[g] <= MAX_POINTS) return g;
  return 'hour';
}

export class TimeWindow {
  constructor(span) {
    this.span = span || 60;
    this.end = null; // null: live, following the agent's latest interval
    this.coarser = 0; // tiers skipped because the finer one had no data
  }

  get live() {
    return this.end === null;
  }

  // tier is the granularity the window is read at.
  get tier() {
    const i = Math.min(TIERS.length - 1, TIERS.indexOf(tierFor(this.span)) + this.coarser);
    return TIERS[i];
  }

  get width() {
    return WIDTH[this.tier];
  }

  // intervals is how many intervals of the tier cover the span.
  get intervals() {
    return Math.ceil(this.span / this.width);
  }

  // start is the first interval's start of a fixed window: its intervals
  // end with the one that holds the window's last second.
  get start() {
    const w = this.width;
    return Math.ceil(this.end / w) * w - this.intervals * w;
  }

  // xs is the axis: the intervals' starts, oldest first. A live window
  // ends at last, the latest interval any panel has.
  xs(last) {
    const w = this.width;
    const n = this.intervals;
    const first = this.live ? Math.floor(last / w) * w - (n - 1) * w : this.start;
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = first + i * w;
    return out;
  }

  // query is the data request's parameters for the window.
  query() {
    let q = 'seconds=' + this.intervals * this.width + '&granularity=' + this.tier;
    if (!this.live) q += '&start=' + new Date(this.start * 1000).toISOString().replace('.000Z', 'Z');
    return q;
  }

  // pause fixes the window where it is: its end after the latest interval.
  pause(last) {
    if (this.live) this.end = Math.floor(last / this.width) * this.width + this.width;
  }

  // back moves a half span into the past.
  back(last) {
    this.pause(last);
    this.end -= Math.ceil(this.span / 2);
    this.coarser = 0;
  }

  // forward moves a half span towards now; reaching it, the window is live.
  forward(now) {
    if (this.live) return;
    this.end += Math.ceil(this.span / 2);
    this.coarser = 0;
    if (this.end >= now) this.end = null;
  }

  toNow() {
    this.end = null;
    this.coarser = 0;
  }

  // zoom multiplies the span by f, keeping the end.
  zoom(f) {
    this.show(Math.round(this.span * f));
  }

  // zoomTo fixes the window on [from, to) (seconds, whole seconds out).
  zoomTo(from, to) {
    this.end = Math.ceil(to);
    this.show(this.end - Math.floor(from));
  }

  show(span) {
    this.span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, span));
    this.coarser = 0;
  }

  // fallBack reads the next coarser tier (the finer one had no data in
  // the window: its retention passed); false when there is none.
  fallBack() {
    if (this.tier === 'hour') return false;
    this.coarser++;
    return true;
  }
}

// iso writes seconds since the epoch as the API reads them (UTC).
const iso = (s) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

// toParams writes the window into a worksheet's URL: nothing for a live
// window of the worksheet's own span (def), span=S for another span,
// end=T too for a paused or zoomed one.
export function toParams(w, def) {
  const p = new URLSearchParams();
  if (w.span !== def || !w.live) p.set('span', String(w.span));
  if (!w.live) p.set('end', iso(w.end));
  return p.toString().replace(/%3A/g, ':');
}

// fromParams reads a window from a worksheet's URL (toParams' words);
// what it cannot read is left at the worksheet's live default.
export function fromParams(p, def) {
  const w = new TimeWindow(def);
  const span = Number(p.get('span'));
  if (Number.isInteger(span) && span > 0) w.show(span);
  const end = p.get('end') ? Date.parse(p.get('end')) : NaN;
  if (!Number.isNaN(end)) w.end = Math.floor(end / 1000);
  return w;
}

// same says whether two windows show the same times.
export function same(a, b) {
  return a.span === b.span && a.end === b.end;
}
