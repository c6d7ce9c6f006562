import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Inject, Injectable } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { TenantDb, WebhooksRepository, type WebhookDeliveryStatus } from '@engram/db';
import { webhookRetryDelayMs } from '@engram/queues';
import { guardedLookup, literalProblem } from './webhook-url';

/** What one attempt did: `skipped` when the delivery was gone or no longer pending (a duplicate job). */
export interface AttemptOutcome {
  status: WebhookDeliveryStatus | 'skipped';
  /** The attempt's number (1-based), 0 when skipped. */
  attempt: number;
  statusCode: number | null;
  error: string | null;
}

/** The most of a receiver's answer kept in `last_error` (characters). */
const ERROR_BODY_CHARS = 200;

interface Answer {
  statusCode: number;
  body: string;
}

/**
 * POSTs `body` and resolves with the status and the first characters of the answer; rejects on
 * a connection error, a refused address or after `timeoutMs` in all. No redirects are followed
 * (a 3xx is a failed attempt: Standard Webhooks wants a 2xx) and no connection is reused.
 */
function post(url: URL, body: string, headers: Record<string, string>, timeoutMs: number, guard: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
        ...(guard ? { lookup: guardedLookup } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < ERROR_BODY_CHARS) text += chunk;
        });
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body: text.slice(0, ERROR_BODY_CHARS) }));
        res.on('error', reject);
      },
    );
    req.on('error', (error: Error) => reject(error.name === 'TimeoutError' || error.name === 'AbortError' ? new Error(`no answer within ${timeoutMs} ms`) : error));
    req.end(body);
  });
}

/**
 * One attempt of one webhook delivery (docs/webhooks.md), the same in the worker's `webhooks`
 * queue and in-process: reloads the delivery and its endpoint, skips it unless still pending,
 * POSTs the stored payload signed per Standard Webhooks (`standardwebhooks`: headers
 * `webhook-id` = the delivery id, the same on every attempt; `webhook-timestamp`, this
 * attempt's Unix seconds; `webhook-signature`, `v1,<base64 HMAC-SHA256 of id.timestamp.body>`)
 * within `WEBHOOK_TIMEOUT_MS`, and records the attempt: a 2xx succeeds; anything else is retried
 * after `WEBHOOK_BACKOFF_MS × 2^(n−1)` until the `WEBHOOK_MAX_ATTEMPTS`-th attempt fails it.
 * A disabled endpoint fails its deliveries at once (a tenant may retry them once it is enabled).
 * The address is checked again here, at every connection (SSRF), unless
 * `WEBHOOK_ALLOW_PRIVATE_URLS`. No transaction is held while the receiver answers.
 *
 * The signature's timestamp is the wall clock, not the app's Clock: receivers check it against
 * theirs (Standard Webhooks allows 5 minutes).
 */
@Injectable()
export class WebhookDeliverer {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly webhooks: WebhooksRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** @throws what the database throws (the attempt is then not recorded and runs again) */
  async attempt(tenantId: string, deliveryId: string): Promise<AttemptOutcome> {
    const d = await this.tenantDb.run(tenantId, (tx) => this.webhooks.findForAttempt(tx, deliveryId));
    if (!d || d.status !== 'pending') return { status: 'skipped', attempt: 0, statusCode: null, error: null };
    const attempt = d.attempts + 1;
    let ok = false;
    let statusCode: number | null = null;
    let error: string | null = null;
    let final = attempt >= this.config.WEBHOOK_MAX_ATTEMPTS;
    if (!d.enabled) {
      error = 'the endpoint is disabled';
      final = true;
    } else {
      const url = new URL(d.url);
      const refused = literalProblem(url, this.config.WEBHOOK_ALLOW_PRIVATE_URLS);
      if (refused) {
        error = `refused: ${refused}`;
      } else {
        const body = JSON.stringify(d.payload);
        const sentAt = new Date();
        const headers = {
          'content-type': 'application/json',
          'user-agent': 'Engram-Webhooks/1',
          'webhook-id': d.id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': new Webhook(d.secret).sign(d.id, sentAt, body),
        };
        try {
          const answer = await post(url, body, headers, this.config.WEBHOOK_TIMEOUT_MS, !this.config.WEBHOOK_ALLOW_PRIVATE_URLS);
          statusCode = answer.statusCode;
          ok = statusCode >= 200 && statusCode < 300;
          if (!ok) error = `HTTP ${statusCode}${answer.body ? `: ${answer.body}` : ''}`;
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
        }
      }
    }
    const status: WebhookDeliveryStatus = ok ? 'succeeded' : final ? 'failed' : 'pending';
    await this.tenantDb.run(tenantId, (tx) =>
      this.webhooks.recordAttempt(tx, deliveryId, { status, statusCode, error, retryInSeconds: webhookRetryDelayMs(this.config, attempt) / 1000 }),
    );
    return { status, attempt, statusCode, error };
  }
}
