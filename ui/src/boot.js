// The page's first reads, asked before the app has loaded: a small
// script of its own (boot.js, run as soon as the page's head is parsed)
// asks for the worksheet the URL names, then for each of its datasets
// the description and the window's data, and only then starts the app
// (app.js, fetched meanwhile: index.html preloads it). Evaluating the app
// takes the main thread for tens of milliseconds: started first, it
// would hold the data's request back until it was done; started after,
// it runs while the agent reads the data. The app takes each answer
// once, for the same request, during its first view (api.js early); a
// request it makes otherwise goes to the agent as before.
import { API, dsPath, wsPath, dataPath } from './api.js';
import { fromParams, DEFAULT_SPAN } from './timewin.js';

// answers holds each request asked, until the app takes it; booting
// says the first reads are still being asked (api.js early: the app marks
// the requests it made itself meanwhile, which are not asked twice).
const early = { answers: new Map(), booting: true };
window.sondeEarly = early;

// ask asks for path, unless it was asked already (null).
function ask(path) {
  if (early.answers.has(path)) return null;
  const r = fetch(API + path);
  early.answers.set(path, r);
  return r;
}

// json reads an answer's clone (the app reads the answer itself).
async function json(r) {
  if (!r) return null;
  const a = await r;
  return a.ok ? a.clone().json() : null;
}

async function boot() {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/');
  if (parts[0] !== 'worksheet' && parts[0] !== '' && parts[0] !== 'worksheets') return;
  if (parts[0] === 'worksheets' && parts[1] === 'none') return;
  let id = parts[0] === 'worksheet' ? decodeURIComponent(parts[1] || '') : '';
  const one = id ? ask(wsPath(id)) : null;
  const list = ask('/worksheets');
  if (!id) {
    const l = await json(list);
    const all = (l && l.worksheets) || [];
    if (!all.length) return;
    id = all[all.length - 1].id;
  }
  const w = await json(one || ask(wsPath(id)));
  const ws = w && w.worksheet;
  if (!ws) return;
  const q = fromParams(new URLSearchParams(query || ''), ws.seconds || DEFAULT_SPAN).query();
  for (const name of ws.datasets || []) {
    ask(dataPath(name, q));
    ask(dsPath(name));
  }
}

// START_BY is how long the app waits for the first reads to be asked (ms):
// an agent slow to answer the worksheet does not keep the page blank.
const START_BY = 1000;
let started = false;

// start loads the app once the document is parsed (its script finds the
// page's elements).
function start() {
  if (started) return;
  started = true;
  const go = () => {
    const s = document.createElement('script');
    s.type = 'module';
    s.src = '/ui/assets/app.js';
    document.head.append(s);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go, { once: true });
  else go();
}

ask('/statistics');
setTimeout(start, START_BY);
boot().catch(() => {}).finally(() => {
  early.booting = false;
  start();
});
