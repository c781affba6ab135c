// The analytics API (docs/api/openapi.yaml), from the page's own origin.
export const API = '/api/analytics/v1';

// ApiError carries the agent's fault: its details are the positioned
// message sonde prints for bad D or a bad dataset name.
export class ApiError extends Error {
  constructor(status, fault) {
    super(fault ? fault.details || fault.message : 'HTTP ' + status);
    this.status = status;
    this.fault = fault;
  }
}

// ALERT_API is the agent's alert service (docs/alerts.md).
export const ALERT_API = '/api/alert/v1';

export function call(method, path, body) {
  return callAt(API, method, path, body);
}

// callAt calls one of the agent's services (API, ALERT_API).
export async function callAt(base, method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const pre = method === 'GET' && base === API ? early(path) : null;
  const r = await (pre || fetch(base + path, init));
  if (r.status === 204) return null;
  const j = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, j && j.fault);
  return j;
}

export const dsPath = (name) => '/datasets/' + encodeURIComponent(name);
export const wsPath = (id) => '/worksheets/' + encodeURIComponent(id);
// dataPath is a data query's path, in the compact answer (getColumns).
export const dataPath = (name, query) => dsPath(name) + '/data?' + query + '&format=columns';

// early takes, once, the answer boot.js asked for path before the app
// had loaded: null when it asked none, and then, while boot.js is still
// asking, path is marked so that it does not ask it too.
export function early(path) {
  const e = typeof window !== 'undefined' && window.sondeEarly;
  if (!e) return null;
  const r = e.answers.get(path);
  if (e.booting) e.answers.set(path, null);
  else e.answers.delete(path);
  if (r) e.taken = (e.taken || 0) + 1;
  return r || null;
}

// endEarly drops the answers boot.js asked that the first view did not
// take: later reads ask the agent again, never for a stale answer.
export function endEarly() {
  if (typeof window === 'undefined') return;
  // How many it took (tests read it).
  window.sondeEarlyTaken = window.sondeEarly ? window.sondeEarly.taken || 0 : 0;
  window.sondeEarly = null;
}

// quoteValue writes a filter's value as the agent's spec parser reads it:
// bare when it can be, else quoted (internal/stats/spec.go).
export function quoteValue(v) {
  const bare = v !== '' && [...new TextEncoder().encode(v)].every(
    (c) => c > 0x20 && c !== 0x7f && c !== 0x5b && c !== 0x5d && c !== 0x22 && c !== 0x5c);
  return bare ? v : '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

// drillSpec names the dataset that narrows ds to the values of a
// legend entry (one per breakdown of ds) and breaks it down by `by`.
export function drillSpec(ds, values, by) {
  let s = ds.statistic;
  for (const f of ds.filters || []) s += '[' + f.breakdown + '=' + quoteValue(f.value) + ']';
  (ds.breakdowns || []).forEach((b, i) => { s += '[' + b + '=' + quoteValue(values[i]) + ']'; });
  return s + '[' + by + ']';
}

// getData reads a dataset's intervals for a data query (start, seconds,
// granularity) in the compact answer (format=columns: one array per field,
// a fraction of the default answer's bytes and parse), and gives them as
// the default answer's intervals, each sample as its start in seconds.
export async function getData(name, query) {
  const r = await call('GET', dataPath(name, query));
  return fromColumns(r.data);
}

// bucketsAt lists the buckets of columns cols present in interval i.
function bucketsAt(cols, i) {
  let out = null;
  for (const b of cols) {
    const n = b.count[i];
    if (n === null) continue;
    const o = b.max === undefined ? { min: b.min, count: n } : { min: b.min, max: b.max, count: n };
    (out || (out = [])).push(o);
  }
  return out;
}

// fromColumns rebuilds the default answer's intervals from the compact
// one: the same numbers (a key or bucket null in an interval is absent
// from it, not zero), each interval's keys ranked by value, then key, as
// the agent ranks them.
export function fromColumns(c) {
  const n = c.sample.length;
  const t = c.t || c.sample.map((x) => x * c.width);
  const keys = c.data || null;
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const data = { value: c.value[i] };
    if (keys) {
      const list = [];
      for (const k of keys) {
        const v = k.value[i];
        if (v === null) continue;
        const e = { key: k.key, value: v };
        if (k.keys) e.keys = k.keys;
        if (k.buckets) {
          const bs = bucketsAt(k.buckets, i);
          if (bs) e.buckets = bs;
        }
        list.push(e);
      }
      if (c.breakdowns > 0 || list.length) {
        list.sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        data.data = list;
      }
    }
    if (c.buckets) {
      const bs = bucketsAt(c.buckets, i);
      if (bs) data.buckets = bs;
    }
    out[i] = { sample: t[i], samples: c.samples[i], data };
  }
  return out;
}

// getColumns reads a dataset's data for a query in the compact answer,
// kept as it is (what the charts and heat maps draw from), with t: each
// interval's start in seconds.
export async function getColumns(name, query) {
  const r = await call('GET', dataPath(name, query));
  return withTimes(r.data);
}

function withTimes(c) {
  c.t = c.sample.map((s) => s * c.width);
  return c;
}

