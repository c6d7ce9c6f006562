export * from './queues';
export * from './embedding-demand';
