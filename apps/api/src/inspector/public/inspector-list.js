// The mind's counts and the browsable list of its memories (list, or search with text).
import { api } from './inspector-api.js';
import { openMemory } from './inspector-detail.js';
import { $, fmt, showError, text } from './inspector-dom.js';
import { state } from './inspector-state.js';

var PAGE_SIZE = 50;

export async function loadStats() {
  var generation = state.generation;
  try {
    var stats = await api('GET', '/v1/memory/stats');
    if (generation !== state.generation) return;
    Object.keys(stats.by_layer).forEach(function (layer) { text('count-layer-' + layer, stats.by_layer[layer]); });
    Object.keys(stats.by_tier).forEach(function (tier) { text('count-tier-' + tier, stats.by_tier[tier]); });
    text('count-total', stats.total);
    text('count-forgotten', stats.forgotten);
    text('count-expired', stats.expired);
    text('count-links', stats.associations.links);
    text('count-unlinked', stats.associations.unlinked);
    $('stats').dataset.loaded = 'true';
  } catch (error) {
    showError('app-error', error);
  }
}

function readFilters() {
  var form = $('filters');
  var tags = form.elements.tags.value
    .split(',')
    .map(function (t) { return t.trim(); })
    .filter(function (t) { return t !== ''; });
  return {
    category: form.elements.category.value,
    layer: form.elements.layer.value,
    tier: form.elements.tier.value,
    q: form.elements.q.value.trim(),
    tags: tags,
  };
}

function listUrl(filters, cursor) {
  var params = new URLSearchParams();
  if (filters.q) params.set('q', filters.q);
  ['category', 'layer', 'tier'].forEach(function (name) {
    if (filters[name]) params.set(name, filters[name]);
  });
  filters.tags.forEach(function (tag) { params.append('tag', tag); });
  params.set('limit', String(PAGE_SIZE));
  if (cursor) params.set('cursor', cursor);
  return (filters.q ? '/v1/memory/search?' : '/v1/memory?') + params.toString();
}

export async function loadList(reset) {
  var body = $('memories').tBodies[0];
  if (reset) {
    state.filters = readFilters();
    state.cursor = null;
    state.items.clear();
    body.replaceChildren();
  }
  $('more').hidden = true;
  var generation = state.generation;
  try {
    var page = await api('GET', listUrl(state.filters, state.cursor));
    if (generation !== state.generation) return;
    page.items.forEach(function (memory) {
      state.items.set(memory.id, memory);
      body.appendChild(memoryRow(memory));
    });
    // Search answers one ranked page; the list pages by cursor.
    state.cursor = page.next_cursor || null;
    $('more').hidden = !state.cursor;
    $('list-empty').hidden = state.items.size > 0;
    $('memories').dataset.loaded = 'true';
  } catch (error) {
    showError('app-error', error);
  }
}

function memoryRow(memory) {
  var tr = document.createElement('tr');
  tr.dataset.id = memory.id;
  tr.tabIndex = 0;
  [
    memory.key,
    memory.category,
    memory.layer,
    memory.tier,
    memory.priority,
    fmt(memory.current_retention),
    memory.content,
  ].forEach(function (value, i) {
    var td = document.createElement('td');
    td.textContent = value;
    if (i === 6) {
      td.className = 'content';
      td.title = memory.content;
    }
    tr.appendChild(td);
  });
  tr.addEventListener('click', function () { openMemory(memory.id); });
  tr.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') openMemory(memory.id);
  });
  return tr;
}
