// node --test: the worksheet's time window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeWindow, tierFor } from './timewin.js';

test('the tiers: 1 minute and 1 hour of seconds, 1 day of minutes, 1 week and 1 month of hours', () => {
  assert.deepEqual([60, 3600, 86400, 7 * 86400, 30 * 86400].map(tierFor), ['second', 'second', 'minute', 'hour', 'hour']);
});

test('a live window ends at the latest interval', () => {
  const w = new TimeWindow(60);
  assert.equal(w.query(), 'seconds=60&granularity=second');
  const xs = w.xs(1000);
  assert.equal(xs.length, 60);
  assert.equal(xs[59], 1000);
  assert.equal(xs[0], 941);
});

test('back, forward and forward to now', () => {
  const w = new TimeWindow(60);
  w.back(1000); // paused at 1001, then back 30 s
  assert.equal(w.end, 971);
  assert.equal(w.start, 911);
  assert.deepEqual([w.xs(0)[0], w.xs(0)[59]], [911, 970]);
  assert.equal(w.query(), 'seconds=60&granularity=second&start=1970-01-01T00:15:11Z');
  w.forward(1100);
  assert.equal(w.end, 1001);
  w.forward(1020);
  assert.equal(w.live, true);
  w.back(1000);
  w.toNow();
  assert.equal(w.live, true);
});

test('a day reads minutes, aligned; zoom keeps the end', () => {
  const w = new TimeWindow(86400);
  w.pause(100000);
  assert.equal(w.tier, 'minute');
  assert.equal(w.end, 100020);
  assert.equal(w.start % 60, 0);
  assert.equal(w.xs(0).length, 1440);
  assert.ok(w.xs(0).every((x, i, a) => i === 0 || x - a[i - 1] === 60));
  w.zoom(1 / 24);
  assert.equal(w.span, 3600);
  assert.equal(w.tier, 'second');
  assert.equal(w.end, 100020);
  w.zoom(1e9);
  assert.equal(w.span, 90 * 86400);
});

test('where seconds are gone, the next tier', () => {
  const w = new TimeWindow(3600);
  w.back(1e6);
  assert.equal(w.tier, 'second');
  assert.equal(w.fallBack(), true);
  assert.equal(w.tier, 'minute');
  assert.equal(w.intervals, 60);
  assert.equal(w.fallBack(), true);
  assert.equal(w.fallBack(), false);
  assert.equal(w.tier, 'hour');
});

test('zoom to a dragged range: whole seconds out, at least MIN_SPAN', () => {
  const w = new TimeWindow(60);
  w.zoomTo(1000.4, 1020.2);
  assert.deepEqual([w.live, w.end, w.span, w.start], [false, 1021, 21, 1000]);
  w.zoomTo(1000, 1002);
  assert.equal(w.span, 10);
});

test('a paused or zoomed window goes into the URL and comes back from it', async () => {
  const { toParams, fromParams, same } = await import('./timewin.js');
  const live = new TimeWindow(60);
  assert.equal(toParams(live, 60), '');
  live.show(3600);
  assert.equal(toParams(live, 60), 'span=3600');
  assert.ok(same(fromParams(new URLSearchParams('span=3600'), 60), live));
  const w = new TimeWindow(60);
  w.pause(1795600799);
  w.zoom(0.5);
  const p = toParams(w, 60);
  assert.equal(p, 'span=30&end=2026-11-25T10:00:00Z');
  const back = fromParams(new URLSearchParams(p), 60);
  assert.ok(same(back, w) && !back.live);
  assert.equal(back.query(), w.query());
  // What cannot be read is the worksheet's live default.
  const bad = fromParams(new URLSearchParams('span=-4&end=soon'), 60);
  assert.ok(bad.live && bad.span === 60);
});
