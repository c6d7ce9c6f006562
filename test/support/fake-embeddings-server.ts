import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashingEmbedder } from '@engram/embeddings';

/**
 * `ok`: vectors (HashingEmbedder's unless `vectorFor` says otherwise); `down`: 503; `slow`: ok
 * after `slowMs`; `wrong-dims`: 512-d vectors; `refuse`: 400; `fail-n-times-then-ok`: `failStatus`
 * for the first `failTimes` requests, then ok; `unauthorized`: 401; `stall-body`: 200 and half a
 * body, then silence for `slowMs`.
 */
export type FakeMode = 'ok' | 'down' | 'slow' | 'wrong-dims' | 'refuse' | 'fail-n-times-then-ok' | 'unauthorized' | 'stall-body';

export interface FakeSettings {
  mode: FakeMode;
  slowMs: number;
  failTimes: number;
  failStatus: number;
  /** Answer `data` in reverse order (each item keeps its `index`). */
  shuffle: boolean;
  /** In `ok` mode: a request holding a text this matches is refused (400). */
  refuseIf?: (text: string) => boolean;
  /** In `ok` mode: the vector of a text, instead of HashingEmbedder's. */
  vectorFor?: (text: string) => number[];
  /** `Retry-After` sent with the failures of `down` and `fail-n-times-then-ok`. */
  retryAfter?: string;
}

export interface RecordedRequest {
  body: { model: string; input: string[]; dimensions?: number };
  authorization: string | undefined;
  /** When it arrived (ms since the epoch). */
  at: number;
}

const DEFAULTS: FakeSettings = { mode: 'ok', slowMs: 1000, failTimes: 0, failStatus: 503, shuffle: false };

/** A fake OpenAI-compatible `POST /v1/embeddings`, controllable per test, that records every request. */
export class FakeEmbeddingsServer {
  readonly requests: RecordedRequest[] = [];
  settings: FakeSettings = { ...DEFAULTS };
  private readonly hashing = new HashingEmbedder();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server?: Server;
  /** Base URL, `http://127.0.0.1:PORT/v1`. */
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  /** Forgets the recorded requests and applies `settings` over the defaults. */
  reset(settings: Partial<FakeSettings> = {}): void {
    this.requests.length = 0;
    this.settings = { ...DEFAULTS, ...settings };
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return this.send(res, 404, { error: { message: 'not found' } });
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'];
    this.requests.push({ body, authorization: req.headers.authorization, at: Date.now() });
    const s = this.settings;
    switch (s.mode) {
      case 'down':
        return this.send(res, 503, { error: { message: 'service unavailable' } }, s.retryAfter);
      case 'refuse':
        return this.send(res, 400, { error: { message: 'input refused' } });
      case 'unauthorized':
        return this.send(res, 401, { error: { message: 'invalid api key' } });
      case 'stall-body': {
        res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"object":"list","data":[');
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          res.destroy();
        }, s.slowMs);
        this.timers.add(timer);
        return;
      }
      case 'fail-n-times-then-ok':
        if (this.requests.length <= s.failTimes) return this.send(res, s.failStatus, { error: { message: 'try later' } }, s.retryAfter);
        break;
      case 'slow': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!res.destroyed) this.send(res, 200, this.answer(body));
        }, s.slowMs);
        this.timers.add(timer);
        return;
      }
      default:
    }
    if (s.refuseIf && body.input.some((text) => s.refuseIf?.(text))) return this.send(res, 400, { error: { message: 'input refused' } });
    this.send(res, 200, this.answer(body));
  }

  private answer(body: RecordedRequest['body']) {
    const s = this.settings;
    const vector = (text: string): number[] =>
      s.mode === 'wrong-dims' ? Array.from({ length: 512 }, (_, i) => (i === 0 ? 1 : 0)) : s.vectorFor ? s.vectorFor(text) : this.hashing.embedOne(text);
    const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: vector(text) }));
    if (s.shuffle) data.reverse();
    return { object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } };
  }

  private send(res: ServerResponse, status: number, payload: unknown, retryAfter?: string): void {
    res.writeHead(status, { 'Content-Type': 'application/json', ...(retryAfter === undefined ? {} : { 'Retry-After': retryAfter }) }).end(JSON.stringify(payload));
  }
}
