import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Queue } from 'bullmq';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { EngramMetrics, QUEUE_JOB_STATES, bearerMatches, type QueueDepth } from '@engram/metrics';
import { QueueWorkers } from './queue-workers.service';
import { WebhookWorker } from './webhook-worker.service';

/**
 * The worker's Prometheus endpoint: `GET /metrics` on a bare node:http server at
 * `HOST:WORKER_METRICS_PORT` (0: none), the worker having no HTTP otherwise. It answers the
 * memory counts, the lifecycle counters, job run times and failures, and the depth of each queue
 * (read from Redis at scrape time). With `METRICS_TOKEN` set it wants `Authorization: Bearer
 * <METRICS_TOKEN>` (else 401), like the API's.
 *
 * A port already in use is logged and the worker runs on without metrics: the queues matter
 * more than their numbers, and two workers on one machine (development, tests) then both run.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WorkerMetrics');
  private server?: Server;

  constructor(
    private readonly metrics: EngramMetrics,
    private readonly queueWorkers: QueueWorkers,
    private readonly webhookWorker: WebhookWorker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The port the server listens on; undefined when it is off or could not listen. */
  get port(): number | undefined {
    const address = this.server?.listening ? this.server.address() : null;
    return address && typeof address === 'object' ? (address as AddressInfo).port : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.readQueueDepth(() => this.queueDepth());
    if (this.config.WORKER_METRICS_PORT === 0) return;
    const server = createServer((req, res) => void this.handle(req, res));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.config.WORKER_METRICS_PORT, this.config.HOST, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.logger.warn(
        `no /metrics: cannot listen on ${this.config.HOST}:${this.config.WORKER_METRICS_PORT} (${error instanceof Error ? error.message : String(error)}); the worker runs on`,
      );
      return;
    }
    this.server = server;
    this.logger.log(`metrics at http://${this.config.HOST}:${this.port}/metrics`);
  }

  /** Before the queues close (QueueWorkers), so that no scrape reads a closed queue. */
  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // Scrapers keep connections alive; close() alone would wait for them.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private queueDepth(): Promise<QueueDepth[]> {
    const queues: [string, Queue][] = [...this.queueWorkers.queues];
    if (this.webhookWorker.queue) queues.push([this.webhookWorker.queue.name, this.webhookWorker.queue]);
    return Promise.all(queues.map(async ([queue, q]) => ({ queue, counts: await q.getJobCounts(...QUEUE_JOB_STATES) })));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return this.send(res, 404, 'text/plain; charset=utf-8', 'not found: the worker serves GET /metrics only\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { Allow: 'GET, HEAD' });
    const token = this.config.METRICS_TOKEN;
    if (token && !bearerMatches(req.headers.authorization, token)) {
      return this.send(res, 401, 'text/plain; charset=utf-8', 'unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n', { 'WWW-Authenticate': 'Bearer' });
    }
    try {
      const { contentType, body } = await this.metrics.scrape();
      this.send(res, 200, contentType, req.method === 'HEAD' ? '' : body);
    } catch (error) {
      this.logger.warn(`scrape failed: ${error instanceof Error ? error.message : String(error)}`);
      this.send(res, 500, 'text/plain; charset=utf-8', 'metrics could not be collected\n');
    }
  }

  private send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'Content-Type': contentType, ...headers }).end(body);
  }
}
