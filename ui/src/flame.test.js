// node --test: a flame graph's tree of folded stacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tree, find, stackBreakdown } from './flame.js';

test('folded stacks summed over the window into frames', () => {
  const ivs = [
    { sample: 10, data: { value: 9, data: [{ key: 'a;b;c', value: 4 }, { key: 'a;b', value: 2 }, { key: 'a;d', value: 3 }] } },
    { sample: 11, data: { value: 5, data: [{ key: 'a;b;c', value: 5 }] } },
    { sample: 12, data: { value: 100, data: [{ key: 'x', value: 100 }] } },
  ];
  const r = tree(ivs, 10, 12, 0, 1);
  assert.equal(r.value, 14);
  assert.equal(find(r, ['a']).value, 14);
  assert.equal(find(r, ['a', 'b']).value, 11);
  assert.equal(find(r, ['a', 'b', 'c']).value, 9);
  assert.equal(find(r, ['a', 'd']).value, 3);
  assert.equal(find(r, ['x']), null);
});

test('with several breakdowns the other values are frames too', () => {
  const ivs = [{ sample: 1, data: { value: 3, data: [{ key: 'dd,k;f', keys: ['dd', 'k;f'], value: 3 }] } }];
  const r = tree(ivs, 0, 2, 1, 2);
  assert.equal(find(r, ['dd', 'k', 'f']).value, 3);
  assert.equal(stackBreakdown({ breakdowns: ['execname', 'ustack'] }), 1);
  assert.equal(stackBreakdown({ breakdowns: ['execname'] }), -1);
});
