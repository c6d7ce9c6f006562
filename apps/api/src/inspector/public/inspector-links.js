// One memory's links (GET /v1/memory/:id/associations, not an access): relation, weight, the
// other memory; a click opens the other memory.
import { api } from './inspector-api.js';
import { $, fmt, showError } from './inspector-dom.js';
import { state } from './inspector-state.js';

var PAGE_SIZE = 50;

// The memory whose links are shown and the next page's cursor; a new memory drops older answers.
var shown = { id: null, cursor: null, open: null };

export function clearLinks() {
  shown = { id: null, cursor: null, open: null };
  $('links-table').tBodies[0].replaceChildren();
  $('links-empty').hidden = true;
  $('links-more').hidden = true;
  delete $('links').dataset.loaded;
}

// `open(id)` opens a linked memory (inspector-detail.js openMemory, passed in to keep the
// modules free of an import cycle).
export async function loadLinks(id, open) {
  clearLinks();
  shown = { id: id, cursor: null, open: open };
  await loadPage();
}

async function loadPage() {
  var id = shown.id;
  var params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (shown.cursor) params.set('cursor', shown.cursor);
  $('links-more').hidden = true;
  try {
    var page = await api('GET', '/v1/memory/' + encodeURIComponent(id) + '/associations?' + params.toString());
    if (shown.id !== id) return;
    var body = $('links-table').tBodies[0];
    page.items.forEach(function (link) {
      state.linked.set(link.memory.id, link.memory);
      body.appendChild(linkRow(link));
    });
    shown.cursor = page.next_cursor || null;
    $('links-more').hidden = !shown.cursor;
    $('links-empty').hidden = body.rows.length > 0;
    $('links').dataset.loaded = 'true';
  } catch (error) {
    showError('app-error', error);
  }
}

function linkRow(link) {
  var tr = document.createElement('tr');
  tr.dataset.id = link.memory.id;
  tr.dataset.relation = link.relation;
  tr.tabIndex = 0;
  var cells = [
    link.relation + (link.direction === 'in' ? ' ←' : ''),
    null, // the weight: a meter and its number
    link.via || '',
    link.memory.category + ' / ' + link.memory.key,
    link.memory.content,
  ];
  cells.forEach(function (value, i) {
    var td = document.createElement('td');
    if (i === 1) {
      var meter = document.createElement('meter');
      meter.min = 0;
      meter.max = 1;
      meter.value = link.weight;
      td.appendChild(meter);
      td.appendChild(document.createTextNode(' ' + fmt(link.weight, 2)));
      td.className = 'weight';
    } else {
      td.textContent = value;
    }
    if (i === 0) td.title = link.direction === 'in' ? 'found from the other memory' : 'found from this memory';
    if (i === 4) {
      td.className = 'content';
      td.title = link.memory.content;
    }
    tr.appendChild(td);
  });
  var open = shown.open;
  tr.addEventListener('click', function () { open(link.memory.id); });
  tr.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') open(link.memory.id);
  });
  return tr;
}

export function moreLinks() {
  if (shown.id && shown.cursor) loadPage();
}
