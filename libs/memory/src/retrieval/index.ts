export * from './bm25';
export * from './hybrid-rank';
export * from './variants';
export * from './korean';
export * from './websearch';
