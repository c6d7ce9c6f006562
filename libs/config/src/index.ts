export * from './config.schema';
export * from './load-config';
export * from './config.module';
export * from './clock';
export * from './redis-url';
