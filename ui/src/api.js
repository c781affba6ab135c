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
  const r = await fetch(base + path, init);
  if (r.status === 204) return null;
  const j = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, j && j.fault);
  return j;
}

export const dsPath = (name) => '/datasets/' + encodeURIComponent(name);
export const wsPath = (id) => '/worksheets/' + encodeURIComponent(id);

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
  const r = await call('GET', dsPath(name) + '/data?' + query + '&format=columns');
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
    out[i] = { sample: c.sample[i] * c.width, samples: c.samples[i], data };
  }
  return out;
}
