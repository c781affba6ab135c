// The alerts view: the agent's thresholds with their alerts now, the
// alert events (posted, cleared, what each action did) from the alert
// service (/api/alert/v1, docs/alerts.md), and the agent's own events.
// It reads them again every few seconds while shown.
import { call, callAt, ALERT_API } from './api.js';
import { el, clear, fmtNum } from './util.js';

const REFRESH = 2000;

// condition writes what a threshold compares: "> 1000", "p99 > 5000",
// "≥ 1000: > 5 %", per key or not.
export function condition(t) {
  const op = t.type === 'inverted' ? '<' : '>';
  let what = 'value';
  if (t.percentile) what = 'p' + t.percentile;
  if (t.above !== undefined && t.above !== null) what = `events ≥ ${fmtNum(t.above)}, %`;
  return `${what} ${op} ${fmtNum(t.limit)}${t.perkey ? ' per key' : ''}`;
}

const time = (s) => (s ? s.replace(/\.\d+/, '').replace('T', ' ') : '');
const keyOf = (k) => (k && k.length ? k.join(',') : '');

// alertsNow writes a threshold's alerts that are not inactive.
function alertsNow(t) {
  if (!t.alerts || !t.alerts.length) return el('span', { class: 'muted', text: 'inactive' });
  return el('ul', { class: 'plain' }, t.alerts.map((a) => el('li', { class: 'alert-' + a.state, 'data-state': a.state },
    el('b', { text: a.state }), keyOf(a.key) ? ` [${keyOf(a.key)}]` : '', ` since ${time(a.since)}`)));
}

function thresholds(list) {
  if (!list.length) return el('p', { class: 'hint', text: 'No thresholds: POST /api/alert/v1/thresholds (docs/alerts.md).' });
  return el('table', { class: 'thresholds', 'aria-label': 'thresholds' },
    el('thead', {}, el('tr', {}, ['dataset', 'condition', 'post after / clear after / again every', 'when', 'dataset state', 'alerts now'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, list.map((t) => el('tr', { 'data-id': t.uuid, 'data-statname': t.statname, 'data-state': t.alerts && t.alerts.length ? t.alerts[0].state : 'inactive' },
      el('td', { class: 'mono', text: t.statname }),
      el('td', { text: condition(t) }),
      el('td', { class: 'num', text: `${t.minpost} s / ${t.minclear} s / ${t.frequency ? t.frequency + ' s' : 'never'}` }),
      el('td', { text: `${t.days || 'all'}${t.window_start && t.window_start !== 'none' ? ` ${t.window_start}–${t.window_end}` : ''}${t.silenced ? ' · silenced' : ''}` }),
      el('td', { text: t.dataset_state || '' }),
      el('td', {}, alertsNow(t))))));
}

// attempts summarizes what an event's actions did, each attempt listed
// under a disclosure (keyboard: Tab to it, Enter opens it).
function attempts(e) {
  const at = e.attempts || [];
  if (!at.length) return el('span', { class: 'muted', text: e.silenced && e.silenced.length ? 'silenced: ' + e.silenced.join(', ') : 'no actions' });
  const ok = at.filter((a) => a.delivered).length;
  return el('details', { 'data-event': e.uuid },
    el('summary', { text: `${ok} delivered, ${at.length - ok} failed` }),
    el('ul', { class: 'plain' }, at.map((a) => el('li', { class: a.delivered ? '' : 'error' },
      `${time(a.time)} ${a.what} ${a.handler} #${a.attempt}: ${a.delivered ? 'delivered' : 'failed'}${a.error ? ' — ' + a.error : ''}`))));
}

function events(list) {
  if (!list.length) return el('p', { class: 'hint', text: 'No alert has posted.' });
  return el('table', { class: 'alert-events', 'aria-label': 'alert events' },
    el('thead', {}, el('tr', {}, ['event', 'state', 'dataset', 'key', 'value', 'limit', 'posted', 'cleared', 'notices', 'actions'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, list.map((e) => el('tr', { 'data-event': e.uuid, 'data-threshold': e.threshold, 'data-statname': e.statname, 'data-state': e.state, class: 'alert-' + e.state },
      el('td', { class: 'mono', text: e.uuid }),
      el('td', {}, el('b', { text: e.state })),
      el('td', { class: 'mono', text: e.statname }),
      el('td', { class: 'mono', text: keyOf(e.key) }),
      el('td', { class: 'num', 'data-value': String(e.value), text: fmtNum(e.value) + (e.cleared ? ' → ' + fmtNum(e.clear_value || 0) : '') }),
      el('td', { class: 'num', text: (e.type === 'inverted' ? '< ' : '> ') + fmtNum(e.limit) }),
      el('td', { text: time(e.posted) }),
      el('td', { text: time(e.cleared) }),
      el('td', { class: 'num', text: String(e.notifications || 0) }),
      el('td', {}, attempts(e))))));
}

// agentEvents lists the agent's own events (auto-suspension and the like).
export function agentEvents(list) {
  return el('ul', { class: 'events', 'aria-label': 'agent events' }, list.slice(-100).reverse().map((e) =>
    el('li', {}, el('time', { text: e.time }), ' ', el('b', { text: e.kind }), ' ', e.dataset || '', e.message ? ': ' + e.message : '')));
}

// read fetches what the view shows: thresholds with their alerts, the
// alert events newest first, the agent's events.
async function read() {
  // The list gives each threshold with its alerts, as its own answer does.
  const [th, ev, ag] = await Promise.all([callAt(ALERT_API, 'GET', '/thresholds'), callAt(ALERT_API, 'GET', '/events'), call('GET', '/events')]);
  const evs = (ev.events || []).filter((e) => e.state !== 'test').slice().reverse();
  return { thresholds: th.thresholds || [], events: evs, agent: ag.events || [] };
}

let timer = null;

export function stopAlerts() {
  clearTimeout(timer);
  timer = null;
}

// renderAlerts shows the view in main and reads it again every REFRESH
// ms while it is shown; what changed is redrawn, keeping open
// disclosures and the focus.
export async function renderAlerts(main) {
  stopAlerts();
  let sig = '';
  const draw = (d) => {
    const s = JSON.stringify(d);
    if (s === sig) return;
    sig = s;
    const open = new Set([...main.querySelectorAll('details[open]')].map((x) => x.dataset.event));
    // A disclosure's summary that had the focus gets it back.
    const a = document.activeElement;
    const focusKey = a && a.tagName === 'SUMMARY' && main.contains(a) ? a.parentElement.dataset.event : null;
    clear(main);
    main.append(el('h2', { text: 'Thresholds' }), thresholds(d.thresholds),
      el('h2', { text: 'Alert events' }), events(d.events),
      el('h2', { text: 'Agent events' }), agentEvents(d.agent));
    main.querySelectorAll('details[data-event]').forEach((x) => { if (open.has(x.dataset.event)) x.open = true; });
    if (focusKey) {
      const again = [...main.querySelectorAll('details[data-event] > summary')].find((x) => x.parentElement.dataset.event === focusKey);
      if (again) again.focus();
    }
    main.dataset.alertsRead = String(Date.now());
  };
  draw(await read());
  const again = async () => {
    if (!main.isConnected || document.body.dataset.view !== 'alerts') return;
    try {
      if (!document.hidden) draw(await read());
    } catch {
      // the next read tries again; the view keeps what it has
    }
    if (document.body.dataset.view === 'alerts') timer = setTimeout(again, REFRESH);
  };
  timer = setTimeout(again, REFRESH);
}
