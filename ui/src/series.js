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

// build maps intervals onto xs. Seconds without data are null; a key
// absent from a second it was not seen in is 0 in that second (it did
// not occur), null where the dataset had no data at all.
export function build(xs, intervals, hasBreakdowns) {
  const index = new Map(xs.map((x, i) => [x, i]));
  const total = xs.map(() => null);
  const keys = new Map(); // key -> {key, values, sum, last}
  const present = xs.map(() => false);
  for (const iv of intervals) {
    const i = index.get(iv.sample);
    if (i === undefined || !iv.data) continue;
    present[i] = true;
    total[i] = iv.data.value;
    for (const k of iv.data.data || []) {
      let e = keys.get(k.key);
      if (!e) {
        e = { key: k.key, keys: k.keys || [k.key], values: xs.map(() => null), sum: 0 };
        keys.set(k.key, e);
      }
      e.values[i] = k.value;
      e.sum += k.value;
    }
  }
  let entries = [...keys.values()];
  for (const e of entries) e.values = e.values.map((v, i) => (v === null && present[i] ? 0 : v));
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
