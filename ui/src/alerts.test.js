// node --test: how the alerts view writes a threshold's condition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { condition } from './alerts.js';

test('a threshold reads as what it compares', () => {
  assert.equal(condition({ type: 'normal', limit: 1000 }), 'value > 1.00K');
  assert.equal(condition({ type: 'inverted', limit: 5, perkey: true }), 'value < 5 per key');
  assert.equal(condition({ type: 'normal', limit: 5000000, percentile: 99 }), 'p99 > 5.00M');
  assert.equal(condition({ type: 'normal', limit: 5, above: 1000000 }), 'events ≥ 1.00M, % > 5');
});
