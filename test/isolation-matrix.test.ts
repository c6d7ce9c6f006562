import { isolationMatrix } from './support/isolation-matrix';
import { startTestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

// The isolation matrix (test/support/isolation-matrix.ts) on PostgreSQL, on a database of its
// own; test/citus.test.ts runs the same matrix on a Citus cluster.
describe('isolation matrix: every route of the router table, called with foreign credentials', () => {
  isolationMatrix(async () => {
    const t = await startTestApp();
    return { t, owner: ownerQuery(t.db), close: () => t.close() };
  });
});
