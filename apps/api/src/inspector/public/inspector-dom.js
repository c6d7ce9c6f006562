// DOM lookups and the formatting of API values. Everything from the API is set with
// textContent, never as HTML.

export function $(id) {
  return document.getElementById(id);
}

export function text(id, value) {
  $(id).textContent = value === null || value === undefined ? '–' : String(value);
}

export function fmt(n, digits) {
  return typeof n === 'number' ? n.toFixed(digits === undefined ? 3 : digits) : '–';
}

export function when(iso) {
  if (!iso) return '–';
  var d = new Date(iso);
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

export function showError(id, error) {
  $(id).textContent = error && error.message ? error.message : String(error);
}
