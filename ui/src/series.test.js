// node --test: what the charts draw from the API's intervals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axis, build as buildColumns, stack, extremes, TOP } from './series.js';
import { toColumns } from './api.js';

const build = (xs, ivs, b) => buildColumns(xs, toColumns(ivs, b ? 1 : 0), b);

const iv = (sample, value, keys) => ({ sample, data: { value, data: keys && Object.entries(keys).map(([key, v]) => ({ key, value: v })) } });

test('axis ends at the last second', () => {
  assert.deepEqual(axis(100, 3), [98, 99, 100]);
});

test('a scalar: seconds without data are gaps, not zeros', () => {
  const s = build([1, 2, 3], [iv(1, 5), iv(3, 0)], false);
  assert.deepEqual(s.total, [5, null, 0]);
});

test('a key absent from a second with data is 0 there, null where there is no data', () => {
  const s = build([1, 2, 3], [iv(1, 3, { a: 3 }), iv(2, 2, { b: 2 })], true);
  const a = s.entries.find((e) => e.key === 'a');
  assert.deepEqual(a.values, [3, 0, null]);
});

test('ranked by the sum over the window; past the top, one other row sums the rest', () => {
  const keys = {};
  for (let i = 0; i < TOP + 3; i++) keys['k' + i] = 100 - i;
  const s = build([1, 2], [iv(1, 0, keys), iv(2, 0, { k7: 1000 })], true);
  assert.equal(s.entries.length, TOP + 1);
  assert.equal(s.entries[0].key, 'k7');
  const other = s.entries[TOP];
  assert.equal(other.key, 'other');
  assert.equal(other.folded, 3);
  // k5 (95) and k6 (94) are folded in the first second, nothing in the second; k4 is 96
  assert.deepEqual(s.entries.map((e) => e.key), ['k7', 'k0', 'k1', 'k2', 'k3', 'other']);
  assert.deepEqual(other.values, [96 + 95 + 94, 0]);
  const sum = (i) => s.entries.reduce((t, e) => t + e.values[i], 0);
  assert.equal(sum(0), Object.values(keys).reduce((a, b) => a + b));
  assert.equal(sum(1), 1000);
});

test('stack: each row is the sum of the rows up to it; the last is the total', () => {
  const s = build([1, 2, 3], [iv(1, 5, { a: 3, b: 2 }), iv(3, 4, { b: 4 })], true);
  const st = stack(s);
  assert.deepEqual(s.entries.map((e) => e.key), ['b', 'a']); // b's 6 over a's 3
  assert.deepEqual(st[0], [2, null, 4]);
  assert.deepEqual(st[1], [5, null, 4]);
});

test('extremes skip gaps and take the first of equals', () => {
  assert.deepEqual(extremes([null, 3, 1, 7, 1, 7, null]), { min: 2, max: 3 });
  assert.equal(extremes([null, null]), null);
});
