// series turns a dataset's intervals into what a chart draws, on a shared
// time axis: the total, and for breakdowns the top keys ranked by their
// sum over the window plus "other".
import { PALETTE, OTHER } from './util.js';

export const TOP = 5;

// axis is the window's seconds, oldest first, ending at `last`.
export function axis(last, seconds) {
  const xs = new Array(seconds);
  for (let i = 0; i < seconds; i++) xs[i] = last - seconds + 1 + i;
  return xs;
}

// build maps a compact answer (api.js getColumns: t the intervals'
// starts in seconds) onto xs. Seconds without data are null; a key absent
// from a second it was not seen in is 0 in that second (it did not
// occur), null where the dataset had no data at all.
export function build(xs, c, hasBreakdowns) {
  const index = new Map(xs.map((x, i) => [x, i]));
  const n = xs.length;
  const total = new Array(n).fill(null);
  const present = new Array(n).fill(false);
  const at = c.t.map((t) => index.get(t));
  for (let i = 0; i < at.length; i++) {
    if (at[i] === undefined) continue;
    present[at[i]] = true;
    total[at[i]] = c.value[i];
  }
  const keys = [];
  for (const k of c.data || []) {
    const values = new Array(n).fill(null);
    let sum = 0;
    let seen = false;
    for (let i = 0; i < at.length; i++) {
      const v = k.value[i];
      if (at[i] === undefined || v === null) continue;
      values[at[i]] = v;
      sum += v;
      seen = true;
    }
    if (seen) keys.push({ key: k.key, keys: k.keys || [k.key], values, sum });
  }
  let entries = keys;
  for (const e of entries) {
    for (let j = 0; j < n; j++) if (e.values[j] === null && present[j]) e.values[j] = 0;
  }
  entries.sort((a, b) => b.sum - a.sum || (a.key < b.key ? -1 : 1));
  if (hasBreakdowns && entries.length > TOP) {
    const rest = entries.slice(TOP);
    const other = { key: 'other', keys: null, other: true, values: xs.map((_, i) => (present[i] ? 0 : null)), sum: 0 };
    for (const e of rest) {
      e.values.forEach((v, i) => { if (v !== null) other.values[i] += v; });
      other.sum += e.sum;
    }
    other.folded = rest.length;
    entries = entries.slice(0, TOP).concat([other]);
  }
  entries.forEach((e, i) => {
    if (e.key === 'other') e.other = true;
    e.color = e.other ? OTHER : PALETTE[i % PALETTE.length];
  });
  return { xs, total, entries, present };
}

// stack gives each entry's cumulative values (entry i: the sum of
// entries 0..i), for a stacked ("mountain") chart.
export function stack(s) {
  const acc = s.xs.map(() => 0);
  return s.entries.map((e) => e.values.map((v, i) => {
    if (v === null && !s.present[i]) return null;
    acc[i] += v || 0;
    return acc[i];
  }));
}

// extremes finds the lowest and highest values (the first of equals) of
// a series, skipping gaps; null when it has no value.
export function extremes(values) {
  let min = null;
  let max = null;
  values.forEach((v, i) => {
    if (v === null || v === undefined) return;
    if (min === null || v < values[min]) min = i;
    if (max === null || v > values[max]) max = i;
  });
  return min === null ? null : { min, max };
}
