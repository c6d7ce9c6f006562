export * from './webhook-url';
export * from './webhook-outbox';
export * from './webhook-deliverer';
export * from './webhook-dispatch';
