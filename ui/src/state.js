// What the views share: the statistics catalogue and the status line.
export const app = { stats: new Map() };

let timer = null;

// toast shows a status message (an error in the error colour).
export function toast(msg, error) {
  const t = document.getElementById('toast');
  t.textContent = msg;
  t.className = error ? 'show error' : 'show';
  clearTimeout(timer);
  timer = setTimeout(() => { t.className = ''; }, error ? 8000 : 3000);
}
