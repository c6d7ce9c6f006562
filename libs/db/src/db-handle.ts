/** Injection token of the open DatabaseHandle (libs/db database.ts). */
export const DATABASE_HANDLE = Symbol('DATABASE_HANDLE');
