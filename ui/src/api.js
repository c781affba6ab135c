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

export async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(API + path, init);
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
