export * from './app-error';
export * from './memory-scope';
export * from './mind-access';
export * from './lifecycle-settings.service';
export * from './memory-writer.service';
export * from './hybrid-search.service';
export * from './conversation-stream.service';
export * from './services.module';
