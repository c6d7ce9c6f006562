// One memory: its retention card, read without counting an access, its chart and its links.
import { api } from './inspector-api.js';
import { drawChart } from './inspector-chart.js';
import { $, fmt, showError, text, when } from './inspector-dom.js';
import { loadLinks } from './inspector-links.js';
import { state } from './inspector-state.js';

export async function openMemory(id) {
  // A memory of the list, or one reached by a link (its short view).
  var memory = state.items.get(id) || state.linked.get(id);
  state.selected = id;
  Array.prototype.forEach.call($('memories').tBodies[0].rows, function (row) {
    row.classList.toggle('selected', row.dataset.id === id);
  });
  try {
    // The retention card only looks (GET /v1/memory/:id would count as an access).
    var card = await api('GET', '/v1/memory/' + encodeURIComponent(id) + '/retention');
    if (state.selected !== id) return;
    $('detail').hidden = false;
    $('detail-title').textContent = memory ? memory.category + ' / ' + memory.key : id;
    $('detail-content').textContent = memory ? memory.content : '';
    text('detail-layer', card.layer);
    text('detail-tier', card.tier);
    text('detail-importance', card.importance_score === null ? null : fmt(card.importance_score, 2) + (card.importance_source ? ' (' + card.importance_source + ')' : ''));
    text('detail-access-count', card.access_count);
    text('detail-priority', card.priority);
    text('detail-retention', fmt(card.current_retention) + (card.forgotten_at ? ' (soft-forgotten ' + when(card.forgotten_at) + ')' : ''));
    text('detail-strength', card.effective_strength_days === null ? null : fmt(card.effective_strength_days, 2) + ' days (base ' + fmt(card.strength_days, 2) + ')');
    var done = card.review_schedule.filter(function (r) { return r.done; }).length;
    text('detail-reviews', done + ' of ' + card.review_schedule.length + ' done; next ' + when(card.next_review));
    text('detail-forgetting', card.forgetting.verdict_now + ' (soft below ' + card.forgetting.soft_threshold + ', evicted below ' + card.forgetting.eviction_threshold + ')');
    $('detail').dataset.memoryId = id;
    drawChart(card);
    $('detail').scrollIntoView({ block: 'nearest' });
    await loadLinks(id, openMemory);
  } catch (error) {
    showError('app-error', error);
  }
}
