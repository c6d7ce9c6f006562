// The retention chart of one memory (chart.js, loaded by its own script tag as window.Chart).
import { state } from './inspector-state.js';
import { $, when } from './inspector-dom.js';

var HOUR_MS = 3600 * 1000;
var DAY_MS = 24 * HOUR_MS;

export function destroyChart() {
  if (state.chart) {
    state.chart.destroy();
    state.chart = null;
  }
}

// Retention at `t` (ms) on the card's curve: R_anchor · exp(−Δt_h / (24·S_eff)), flat before
// the anchor: the formula the server's forecast uses, so review points sit on the curve.
function retentionAt(card, t) {
  var anchor = card.retention_anchor;
  var hours = Math.max(0, t - Date.parse(anchor.at)) / HOUR_MS;
  return Math.min(1, Math.max(0, anchor.retention * Math.exp(-hours / (24 * card.effective_strength_days))));
}

export function drawChart(card) {
  destroyChart();
  var canvas = $('retention-chart');
  var tracked = card.forecast.length > 0 && card.retention_anchor && card.effective_strength_days;
  $('chart-empty').hidden = Boolean(tracked);
  canvas.parentElement.hidden = !tracked;
  if (!tracked) return;
  if (typeof window.Chart !== 'function') {
    $('app-error').textContent = 'The chart library did not load.';
    return;
  }
  var now = Date.parse(card.as_of);
  var days = function (t) { return (t - now) / DAY_MS; };
  var forecast = card.forecast.map(function (p) { return { x: days(Date.parse(p.at)), y: p.retention }; });
  var anchorAt = Date.parse(card.retention_anchor.at);
  var past = [];
  if (anchorAt < now) {
    for (var i = 0; i <= 24; i += 1) {
      var t = anchorAt + ((now - anchorAt) * i) / 24;
      past.push({ x: days(t), y: retentionAt(card, t) });
    }
  }
  var reviewPoint = function (r) {
    var t = Date.parse(r.at);
    return { x: days(t), y: retentionAt(card, t), at: r.at };
  };
  var done = card.review_schedule.filter(function (r) { return r.done; }).map(reviewPoint);
  var due = card.review_schedule.filter(function (r) { return !r.done; }).map(reviewPoint);
  var xs = forecast.concat(past, done, due).map(function (p) { return p.x; });
  var xMin = Math.min.apply(null, xs);
  var xMax = Math.max.apply(null, xs);
  var level = function (y) { return [{ x: xMin, y: y }, { x: xMax, y: y }]; };

  state.chart = new window.Chart(canvas, {
    type: 'line',
    data: {
      datasets: [
        { label: 'retention (forecast)', data: forecast, borderColor: '#1f6feb', backgroundColor: '#1f6feb', pointRadius: 0, borderWidth: 2, tension: 0 },
        { label: 'since last reinforcement', data: past, borderColor: '#8aa9d6', backgroundColor: '#8aa9d6', borderDash: [4, 3], pointRadius: 0, borderWidth: 2 },
        { type: 'scatter', label: 'reviews done', data: done, borderColor: '#1a7f37', backgroundColor: '#1a7f37', pointRadius: 6, pointStyle: 'circle' },
        { type: 'scatter', label: 'reviews due', data: due, borderColor: '#bf8700', backgroundColor: '#ffffff', pointRadius: 6, pointStyle: 'rectRot', borderWidth: 2 },
        { label: 'soft-forgetting threshold (' + card.forgetting.soft_threshold + ')', data: level(card.forgetting.soft_threshold), borderColor: '#d1242f', backgroundColor: '#d1242f', borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5 },
        { label: 'eviction threshold (' + card.forgetting.eviction_threshold + ')', data: level(card.forgetting.eviction_threshold), borderColor: '#6e7781', backgroundColor: '#6e7781', borderDash: [2, 3], pointRadius: 0, borderWidth: 1.5 },
        { label: 'now', data: [{ x: 0, y: 0 }, { x: 0, y: 1 }], borderColor: '#8250df', backgroundColor: '#8250df', pointRadius: 0, borderWidth: 1 },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: { type: 'linear', min: xMin, max: xMax, title: { display: true, text: 'days from now' } },
        y: { type: 'linear', min: 0, max: 1, title: { display: true, text: 'retention' } },
      },
      plugins: {
        legend: { position: 'bottom' },
        title: { display: true, text: 'Retention of ' + card.layer + ' / ' + card.tier + ' memory, 30-day forecast' },
        tooltip: {
          callbacks: {
            label: function (ctx) {
              var p = ctx.raw;
              return ctx.dataset.label + ': ' + p.y.toFixed(3) + (p.at ? ' at ' + when(p.at) : ' at ' + (p.x >= 0 ? '+' : '') + p.x.toFixed(2) + ' d');
            },
          },
        },
      },
    },
  });
  canvas.dataset.drawn = 'true';
}
