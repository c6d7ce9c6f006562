/* Engram memory inspector: a browser script (no build step). Signs in with POST /v1/auth/login,
 * keeps the JWT in sessionStorage (this tab only) and calls the API with it and X-Mind-Id.
 * Everything from the API is shown with textContent, never as HTML. */
(function () {
  'use strict';

  var TOKEN_KEY = 'engram.inspector.token';
  var MIND_KEY = 'engram.inspector.mind';
  var PAGE_SIZE = 50;
  var HOUR_MS = 3600 * 1000;
  var DAY_MS = 24 * HOUR_MS;

  var state = {
    token: sessionStorage.getItem(TOKEN_KEY),
    mindId: null,
    cursor: null,
    filters: {},
    items: new Map(),
    chart: null,
    selected: null,
    // Bumped by every new mind or filter: answers to older requests are dropped.
    generation: 0,
  };

  function $(id) {
    return document.getElementById(id);
  }

  function ApiError(status, message) {
    this.status = status;
    this.message = message;
  }

  async function api(method, path, body) {
    var headers = { Accept: 'application/json' };
    if (state.token) headers.Authorization = 'Bearer ' + state.token;
    if (state.mindId) headers['X-Mind-Id'] = state.mindId;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    var res = await fetch(path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
    var data = null;
    try {
      data = await res.json();
    } catch (e) {
      data = null;
    }
    if (!res.ok) {
      if (res.status === 401 && state.token) signOut('Your session has ended: sign in again.');
      throw new ApiError(res.status, data && data.message ? data.message : res.status + ' ' + res.statusText);
    }
    return data;
  }

  function text(id, value) {
    $(id).textContent = value === null || value === undefined ? '–' : String(value);
  }

  function fmt(n, digits) {
    return typeof n === 'number' ? n.toFixed(digits === undefined ? 3 : digits) : '–';
  }

  function when(iso) {
    if (!iso) return '–';
    var d = new Date(iso);
    return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  }

  function showError(id, error) {
    $(id).textContent = error && error.message ? error.message : String(error);
  }

  // ---- sign-in

  function showSignIn(message) {
    $('app-view').hidden = true;
    $('signout').hidden = true;
    $('whoami').textContent = '';
    $('signin-view').hidden = false;
    $('signin-error').textContent = message || '';
    $('email').focus();
  }

  function signOut(message) {
    state.token = null;
    state.mindId = null;
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(MIND_KEY);
    destroyChart();
    showSignIn(message);
  }

  async function signIn(event) {
    event.preventDefault();
    $('signin-error').textContent = '';
    try {
      var answer = await api('POST', '/v1/auth/login', { email: $('email').value.trim(), password: $('password').value });
      state.token = answer.token;
      sessionStorage.setItem(TOKEN_KEY, answer.token);
      $('password').value = '';
      await showApp();
    } catch (error) {
      showError('signin-error', error.status === 401 ? { message: 'Wrong e-mail or password.' } : error);
    }
  }

  // ---- the app

  async function showApp() {
    $('signin-view').hidden = true;
    $('app-view').hidden = false;
    $('signout').hidden = false;
    $('app-error').textContent = '';
    try {
      state.mindId = null;
      var me = await api('GET', '/v1/auth/me');
      $('whoami').textContent = me && me.user ? me.user.email : '';
      var minds = await api('GET', '/v1/minds?limit=200');
      var select = $('mind');
      select.replaceChildren();
      minds.items.forEach(function (mind) {
        var option = document.createElement('option');
        option.value = mind.id;
        option.textContent = mind.name;
        select.appendChild(option);
      });
      if (minds.items.length === 0) {
        $('app-error').textContent = 'This tenant has no minds yet.';
        return;
      }
      var remembered = sessionStorage.getItem(MIND_KEY);
      var chosen = minds.items.some(function (m) { return m.id === remembered; }) ? remembered : minds.items[0].id;
      select.value = chosen;
      await selectMind(chosen);
    } catch (error) {
      if (state.token) showError('app-error', error);
    }
  }

  async function selectMind(id) {
    state.generation += 1;
    state.mindId = id;
    sessionStorage.setItem(MIND_KEY, id);
    $('app-error').textContent = '';
    $('detail').hidden = true;
    destroyChart();
    await Promise.all([loadStats(), loadList(true)]);
  }

  async function loadStats() {
    var generation = state.generation;
    try {
      var stats = await api('GET', '/v1/memory/stats');
      if (generation !== state.generation) return;
      Object.keys(stats.by_layer).forEach(function (layer) { text('count-layer-' + layer, stats.by_layer[layer]); });
      Object.keys(stats.by_tier).forEach(function (tier) { text('count-tier-' + tier, stats.by_tier[tier]); });
      text('count-total', stats.total);
      text('count-forgotten', stats.forgotten);
      text('count-expired', stats.expired);
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

  async function loadList(reset) {
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

  // ---- one memory

  async function openMemory(id) {
    var memory = state.items.get(id);
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
    } catch (error) {
      showError('app-error', error);
    }
  }

  function destroyChart() {
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

  function drawChart(card) {
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

  // ---- wiring

  $('signin-form').addEventListener('submit', signIn);
  $('signout').addEventListener('click', function () { signOut(''); });
  $('mind').addEventListener('change', function (event) { selectMind(event.target.value); });
  $('filters').addEventListener('submit', function (event) {
    event.preventDefault();
    $('detail').hidden = true;
    destroyChart();
    state.generation += 1;
    loadList(true);
  });
  $('more').addEventListener('click', function () { loadList(false); });

  if (state.token) showApp();
  else showSignIn('');
})();
