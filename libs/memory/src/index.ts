export * from './memory.constants';
export * from './provenance';
export * from './tags';
export * from './duration';
export * from './content-hash';
export * from './recall-format';
export * from './lifecycle';
export * from './retrieval';
