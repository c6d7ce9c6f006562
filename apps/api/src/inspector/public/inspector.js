/* Engram memory inspector: browser modules (no build step). Signs in with POST /v1/auth/login,
 * keeps the JWT in sessionStorage (this tab only) and calls the API with it and X-Mind-Id.
 * Everything from the API is shown with textContent, never as HTML. This module signs in and
 * out, picks the mind and wires the page; the others hold the state (inspector-state.js), the
 * API client (inspector-api.js), DOM helpers (inspector-dom.js), the counts and list
 * (inspector-list.js), one memory (inspector-detail.js), its chart (inspector-chart.js) and its
 * links (inspector-links.js). */
import { api, onSessionEnded } from './inspector-api.js';
import { destroyChart } from './inspector-chart.js';
import { $, showError } from './inspector-dom.js';
import { clearLinks, moreLinks } from './inspector-links.js';
import { loadList, loadStats } from './inspector-list.js';
import { MIND_KEY, TOKEN_KEY, state } from './inspector-state.js';

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
  clearLinks();
  state.linked.clear();
  await Promise.all([loadStats(), loadList(true)]);
}

// ---- wiring

onSessionEnded(signOut);
$('signin-form').addEventListener('submit', signIn);
$('signout').addEventListener('click', function () { signOut(''); });
$('mind').addEventListener('change', function (event) { selectMind(event.target.value); });
$('filters').addEventListener('submit', function (event) {
  event.preventDefault();
  $('detail').hidden = true;
  destroyChart();
  clearLinks();
  state.generation += 1;
  loadList(true);
});
$('more').addEventListener('click', function () { loadList(false); });
$('links-more').addEventListener('click', moreLinks);

if (state.token) showApp();
else showSignIn('');
