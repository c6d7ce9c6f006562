export * from './queues';
export * from './embedding-demand';
export * from './webhooks';
export * from './redis-connections';
export * from './throttled-warning';
