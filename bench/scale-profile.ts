/** bench:scale's `--profile`: the API's hottest functions, from the CPU profile its run wrote. */
import { readdir, readFile } from 'node:fs/promises';

const ROOT = `${__dirname}/..`;

/** The 20 functions with the most self time in the newest .cpuprofile of `dir` (V8's sampling profiler, `node --cpu-prof`). */
export async function topFunctions(dir: string): Promise<{ name: string; where: string; self_pct: number }[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const newest = files[files.length - 1];
  if (!newest) return [];
  const profile = JSON.parse(await readFile(`${dir}/${newest}`, 'utf8')) as { nodes: { callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[] };
  const self = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    total += hits;
    const where = n.callFrame.url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(`${ROOT}/`, '');
    const key = `${n.callFrame.functionName || '(anonymous)'}\u0000${where ? `${where}:${n.callFrame.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + hits);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([key, hits]) => {
      const [name, where] = key.split('\u0000') as [string, string];
      return { name, where, self_pct: +((100 * hits) / Math.max(1, total)).toFixed(1) };
    });
}
