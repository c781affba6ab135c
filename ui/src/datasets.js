// The datasets view: every dataset's state, size and cost, with suspend,
// resume and destroy, and the agent's events.
import { call, dsPath } from './api.js';
import { el, clear, fmtBytes, fmtNum } from './util.js';
import { toast } from './state.js';
import { agentEvents } from './alerts.js';

export async function renderDatasets(main) {
  const [dl, ev] = await Promise.all([call('GET', '/datasets'), call('GET', '/events')]);
  clear(main);
  const rows = (dl.datasets || []).map((d) => el('tr', { 'data-name': d.name },
    el('td', {}, el('details', {}, el('summary', { text: d.name }),
      el('p', { text: d.explanation || '' }), d.program ? el('pre', { class: 'program', text: d.program }) : el('p', { text: 'static: read from kernel counters' }))),
    el('td', { class: 'state', text: d.state }),
    el('td', { class: 'num', text: fmtBytes(d.incore) }),
    el('td', { class: 'num', text: fmtBytes(d.ondisk) }),
    el('td', { class: 'num', text: d.events_per_second ? fmtNum(d.events_per_second) : '-' }),
    el('td', { class: 'num', text: d.ns_per_event ? d.ns_per_event.toFixed(0) : '-' }),
    el('td', { class: 'actions' }, actions(d, main))));
  main.append(el('h2', { text: 'Datasets' }),
    el('table', { class: 'datasets' },
      el('thead', {}, el('tr', {}, ['dataset', 'state', 'in core', 'on disk', 'events/s', 'ns/event', ''].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, rows)),
    el('h2', { text: 'Events' }), agentEvents(ev.events || []),
    el('p', { class: 'hint' }, 'Thresholds and their alerts: ', el('a', { href: '#/alerts', text: 'Alerts' }), '.'));
}

function actions(d, main) {
  const act = async (method, body, what) => {
    try {
      await call(method, dsPath(d.name), body);
      toast(what + ' ' + d.name);
      await renderDatasets(main);
    } catch (e) {
      toast(e.message, true);
    }
  };
  const destroy = el('button', { type: 'button', class: 'danger', text: 'Destroy' });
  destroy.addEventListener('click', () => {
    if (destroy.dataset.armed) act('DELETE', undefined, 'destroyed');
    else { destroy.dataset.armed = '1'; destroy.textContent = 'Really destroy?'; }
  });
  return [d.suspended
    ? el('button', { type: 'button', text: 'Resume', onclick: () => act('PUT', { suspended: false }, 'resumed') })
    : el('button', { type: 'button', text: 'Suspend', onclick: () => act('PUT', { suspended: true }, 'suspended') }),
  destroy];
}
