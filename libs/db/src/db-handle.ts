/** Injection token of the open DatabaseHandle (libs/db database.ts). */
export const DATABASE_HANDLE = Symbol('DATABASE_HANDLE');

/**
 * Injection token of the vector arithmetic of exact scans on this database (libs/db
 * retrieval-sql `vectorArithmetic`): chosen once from the handle's mode, for every repository
 * that scans vectors.
 */
export const VECTOR_ARITHMETIC = Symbol('VECTOR_ARITHMETIC');
