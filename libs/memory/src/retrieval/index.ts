export * from './hybrid-rank';
