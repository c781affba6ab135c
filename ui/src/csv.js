// Export of the visible data as CSV (RFC 4180): one row per interval and
// dataset for the total, one per breakdown key, and for distributions
// one per bucket of the total. Every key is written, not only the top
// ones the legend shows: the export holds what the agent answered.

export const HEADER = ['time', 'granularity', 'dataset', 'key', 'bucket_min', 'bucket_max', 'value'];

export function field(v) {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

// rows lists the CSV rows of one dataset's intervals within [from, to)
// (seconds; each interval's sample already in seconds).
export function rows(name, tier, intervals, from, to) {
  const out = [];
  for (const iv of intervals) {
    if (iv.sample < from || iv.sample >= to || !iv.data) continue;
    const t = new Date(iv.sample * 1000).toISOString().replace('.000Z', 'Z');
    out.push([t, tier, name, '', '', '', iv.data.value]);
    for (const k of iv.data.data || []) out.push([t, tier, name, k.key, '', '', k.value]);
    for (const b of iv.data.buckets || []) out.push([t, tier, name, '', b.min, b.max, b.count]);
  }
  return out;
}

export function toCSV(all) {
  return [HEADER, ...all].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
