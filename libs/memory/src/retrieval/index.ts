export * from './bm25';
export * from './hybrid-rank';
export * from './ivfflat';
export * from './variants';
export * from './korean';
