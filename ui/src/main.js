// sonded's Analytics web UI: routes between the worksheet, datasets,
// alerts and statistics views (the URL's hash: #/worksheet/ID reopens a worksheet,
// #/worksheet/ID?span=S&end=T at a paused or zoomed window).
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { call, wsPath, endEarly } from './api.js';
import { Worksheet, closeMenus } from './worksheet.js';
import { renderDatasets } from './datasets.js';
import { renderStatistics } from './statistics.js';
import { renderAlerts, stopAlerts } from './alerts.js';
import { app, toast } from './state.js';

const main = document.getElementById('main');
const sheet = new Worksheet(main);

function applyTheme(t) {
  document.documentElement.dataset.theme = t;
  document.getElementById('theme').textContent = t === 'dark' ? 'Light theme' : 'Dark theme';
}

function initTheme() {
  const saved = localStorage.getItem('sonde-theme');
  applyTheme(saved || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  document.getElementById('theme').addEventListener('click', () => {
    const t = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem('sonde-theme', t);
    applyTheme(t);
    route(true);
  });
}

// addToWorksheet adds a dataset of the picker to the worksheet last open.
async function addToWorksheet(spec) {
  const ws = sheet.ws;
  if (!ws) { toast('open or create a worksheet first', true); return; }
  try {
    const name = await sheet.ensure(spec);
    if (!ws.datasets.includes(name)) await call('PUT', wsPath(ws.id), { datasets: ws.datasets.concat([name]) });
    location.hash = '#/worksheet/' + encodeURIComponent(ws.id);
  } catch (e) {
    toast(e.message, true);
  }
}

// route shows the view of the URL's hash; force redraws it all (a new theme).
async function route(force) {
  closeMenus();
  // #/worksheet/ID?span=S&end=T: the window is after "?".
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/');
  const params = new URLSearchParams(query || '');
  // Another window of the worksheet open: move it, without reloading.
  if (!force && parts[0] === 'worksheet' && sheet.showParams(decodeURIComponent(parts[1] || ''), params)) return;
  sheet.teardown();
  stopAlerts();
  document.querySelectorAll('nav a').forEach((a) => a.removeAttribute('aria-current'));
  const current = (id) => document.getElementById(id).setAttribute('aria-current', 'page');
  document.body.dataset.view = parts[0] || 'worksheets';
  try {
    // The catalogue loads beside the view: a worksheet needs it only for
    // its menus and the datalist of names, which wait for it.
    if (!app.statsReady) {
      app.statsReady = call('GET', '/statistics').then((r) => { app.stats = new Map((r.statistics || []).map((s) => [s.name, s])); });
      app.statsReady.catch((e) => { app.statsReady = null; toast(e.message, true); });
    }
    if (parts[0] === 'statistics' || parts[0] === 'datasets') await app.statsReady;
    switch (parts[0]) {
      case 'datasets':
        current('nav-datasets');
        await renderDatasets(main);
        break;
      case 'alerts':
        current('nav-alerts');
        await renderAlerts(main);
        break;
      case 'statistics':
        current('nav-statistics');
        await renderStatistics(main, addToWorksheet);
        break;
      default:
        current('nav-worksheets');
        await sheet.render(parts[0] === 'worksheet' ? decodeURIComponent(parts[1] || '') : parts[1] === 'none' ? null : undefined, params);
    }
  } catch (e) {
    toast(e.message, true);
  }
  endEarly();
  document.body.dataset.ready = '1';
}

document.addEventListener('click', (ev) => {
  if (!ev.target.closest('.menu') && !ev.target.closest('.entry')) closeMenus();
});
window.addEventListener('hashchange', () => route());
window.sondeUI = { sheet };
// The view's first requests leave before the theme is read: the first
// access to localStorage can take a while, and nothing is drawn before
// both have run (the charts draw when their data arrives).
route();
initTheme();
