// The page's state, shared by its modules. The JWT lives in sessionStorage (this tab only).

export var TOKEN_KEY = 'engram.inspector.token';
export var MIND_KEY = 'engram.inspector.mind';

export var state = {
  token: sessionStorage.getItem(TOKEN_KEY),
  mindId: null,
  cursor: null,
  filters: {},
  items: new Map(),
  // Memories reached by a link (id → short view: category, key, content), for their detail view.
  linked: new Map(),
  chart: null,
  selected: null,
  // Bumped by every new mind or filter: answers to older requests are dropped.
  generation: 0,
};