// emptyColumns is an answer without intervals.
export function emptyColumns() {
  return { granularity: 'second', width: 1, breakdowns: 0, sample: [], samples: [], value: [], t: [] };
}

const nulls = (n) => new Array(n).fill(null);
const bucketKey = (b) => b.min + ':' + (b.max === undefined ? '' : b.max);

// columnsSum is a column's sum, for ranking keys as the agent does.
function columnsSum(values) {
  let s = 0;
  for (const v of values) if (v !== null) s += v;
  return s;
}

// mergeBuckets joins bucket columns of na and nb intervals (pick: a's
// intervals kept); ranges without any count left are dropped.
function mergeBuckets(ab, bb, pick, na, nb) {
  if (!ab && !bb) return undefined;
  const m = new Map();
  for (const x of ab || []) m.set(bucketKey(x), { min: x.min, max: x.max, count: pick(x.count).concat(nulls(nb)) });
  for (const x of bb || []) {
    const e = m.get(bucketKey(x));
    if (e) for (let i = 0; i < nb; i++) e.count[na + i] = x.count[i];
    else m.set(bucketKey(x), { min: x.min, max: x.max, count: nulls(na).concat(x.count) });
  }
  const out = [...m.values()].filter((e) => e.count.some((v) => v !== null))
    .sort((p, q) => p.min - q.min || (p.max === undefined ? Infinity : p.max) - (q.max === undefined ? Infinity : q.max));
  return out.length ? out : undefined;
}

// mergeColumns is a live window's update: a's intervals that start at or
// after keep and before b's first, then b's (the newer answer; its first
// interval replaces a's, which may have been filling).
export function mergeColumns(a, b, keep) {
  const first = b.t.length ? b.t[0] : Infinity;
  const idx = [];
  for (let i = 0; i < a.t.length; i++) if (a.t[i] < first && a.t[i] >= keep) idx.push(i);
  const na = idx.length;
  const nb = b.t.length;
  const pick = (arr) => idx.map((i) => arr[i]);
  const out = { granularity: b.granularity, width: b.width, breakdowns: b.breakdowns };
  for (const f of ['sample', 'samples', 'value', 't']) out[f] = pick(a[f]).concat(b[f]);
  if (a.data || b.data) {
    const m = new Map();
    for (const k of a.data || []) m.set(k.key, { key: k.key, keys: k.keys, value: pick(k.value).concat(nulls(nb)), aBuckets: k.buckets, bBuckets: undefined });
    for (const k of b.data || []) {
      const e = m.get(k.key);
      if (e) {
        for (let i = 0; i < nb; i++) e.value[na + i] = k.value[i];
        e.bBuckets = k.buckets;
      } else {
        m.set(k.key, { key: k.key, keys: k.keys, value: nulls(na).concat(k.value), aBuckets: undefined, bBuckets: k.buckets });
      }
    }
    out.data = [];
    for (const e of m.values()) {
      if (!e.value.some((v) => v !== null)) continue;
      const k = { key: e.key, value: e.value };
      if (e.keys) k.keys = e.keys;
      const bs = mergeBuckets(e.aBuckets, e.bBuckets, pick, na, nb);
      if (bs) k.buckets = bs;
      out.data.push(k);
    }
    const sums = new Map(out.data.map((k) => [k.key, columnsSum(k.value)]));
    out.data.sort((p, q) => sums.get(q.key) - sums.get(p.key) || (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  }
  const bs = mergeBuckets(a.buckets, b.buckets, pick, na, nb);
  if (bs) out.buckets = bs;
  return out;
}

// toColumns is fromColumns' inverse: intervals (samples in seconds, as
// fromColumns gives them) as a compact answer of width 1 with t.
export function toColumns(intervals, breakdowns) {
  const n = intervals.length;
  const c = { granularity: 'second', width: 1, breakdowns: breakdowns || 0, sample: [], samples: [], value: [], t: [] };
  const keys = new Map();
  const buckets = new Map();
  const put = (m, b, i) => {
    let e = m.get(bucketKey(b));
    if (!e) m.set(bucketKey(b), (e = b.max === undefined ? { min: b.min, count: nulls(n) } : { min: b.min, max: b.max, count: nulls(n) }));
    e.count[i] = b.count;
  };
  intervals.forEach((iv, i) => {
    c.sample.push(iv.sample);
    c.t.push(iv.sample);
    c.samples.push(iv.samples === undefined ? 1 : iv.samples);
    c.value.push(iv.data.value);
    for (const b of iv.data.buckets || []) put(buckets, b, i);
    for (const k of iv.data.data || []) {
      let e = keys.get(k.key);
      if (!e) keys.set(k.key, (e = { key: k.key, value: nulls(n), bm: new Map() }));
      if (k.keys) e.keys = k.keys;
      e.value[i] = k.value;
      for (const b of k.buckets || []) put(e.bm, b, i);
    }
  });
  const sorted = (m) => [...m.values()].sort((p, q) => p.min - q.min);
  if (breakdowns || keys.size) {
    c.data = [...keys.values()].map((e) => {
      const k = { key: e.key, value: e.value };
      if (e.keys) k.keys = e.keys;
      if (e.bm.size) k.buckets = sorted(e.bm);
      return k;
    });
  }
  if (buckets.size) c.buckets = sorted(buckets);
  return c;
}
