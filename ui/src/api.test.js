// node --test: the specs the UI sends to the agent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quoteValue, drillSpec } from './api.js';

test('values are bare when the agent reads them bare, else quoted (internal/stats/spec.go)', () => {
  assert.equal(quoteValue('dd'), 'dd');
  assert.equal(quoteValue('a.b-c/1'), 'a.b-c/1');
  assert.equal(quoteValue('héllo'), 'héllo');
  assert.equal(quoteValue(''), '""');
  assert.equal(quoteValue('my app'), '"my app"');
  assert.equal(quoteValue('a]b'), '"a]b"');
  assert.equal(quoteValue('say "hi"\\'), '"say \\"hi\\"\\\\"');
});

test('a drill-down keeps the filters and narrows each breakdown to the entry', () => {
  const ds = { statistic: 'syscall.ops', filters: [{ breakdown: 'cpu', value: '1' }], breakdowns: ['execname', 'pid'] };
  assert.equal(drillSpec(ds, ['my app', '42'], 'name'), 'syscall.ops[cpu=1][execname="my app"][pid=42][name]');
  assert.equal(drillSpec({ statistic: 'syscall.ops', breakdowns: ['execname'] }, ['dd'], 'name'), 'syscall.ops[execname=dd][name]');
});

test('the compact answer rebuilds the default answer: absent stays absent, zero stays zero, keys ranked', async () => {
  const { fromColumns } = await import('./api.js');
  const { rows } = await import('./csv.js');
  // What the agent answers for the same two seconds in both forms
  // (internal/api TestDataColumns checks the agent's side).
  const columns = {
    granularity: 'second', width: 1, breakdowns: 1,
    sample: [1795600797, 1795600799], samples: [1, 1], value: [8, 1],
    data: [
      { key: 'vdb', value: [5, 0], buckets: [{ min: 1000, max: 2000, count: [4, null] }, { min: 1099511627776, count: [1, null] }] },
      { key: 'vda', value: [3, null], buckets: [{ min: 1000, max: 2000, count: [2, null] }, { min: 2000, max: 3000, count: [1, null] }] },
      { key: 'other', value: [null, 1], buckets: [{ min: 0, max: 1, count: [null, 1] }] },
    ],
    buckets: [{ min: 0, max: 1, count: [null, 1] }, { min: 1000, max: 2000, count: [6, null] }, { min: 2000, max: 3000, count: [1, null] }, { min: 1099511627776, count: [1, null] }],
  };
  const intervals = [
    { sample: 1795600797, samples: 1, data: { value: 8, buckets: [{ min: 1000, max: 2000, count: 6 }, { min: 2000, max: 3000, count: 1 }, { min: 1099511627776, count: 1 }],
      data: [{ key: 'vdb', value: 5, buckets: [{ min: 1000, max: 2000, count: 4 }, { min: 1099511627776, count: 1 }] },
        { key: 'vda', value: 3, buckets: [{ min: 1000, max: 2000, count: 2 }, { min: 2000, max: 3000, count: 1 }] }] } },
    { sample: 1795600799, samples: 1, data: { value: 1, buckets: [{ min: 0, max: 1, count: 1 }],
      data: [{ key: 'other', value: 1, buckets: [{ min: 0, max: 1, count: 1 }] }, { key: 'vdb', value: 0 }] } },
  ];
  assert.deepEqual(fromColumns(columns), intervals);
  assert.deepEqual(rows('io.latency[device]', 'second', fromColumns(columns), 0, 2e9), rows('io.latency[device]', 'second', intervals, 0, 2e9));
  // Minutes: samples are intervals since the epoch; the UI keeps seconds.
  const m = fromColumns({ granularity: 'minute', width: 60, breakdowns: 0, sample: [29926680], samples: [42], value: [420] });
  assert.deepEqual(m, [{ sample: 29926680 * 60, samples: 42, data: { value: 420 } }]);
  assert.deepEqual(fromColumns({ granularity: 'second', width: 1, breakdowns: 2, sample: [5], samples: [1], value: [0], data: [] }), [{ sample: 5, samples: 1, data: { value: 0, data: [] } }]);
});

test('a live update merges columns as the intervals would merge', async () => {
  const { fromColumns, toColumns, mergeColumns } = await import('./api.js');
  const k = (key, value, buckets) => (buckets ? { key, value, buckets } : { key, value });
  const b = (min, max, count) => (max === undefined ? { min, count } : { min, max, count });
  const mk = (sample, keys, buckets) => ({ sample, samples: 1, data: { value: keys.reduce((a, x) => a + x.value, 0), data: keys, buckets } });
  const old = [
    mk(10, [k('a', 5, [b(1, 2, 5)])], [b(1, 2, 5)]),
    mk(11, [k('a', 1, [b(1, 2, 1)]), k('gone', 9, [b(8, undefined, 9)])], [b(1, 2, 1), b(8, undefined, 9)]),
    mk(12, [], undefined),
    mk(13, [k('a', 2, [b(2, 4, 2)])], [b(2, 4, 2)]), // still filling: replaced
  ];
  const newer = [
    mk(13, [k('a', 3, [b(2, 4, 3)])], [b(2, 4, 3)]),
    mk(14, [k('b', 7, [b(1, 2, 7)]), k('a', 0)], [b(1, 2, 7)]),
  ];
  // Keep from 11 on: 10 leaves the window, and with it the key "gone"'s 11 stays.
  const merged = mergeColumns(toColumns(old, 1), toColumns(newer, 1), 11);
  const want = old.filter((iv) => iv.sample >= 11 && iv.sample < 13).concat(newer);
  const sortKeys = (ivs) => ivs.map((iv) => ({ ...iv, data: { ...iv.data, data: [...iv.data.data].sort((p, q) => q.value - p.value || (p.key < q.key ? -1 : 1)) } }));
  assert.deepEqual(fromColumns(merged), sortKeys(want).map((iv) => (iv.data.buckets ? iv : { ...iv, data: { value: iv.data.value, data: iv.data.data } })));
  // A key with no value left goes; ranks by the window's sums.
  const later = mergeColumns(merged, toColumns([mk(15, [k('b', 1)], undefined)], 1), 12);
  assert.deepEqual(later.data.map((x) => x.key), ['b', 'a']);
  assert.ok(!later.buckets.some((x) => x.min === 8));
  assert.deepEqual(later.t, [12, 13, 14, 15]);
});

test('the answers boot.js asked are taken once, during the first view', async () => {
  const { early, endEarly } = await import('./api.js');
  const answer = Promise.resolve('worksheet');
  globalThis.window = { sondeEarly: { answers: new Map([['/worksheets/w1', answer]]), booting: true } };
  try {
    assert.equal(early('/worksheets/w1'), answer);
    assert.equal(early('/worksheets/w1'), null); // taken
    // Asked by the app while boot.js still asks: marked, not asked again.
    assert.equal(early('/statistics'), null);
    assert.ok(window.sondeEarly.answers.has('/statistics'));
    window.sondeEarly.booting = false;
    window.sondeEarly.answers.set('/datasets/x', answer);
    endEarly(); // the first view is drawn: what it did not take is dropped
    assert.equal(early('/datasets/x'), null);
  } finally {
    delete globalThis.window;
  }
});
