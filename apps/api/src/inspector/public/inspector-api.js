// The API client: the user's JWT and X-Mind-Id on every call, errors as ApiError with the API's
// message.
import { state } from './inspector-state.js';

// What a 401 to a signed-in call does; the entry script signs out (set with onSessionEnded).
var sessionEnded = function (_message) {};

export function onSessionEnded(handler) {
  sessionEnded = handler;
}

export function ApiError(status, message) {
  this.status = status;
  this.message = message;
}

export async function api(method, path, body) {
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
    if (res.status === 401 && state.token) sessionEnded('Your session has ended: sign in again.');
    throw new ApiError(res.status, data && data.message ? data.message : res.status + ' ' + res.statusText);
  }
  return data;
}
