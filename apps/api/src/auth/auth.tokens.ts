/** Injection token of the resolved JWT signing secret. */
export const JWT_SECRET = Symbol('JWT_SECRET');
