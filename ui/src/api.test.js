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
