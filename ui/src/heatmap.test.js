// node --test: a heat map's cells and shading.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grid, shader } from './heatmap.js';

const iv = (sample, buckets) => ({ sample, data: { value: 0, buckets } });

test('a column a second, a row per bucket that occurred', () => {
  const g = grid([1, 2, 3], [
    iv(1, [{ min: 10, max: 20, count: 2 }, { min: 20, max: 30, count: 0 }]),
    iv(3, [{ min: 1000, count: 5 }]),
  ]);
  assert.deepEqual(g.rows, [{ min: 10, max: 20 }, { min: 1000, max: undefined }]);
  assert.equal(g.cols[1], null);
  assert.equal(g.cols[0].get(10), 2);
  assert.equal(g.cols[2].get(1000), 5);
});

test('linear shading is count over the maximum; rank shading steps through the distinct counts', () => {
  const g = grid([1, 2], [iv(1, [{ min: 1, max: 2, count: 1 }, { min: 2, max: 3, count: 1000 }]), iv(2, [{ min: 1, max: 2, count: 10 }])]);
  const lin = shader(g, 'linear');
  assert.equal(lin(1000), 1);
  assert.equal(lin(10), 0.01);
  const rank = shader(g, 'rank');
  assert.deepEqual([rank(1), rank(10), rank(1000)], [1 / 3, 2 / 3, 1]);
});
