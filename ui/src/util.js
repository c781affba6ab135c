// Small DOM and formatting helpers.
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of kids.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild);
  return e;
}

const SI = ['', 'K', 'M', 'G', 'T', 'P'];

export function fmtNum(v) {
  if (v === null || v === undefined) return '-';
  let a = Math.abs(v);
  let i = 0;
  while (a >= 1000 && i < SI.length - 1) { a /= 1000; i++; }
  const s = i === 0 ? String(Math.round(v * 100) / 100) : (v / 1000 ** i).toFixed(a < 10 ? 2 : a < 100 ? 1 : 0);
  return s + SI[i];
}

export function fmtBytes(v) {
  if (!v) return '0 B';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(1) : v) + ' ' + u[i];
}

// fmtNs writes a duration in nanoseconds with its unit.
export function fmtNs(v) {
  if (v === undefined || v === null) return '∞';
  if (v < 1e3) return v + 'ns';
  if (v < 1e6) return +(v / 1e3).toPrecision(3) + 'µs';
  if (v < 1e9) return +(v / 1e6).toPrecision(3) + 'ms';
  return +(v / 1e9).toPrecision(3) + 's';
}

// fmtTime writes a time in UTC: HH:MM:SSZ, or with its date when long.
export function fmtTime(sec, long) {
  const iso = new Date(sec * 1000).toISOString();
  return long ? iso.slice(0, 10) + ' ' + iso.slice(11, 19) + 'Z' : iso.slice(11, 19) + 'Z';
}

// The series' colours, readable on both themes.
export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f'];
export const OTHER = '#8a8a8a';
