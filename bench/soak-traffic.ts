/**
 * The soak's traffic (issue 8 §7): the mix of request kinds, the minds it runs in, and one
 * request of each kind, timed and checked against the statuses it may have.
 */
export const KINDS = ['upsert', 'conversation', 'get', 'search', 'recall', 'list', 'delete'] as const;
export type Kind = (typeof KINDS)[number];
/** Share of each kind in the mix (sums to 1): writes and reads as an agent spends them. */
export const MIX: Record<Kind, number> = { upsert: 0.25, conversation: 0.1, get: 0.2, search: 0.2, recall: 0.08, list: 0.1, delete: 0.07 };
/** Keys per mind for keyed upserts: re-storing them makes updates and unchanged answers too. */
const KEYS_PER_MIND = 400;
const WORDS = 'budget flight berlin lisbon tokyo invoice meeting sister hiking piano server migration garden recipe deadline coffee review contract puppy marathon'.split(' ');

export interface Mind {
  auth: Record<string, string>;
  ids: Map<number, string>;
  deletes: number;
}

export class Recorder {
  readonly ms = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  readonly errors = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
  readonly samples: string[] = [];

  fail(kind: Kind, what: string): void {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
    if (this.samples.length < 20) this.samples.push(`${kind} ${what}`);
  }
}

/**
 * One request, timed and checked: an answer outside `expected` (or no answer) is an error.
 * @returns the parsed JSON body (undefined for other bodies and failures)
 */
async function send(rec: Recorder, base: string, kind: Kind, expected: number[], method: string, path: string, auth: Record<string, string>, body?: unknown) {
  const t0 = performance.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    rec.ms.get(kind)?.push(performance.now() - t0);
    if (!expected.includes(res.status)) {
      rec.fail(kind, `${method} ${path} → ${res.status}: ${text.slice(0, 200)}`);
      return undefined;
    }
    return (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as Record<string, any>) : undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  } catch (error) {
    rec.ms.get(kind)?.push(performance.now() - t0);
    rec.fail(kind, `${method} ${path} → ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Setup requests must succeed: a soak on a broken set-up measures nothing. */
async function must(base: string, method: string, path: string, auth: Record<string, string>, body?: unknown) {
  const rec = new Recorder();
  const out = await send(rec, base, 'upsert', [200, 201], method, path, auth, body);
  if (!out) throw new Error(`soak set-up failed: ${rec.samples[0] ?? `${method} ${path}`}`);
  return out;
}

/** The minds the soak writes to, each with its own Mind Key: in registered tenants, or in `ownerToken`'s. */
export async function createMinds(o: { url: string; tenants: number; mindsPerTenant: number; ownerToken?: string }): Promise<Mind[]> {
  const owners: Record<string, string>[] = [];
  if (o.ownerToken) owners.push({ Authorization: `Bearer ${o.ownerToken}` });
  else {
    for (let t = 0; t < o.tenants; t++) {
      const reg = await must(o.url, 'POST', '/v1/auth/register', {}, { email: `soak-${Date.now()}-${t}@engram.local`, password: 'soak password 1234', tenant_name: `soak ${t}` });
      owners.push({ Authorization: `Bearer ${reg.token as string}` });
    }
  }
  const minds: Mind[] = [];
  for (const [t, owner] of owners.entries()) {
    for (let m = 0; m < o.mindsPerTenant; m++) {
      const mind = await must(o.url, 'POST', '/v1/minds', owner, { name: `soak ${t}.${m} ${Date.now()}` });
      const key = await must(o.url, 'POST', `/v1/minds/${mind.id as string}/keys`, owner, {});
      minds.push({ auth: { Authorization: `Bearer ${key.key as string}` }, ids: new Map(), deletes: 0 });
    }
  }
  return minds;
}

/** One request of `kind` for `mind`; `r` draws the variation (seeded). */
export async function step(rec: Recorder, base: string, kind: Kind, mind: Mind, r: () => number): Promise<void> {
  const word = () => WORDS[Math.floor(r() * WORDS.length)] as string;
  const a = mind.auth;
  switch (kind) {
    case 'upsert': {
      const k = Math.floor(r() * KEYS_PER_MIND);
      const body = { category: 'fact', key: `soak_${k}`, content: `${word()} ${word()} note ${k} revision ${Math.floor(r() * 4)}`, tags: [word()] };
      const out = await send(rec, base, kind, [200, 201], 'POST', '/v1/memory', a, body);
      if (out?.id) mind.ids.set(k, out.id as string);
      return;
    }
    case 'conversation': {
      const messages = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({ speaker: 'Ana', content: `we talked about the ${word()} and the ${word()} near the ${word()}` }));
      await send(rec, base, kind, [201], 'POST', `/v1/conversations/soak-${Math.floor(r() * 20)}/messages`, a, { messages });
      return;
    }
    case 'get': {
      const ids = [...mind.ids.values()];
      if (ids.length === 0) return step(rec, base, 'upsert', mind, r);
      await send(rec, base, kind, [200], 'GET', `/v1/memory/${ids[Math.floor(r() * ids.length)] as string}`, a);
      return;
    }
    case 'search':
      await send(rec, base, kind, [200], 'GET', `/v1/memory/search?q=${word()}%20${word()}&limit=10`, a);
      return;
    case 'recall':
      await send(rec, base, kind, [200], 'GET', r() < 0.5 ? '/v1/memory/recall?limit=50' : `/v1/memory/recall?q=${word()}&max_tokens=800`, a);
      return;
    case 'list': {
      // Up to three pages, following the cursor.
      let path = '/v1/memory?limit=50';
      for (let page = 0; page < 3; page++) {
        const out = await send(rec, base, kind, [200], 'GET', path, a);
        if (!out?.next_cursor) return;
        path = `/v1/memory?limit=50&cursor=${encodeURIComponent(out.next_cursor as string)}`;
      }
      return;
    }
    case 'delete': {
      // Its own keys, so a delete never races a read of a memory it removes.
      mind.deletes += 1;
      const created = await send(rec, base, 'upsert', [201], 'POST', '/v1/memory', a, { category: 'note', key: `soak_tmp_${mind.deletes}`, content: `short-lived ${word()}` });
      if (created?.id) await send(rec, base, kind, [204], 'DELETE', `/v1/memory/${created.id as string}`, a);
    }
  }
}
