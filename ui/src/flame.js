// A flame graph of a dataset broken down by stack or ustack: the keys
// are folded stacks (frames root first, joined by ";", as sonde's folded
// output writes them), summed over the window. Frames are buttons, so the
// keyboard reaches them: clicking one zooms to it, clicking a frame
// below it (or "all") zooms back out.
import { el, clear, fmtNum } from './util.js';

const ROW = 18;
const MIN_PX = 2;

// stackBreakdown is the index of the dataset's stack breakdown, or -1.
export function stackBreakdown(ds) {
  return (ds.breakdowns || []).findIndex((b) => b === 'stack' || b === 'ustack');
}

function node(name) {
  return { name, value: 0, children: new Map() };
}

// tree sums the keys of the intervals in [from, to) into a tree of
// frames. With several breakdowns, the other values are frames of their
// own, in the breakdowns' order (syscall.ops[execname][ustack]: the
// program, then its stack).
export function tree(intervals, from, to, si, nb) {
  const root = node('all');
  for (const iv of intervals) {
    if (iv.sample < from || iv.sample >= to || !iv.data) continue;
    for (const k of iv.data.data || []) {
      const vals = nb > 1 && k.keys ? k.keys : [k.key];
      const frames = vals.flatMap((v, i) => (i === si ? (v === '' ? ['(no stack)'] : v.split(';')) : [v]));
      root.value += k.value;
      let n = root;
      for (const f of frames) {
        let c = n.children.get(f);
        if (!c) { c = node(f); n.children.set(f, c); }
        c.value += k.value;
        n = c;
      }
    }
  }
  return root;
}

// find follows a path of frame names from the root (null: gone).
export function find(root, path) {
  let n = root;
  for (const f of path) {
    n = n.children.get(f);
    if (!n) return null;
  }
  return n;
}

function hue(name) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return h;
}

export class Flame {
  constructor(host, ds, onHover) {
    this.host = host;
    this.ds = ds;
    this.onHover = onHover;
    this.si = stackBreakdown(ds);
    this.nb = (ds.breakdowns || []).length;
    this.path = []; // the zoomed frame
    this.root = null;
    this.box = el('div', { class: 'flame', role: 'group', 'aria-label': 'flame graph of ' + ds.name });
    host.append(this.box);
  }

  update(xs, intervals) {
    const width = xs.length > 1 ? xs[1] - xs[0] : 1;
    this.root = tree(intervals, xs[0], xs[xs.length - 1] + width, this.si, this.nb);
    this.draw();
  }

  summary() {
    const r = this.root;
    if (!r) return '';
    const z = this.path.length ? ` · zoomed to ${this.path[this.path.length - 1]} (${fmtNum(find(r, this.path)?.value || 0)})` : '';
    return `${fmtNum(r.value)} events in the window${z}`;
  }

  draw() {
    const r = this.root;
    if (!r) return;
    let z = find(r, this.path);
    if (!z) { this.path = []; z = r; }
    const focused = this.box.contains(document.activeElement) ? document.activeElement.dataset.path : null;
    clear(this.box);
    const W = Math.max(200, this.host.clientWidth);
    const frames = [];
    // The zoomed frame's ancestors, full width at the bottom.
    let n = r;
    const anc = [n];
    for (const f of this.path) { n = n.children.get(f); anc.push(n); }
    anc.forEach((a, d) => frames.push({ n: a, d, x: 0, w: 1, path: this.path.slice(0, d) }));
    // Its subtree, scaled to the width, children largest first.
    const walk = (p, d, x, w, path) => {
      let cx = x;
      const kids = [...p.children.values()].sort((a, b) => b.value - a.value || (a.name < b.name ? -1 : 1));
      for (const c of kids) {
        const cw = z.value ? (w * c.value) / p.value : 0;
        if (cw * W >= MIN_PX) {
          const cp = path.concat([c.name]);
          frames.push({ n: c, d, x: cx, w: cw, path: cp });
          walk(c, d + 1, cx, cw, cp);
        }
        cx += cw;
      }
    };
    walk(z, anc.length, 0, 1, this.path);
    const depth = frames.reduce((m, f) => Math.max(m, f.d), 0) + 1;
    this.box.style.height = depth * ROW + 'px';
    for (const f of frames) {
      const name = f.n.name;
      const pct = r.value ? (100 * f.n.value) / r.value : 0;
      const key = f.path.join(';');
      const b = el('button', { type: 'button', class: 'frame' + (f.path.length < this.path.length ? ' ancestor' : ''),
        'data-path': key, 'data-value': String(f.n.value), 'data-depth': String(f.d),
        title: `${name}: ${fmtNum(f.n.value)} (${pct.toFixed(1)}%)`,
        style: `left:${(f.x * 100).toFixed(4)}%;width:${(f.w * 100).toFixed(4)}%;bottom:${f.d * ROW}px;background:hsl(${hue(name) % 55},${75 + (hue(name) % 20)}%,${58 + (hue(name) % 12)}%)` },
      f.w * W > 30 ? name : '');
      b.addEventListener('click', () => { this.path = f.path; this.draw(); this.onHover(null); });
      const on = () => this.onHover(`${name} — ${fmtNum(f.n.value)} events, ${pct.toFixed(1)}% of all`);
      b.addEventListener('mouseenter', on);
      b.addEventListener('focus', on);
      b.addEventListener('mouseleave', () => this.onHover(null));
      this.box.append(b);
    }
    this.box.dataset.frames = String(frames.length);
    this.box.dataset.total = String(r.value);
    this.box.dataset.zoom = this.path.join(';');
    if (focused !== null) {
      const b = [...this.box.children].find((x) => x.dataset.path === focused);
      if (b) b.focus();
    }
  }

  resize() {
    this.draw();
  }

  drawn() {
    return this.root ? { total: this.root.value, frames: Number(this.box.dataset.frames) } : null;
  }

  destroy() {
    this.box.remove();
  }
}
