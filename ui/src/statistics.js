// The statistics picker: the catalogue, adding a statistic to the open
// worksheet, and a new statistic from D with the compiler's positioned
// message shown inline when the D is wrong.
import { call } from './api.js';
import { el, clear } from './util.js';
import { app, toast } from './state.js';

export async function renderStatistics(main, addToWorksheet) {
  const list = (await call('GET', '/statistics')).statistics || [];
  app.stats = new Map(list.map((s) => [s.name, s]));
  clear(main);
  const rows = list.map((s) => {
    const by = el('select', { 'aria-label': 'breakdown of ' + s.name },
      el('option', { value: '', text: '(total)' }), (s.breakdowns || []).map((b) => el('option', { value: b.name, text: b.name })));
    return el('tr', { 'data-name': s.name },
      el('td', {}, el('code', { text: s.name })),
      el('td', { text: s.kind + (s.unit ? ', ' + s.unit : '') + (s.static ? ' (static)' : '') + (s.user ? ' (user)' : '') }),
      el('td', { text: s.description || '' }),
      el('td', {}, by),
      el('td', {}, el('button', { type: 'button', text: 'Add to worksheet',
        onclick: () => addToWorksheet(s.name + (by.value ? '[' + by.value + ']' : '')) })));
  });
  const name = el('input', { id: 'd-name', type: 'text', required: true, placeholder: 'http.uri', 'aria-label': 'statistic name' });
  const source = el('textarea', { id: 'd-source', rows: 5, cols: 70, required: true, spellcheck: 'false', 'aria-label': 'D source',
    placeholder: 'syscall::write:entry { @[execname] = count(); }' });
  const out = el('pre', { id: 'd-error', class: 'error', role: 'alert', hidden: true });
  const form = el('form', { class: 'newstat' }, el('h2', { text: 'New statistic from D' }),
    el('label', {}, 'Name ', name), el('label', {}, 'D ', source),
    el('button', { id: 'd-submit', type: 'submit', text: 'Define' }), out);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    out.hidden = true;
    try {
      const r = await call('POST', '/statistics', { name: name.value.trim(), source: source.value });
      toast('defined ' + r.statistic.name);
      await renderStatistics(main, addToWorksheet);
    } catch (e) {
      out.textContent = e.message;
      out.hidden = false;
    }
  });
  main.append(el('h2', { text: 'Statistics' }),
    el('table', { class: 'stats' },
      el('thead', {}, el('tr', {}, ['statistic', 'kind', 'description', 'breakdown', ''].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, rows)),
    form);
}
