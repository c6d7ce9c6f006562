/** What the deployment checks share: the problems found so far, and reading parsed YAML. */

/** Every problem found, `<file>: <message>`; validate-deploy.ts prints them and exits 1. */
export const problems: string[] = [];
export const fail = (where: string, message: string) => problems.push(`${where}: ${message}`);

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const get = (o: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((cur, key) => (cur === null || cur === undefined ? undefined : (cur as Record<string | number, unknown>)[key]), o);
