// sonded's Analytics web UI: routes between the worksheet, datasets and
// statistics views (the URL's hash: #/worksheet/ID reopens a worksheet).
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { call, wsPath } from './api.js';
import { Worksheet, closeMenus } from './worksheet.js';
import { renderDatasets } from './datasets.js';
import { renderStatistics } from './statistics.js';
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
    route();
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

async function route() {
  closeMenus();
  sheet.teardown();
  const parts = location.hash.replace(/^#\/?/, '').split('/');
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
      case 'statistics':
        current('nav-statistics');
        await renderStatistics(main, addToWorksheet);
        break;
      default:
        current('nav-worksheets');
        await sheet.render(parts[0] === 'worksheet' ? decodeURIComponent(parts[1] || '') : parts[1] === 'none' ? null : undefined);
    }
  } catch (e) {
    toast(e.message, true);
  }
  document.body.dataset.ready = '1';
}

document.addEventListener('click', (ev) => {
  if (!ev.target.closest('.menu') && !ev.target.closest('.entry')) closeMenus();
});
window.addEventListener('hashchange', route);
window.sondeUI = { sheet };
initTheme();
route();
