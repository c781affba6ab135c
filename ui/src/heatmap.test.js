// node --test: a heat map's cells and shading.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grid as gridColumns, cellCount, shader, crop, sumRect, keyCounts } from './heatmap.js';
import { toColumns } from './api.js';

const grid = (xs, ivs) => gridColumns(xs, toColumns(ivs));

const iv = (sample, buckets) => ({ sample, data: { value: 0, buckets } });

test('a column a second, a row per bucket that occurred', () => {
  const g = grid([1, 2, 3], [
    iv(1, [{ min: 10, max: 20, count: 2 }, { min: 20, max: 30, count: 0 }]),
    iv(3, [{ min: 1000, count: 5 }]),
  ]);
  assert.deepEqual(g.rows, [{ min: 10, max: 20 }, { min: 1000, max: undefined }]);
  assert.deepEqual([...g.present], [1, 0, 1]);
  assert.equal(cellCount(g, 0, 0), 2);
  assert.equal(cellCount(g, 0, 1), 0);
  assert.equal(cellCount(g, 1, 0), 0);
  assert.equal(cellCount(g, 2, 1), 5);
  assert.equal(cellCount(g, 2, 0), 0);
});

test('an interval off the axis is left out; buckets of one lower bound add up', () => {
  const g = grid([2, 3], [
    iv(1, [{ min: 10, max: 20, count: 7 }]),
    iv(2, [{ min: 10, max: 20, count: 1 }, { min: 50, max: 60, count: 3 }]),
    iv(3, [{ min: 10, max: 30, count: 4 }]),
  ]);
  // The interval at 1 is not on the axis: its bucket alone makes no row.
  assert.deepEqual(g.rows, [{ min: 10, max: 30 }, { min: 50, max: 60 }]);
  assert.equal(cellCount(g, 0, 0), 1);
  assert.equal(cellCount(g, 0, 1), 3);
  assert.equal(cellCount(g, 1, 0), 4);
  assert.equal(sumRect(g, 0, 1, 0, 1), 8);
});

test('linear shading is count over the maximum; rank shading steps through the distinct counts', () => {
  const g = grid([1, 2], [iv(1, [{ min: 1, max: 2, count: 1 }, { min: 2, max: 3, count: 1000 }]), iv(2, [{ min: 1, max: 2, count: 10 }])]);
  const lin = shader(g, 'linear');
  assert.equal(lin(1000), 1);
  assert.equal(lin(10), 0.01);
  const rank = shader(g, 'rank');
  assert.deepEqual([rank(1), rank(10), rank(1000)], [1 / 3, 2 / 3, 1]);
  // Only the rows shown count: without the top row, 10 is the highest.
  assert.equal(shader(g, 'linear', 1)(10), 1);
  assert.deepEqual([shader(g, 'rank', 1)(1), shader(g, 'rank', 1)(10)], [0.5, 1]);
});

test('crop outliers drops the top rows holding at most 0.1% of the events', () => {
  // 10,000 events: 9,985 at the bottom, 10 then 5 at the top (0.15%):
  // the top row (5 events, 0.05%) goes, the next (10 more: 0.15%) stays.
  const g = grid([1, 2], [
    iv(1, [{ min: 1, max: 2, count: 9985 }, { min: 100, max: 200, count: 10 }]),
    iv(2, [{ min: 1000, max: 2000, count: 5 }]),
  ]);
  assert.deepEqual(crop(g), { keep: 2, dropped: 5, total: 10000 });
  // Exactly 0.1% goes too, no more.
  const h = grid([1], [iv(1, [{ min: 1, max: 2, count: 990 }, { min: 5, max: 6, count: 9 }, { min: 7, max: 8, count: 1 }])]);
  assert.deepEqual(crop(h), { keep: 2, dropped: 1, total: 1000 });
  // One row is always kept.
  assert.equal(crop(grid([1], [iv(1, [{ min: 1, max: 2, count: 1 }])])).keep, 1);
});

test('a rectangle adds its cells', () => {
  const g = grid([1, 2, 3], [
    iv(1, [{ min: 1, max: 2, count: 1 }, { min: 2, max: 3, count: 2 }]),
    iv(2, [{ min: 2, max: 3, count: 4 }, { min: 3, max: 4, count: 8 }]),
    iv(3, [{ min: 1, max: 2, count: 16 }]),
  ]);
  assert.equal(sumRect(g, 0, 1, 1, 2), 14);
  assert.equal(sumRect(g, 0, 2, 0, 0), 17);
});

test('a selection by key: the buckets in the range, in the time range', () => {
  const k = (key, buckets) => ({ key, value: 0, buckets });
  const ivs = [
    { sample: 1, data: { value: 0, data: [k('dd', [{ min: 10, max: 20, count: 3 }, { min: 20, max: 30, count: 4 }, { min: 30, max: 40, count: 100 }]), k('sh', [{ min: 10, max: 20, count: 1 }])] } },
    { sample: 2, data: { value: 0, data: [k('dd', [{ min: 20, max: 30, count: 5 }]), k('sh', [{ min: 5, max: 10, count: 7 }])] } },
    { sample: 3, data: { value: 0, data: [k('dd', [{ min: 20, max: 30, count: 50 }])] } },
  ];
  assert.deepEqual(keyCounts(ivs, 1, 3, 10, 30), [{ key: 'dd', count: 12 }, { key: 'sh', count: 1 }]);
  assert.deepEqual(keyCounts(ivs, 1, 2, 30, undefined), [{ key: 'dd', count: 100 }]);
});
