import { readFile, readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { QUERIES_DIR, renderSqlSnapshots, snapshotFileName } from './sql-snapshots';

// The checked-in SQL of every repository method (libs/db/queries) is what the code runs: a
// changed query must show in review, so a change that forgets `npm run sql:generate` fails here.
describe('SQL snapshots of the repositories', () => {
  it('every repository method has an example, and libs/db/queries holds exactly its SQL', async () => {
    const { files, problems } = await renderSqlSnapshots();
    expect(problems).toEqual([]);
    const onDisk = (await readdir(QUERIES_DIR)).filter((f) => f.endsWith('.sql')).sort();
    expect(onDisk).toEqual([...files.keys()].sort());
    for (const [name, content] of files) {
      const stored = await readFile(join(QUERIES_DIR, name), 'utf8');
      if (stored !== content) throw new Error(`libs/db/queries/${name} is not the SQL the code runs: run "npm run sql:generate" and commit the change`);
    }
  });

  it('names a file after its repository', () => {
    expect(snapshotFileName('MemorySweepsRepository')).toBe('memory-sweeps.repository.sql');
    expect(snapshotFileName('MindKeysRepository')).toBe('mind-keys.repository.sql');
  });
});

/** Every .ts file under `dir`, specs left out. */
async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) out.push(path);
  }
  return out;
}

describe('where SQL lives', () => {
  it('no query outside libs/db: the apps and the other libs call repositories', async () => {
    const root = resolve(__dirname, '..');
    const files = [...(await sources(join(root, 'apps'))), ...(await sources(join(root, 'libs')))].filter((f) => !f.startsWith(join(root, 'libs', 'db')));
    const query = /\bsql\s*(<[^>]*>)?\s*`|\.(selectFrom|insertInto|updateTable|deleteFrom)\(|CompiledQuery/;
    const found: string[] = [];
    for (const file of files) {
      (await readFile(file, 'utf8')).split('\n').forEach((line, i) => {
        if (query.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
