export * from './hybrid-rank';
export * from './ivfflat';
