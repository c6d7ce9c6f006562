import { readFileSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser } from './support/browser';
import { chartJsFile } from '../apps/api/src/inspector/inspector';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { fixtureWriter, setMemoryState } from './support/memory-fixtures';
import { ownerQuery } from './support/test-db';

/** Debian's chromium (`apt-get install chromium`); scripts/test-services.sh checks it is there. */
const PASSWORD = 'correct horse battery'; // what createTenant registers with

interface Seeded {
  id: string;
  key: string;
  layer: string;
  tier: string;
}

async function store(t: TestApp, f: TenantFixture, key: string, importance: number, extra: Record<string, unknown> = {}): Promise<Seeded> {
  const res = await t
    .http()
    .post('/v1/memory')
    .set(asUser(f))
    .send({ category: 'fact', key, content: `The ${key.replace(/_/g, ' ')} is worth remembering.`, importance, ...extra })
    .expect(201);
  return { id: res.body.id, key, layer: res.body.layer, tier: res.body.tier };
}

// The memory inspector at /inspector: a static page (strict CSP, no inline script) that signs in
// as a user, shows a mind's counts per layer and tier (GET /v1/memory/stats), lists memories with
// filters and plots one memory's retention card with chart.js.
describe('memory inspector (/inspector)', () => {
  let t: TestApp;
  let f: TenantFixture;
  let other: TenantFixture;
  let owner: ReturnType<typeof ownerQuery>;
  const seeded: Record<string, Seeded> = {};

  beforeAll(async () => {
    t = await startTestApp();
    owner = ownerQuery(t.db);
    f = await createTenant(t, 'inspector');
    other = await createTenant(t, 'inspector-other');
    seeded.deadline = await store(t, f, 'project_deadline', 0.9, { tags: ['work', 'q3'] });
    seeded.coffee = await store(t, f, 'coffee_order', 0.7, { tags: ['food'] });
    seeded.weather = await store(t, f, 'weather_today', 0.3, { tags: ['chatter'] });
    seeded.passing = await store(t, f, 'passing_remark', 0.2);
    // Another tenant's memories must never show up in the counts.
    for (const key of ['foreign_one', 'foreign_two', 'foreign_three']) {
      await t.http().post('/v1/memory').set(asUser(other)).send({ category: 'note', key, content: 'foreign', importance: 0.9 }).expect(201);
    }
    // One reviewed memory (a review done 1 h ago, two due), moved to the warm tier by hand.
    const hours = (h: number) => new Date(Date.now() + h * 3_600_000);
    await setMemoryState(fixtureWriter(t.app), f, seeded.deadline!.id, {
      tier: 'warm',
      review_count: 1,
      last_reviewed: hours(-1),
      review_schedule: [hours(-2), hours(20), hours(72)],
      next_review: hours(20),
    });
    seeded.deadline!.tier = 'warm';
    // One link of the association graph, as the association job would write it.
    await owner(
      `insert into memory_associations (tenant_id, mind_id, memory_id, target_id, relation, weight) values ($1, $2, $3, $4, 'similar_to', 0.8)`,
      [f.tenantId, f.mindId, seeded.deadline!.id, seeded.coffee!.id],
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  it('seeds memories in every layer', () => {
    expect([seeded.deadline!.layer, seeded.coffee!.layer, seeded.weather!.layer, seeded.passing!.layer]).toEqual([
      'long_term',
      'short_term',
      'working',
      'working',
    ]);
  });

  describe('over HTTP', () => {
    it('serves the page, its script and style, and chart.js with their content types and a strict CSP', async () => {
      const page = await t.http().get('/inspector').expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('<canvas id="retention-chart"');
      expect(page.text).toContain('src="/inspector/assets/chart.umd.min.js"');
      expect(page.text).not.toMatch(/<script>|<style|style="/);
      const csp = page.headers['content-security-policy'] as string;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      await t.http().get('/inspector/').expect(200).expect('Content-Type', /^text\/html/);

      await t.http().get('/inspector/inspector.js').expect(200).expect('Content-Type', /^(text|application)\/javascript/);
      await t.http().get('/inspector/inspector.css').expect(200).expect('Content-Type', /^text\/css/);
      const chart = await t.http().get('/inspector/assets/chart.umd.min.js').expect(200).expect('Content-Type', /^text\/javascript/);
      expect(chart.text.length).toBe(statSync(chartJsFile()).size);
      expect(chart.text).toBe(readFileSync(chartJsFile(), 'utf8'));
      expect(chart.headers['x-content-type-options']).toBe('nosniff');
    });

    it('serves only its static files: not its TypeScript, not anything else', async () => {
      await t.http().get('/inspector/inspector.ts').expect(404);
      await t.http().get('/inspector/../create-app.ts').expect(404);
      await t.http().get('/inspector/assets/chart.cjs').expect(404);
      await t.http().get('/inspector/nothing-here.js').expect(404).expect('Content-Type', /json/);
    });

    it('GET /v1/memory/stats counts the mind\'s memories per layer and tier, for the mind only', async () => {
      const res = await t.http().get('/v1/memory/stats').set(asUser(f)).expect(200);
      expect(res.body).toEqual({
        mind_id: f.mindId,
        total: 4,
        by_layer: { working: 2, short_term: 1, long_term: 1 },
        by_tier: { hot: 3, warm: 1, cold: 0, archive: 0 },
        forgotten: 0,
        expired: 0,
        associations: { links: 1, unlinked: 4 },
        as_of: expect.any(String),
      });
      // The mind's agent sees the same; the other tenant sees its own three.
      expect((await t.http().get('/v1/memory/stats').set(asAgent(f)).expect(200)).body.total).toBe(4);
      const theirs = await t.http().get('/v1/memory/stats').set(asUser(other)).expect(200);
      expect(theirs.body).toMatchObject({ total: 3, by_layer: { long_term: 3 } });
      // Another tenant's mind answers 404, like one that does not exist; no mind, 400; no token, 401.
      await t.http().get('/v1/memory/stats').set(asUser(f, other.mindId)).expect(404);
      await t.http().get('/v1/memory/stats').set({ Authorization: `Bearer ${f.token}` }).expect(400);
      await t.http().get('/v1/memory/stats').expect(401);
      // Counting is not an access.
      const [row] = await owner<{ access_count: number }>('select access_count from memories where id = $1', [seeded.coffee!.id]);
      expect(row?.access_count).toBe(0);
    });

    it('GET /v1/memory filters by layer and tier', async () => {
      const longTerm = await t.http().get('/v1/memory?layer=long_term').set(asUser(f)).expect(200);
      expect(longTerm.body.items.map((m: { key: string }) => m.key)).toEqual(['project_deadline']);
      const working = await t.http().get('/v1/memory?layer=working&tier=hot').set(asUser(f)).expect(200);
      expect(working.body.items.map((m: { key: string }) => m.key).sort()).toEqual(['passing_remark', 'weather_today']);
      const warm = await t.http().get('/v1/memory?tier=warm').set(asUser(f)).expect(200);
      expect(warm.body.items.map((m: { key: string }) => m.key)).toEqual(['project_deadline']);
      const bad = await t.http().get('/v1/memory?layer=forever').set(asUser(f)).expect(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'layer' })]);
    });
  });

  describe('in a real headless chromium', () => {
    const served = useBrowser(() => t.app);

    it('signs in, picks the mind, shows the counts, opens a memory and draws its retention curve', async () => {
      const page = await served.browser().newPage({ viewport: { width: 1200, height: 1400 } });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });

      await page.goto(`${served.base()}/inspector`);
      await page.getByLabel('E-mail').fill(f.email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Wrong e-mail or password.').waitFor();
      problems.length = 0; // the browser logs the 401 of that attempt
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();

      await page.locator('#app-view').waitFor();
      await page.locator('#mind').selectOption(f.mindId);
      await page.locator('#stats[data-loaded="true"]').waitFor();
      await expectText(page, '#count-total', '4');
      await expectText(page, '#count-layer-long_term', '1');
      await expectText(page, '#count-layer-short_term', '1');
      await expectText(page, '#count-layer-working', '2');
      await expectText(page, '#count-tier-hot', '3');
      await expectText(page, '#count-tier-warm', '1');
      await expectText(page, '#count-tier-archive', '0');
      await expectText(page, '#count-links', '1');
      await expect(page.locator('#memories tbody tr').count()).resolves.toBe(4);

      // Filters: the long-term layer holds one memory.
      await page.locator('#filters select[name="layer"]').selectOption('long_term');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.locator('#memories tbody tr').first().waitFor();
      await expect(page.locator('#memories tbody tr').count()).resolves.toBe(1);

      await page.locator('#memories tbody tr', { hasText: 'project_deadline' }).click();
      await page.locator('#retention-chart[data-drawn="true"]').waitFor();
      await expectText(page, '#detail-layer', 'long_term');
      await expectText(page, '#detail-tier', 'warm');
      await expectText(page, '#detail-access-count', '0');
      await expect(page.locator('#detail-importance').innerText()).resolves.toMatch(/^0\.90 \(caller\)/);
      await expect(page.locator('#detail').innerText()).resolves.toContain('not an access');

      const dir = await mkdtemp(join(tmpdir(), 'engram-inspector-'));
      const shot = join(dir, 'inspector.png');
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(10_000);

      // Run in the page (the test's TypeScript has no DOM types): pixels painted on the canvas,
      // and the datasets chart.js holds for it.
      const drawn = (await page.evaluate(`(() => {
        const canvas = document.getElementById('retention-chart');
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        let blue = 0;
        for (let i = 0; i < pixels.length; i += 4) {
          if (pixels[i + 3] > 0) painted += 1;
          // The forecast line's colour (#1f6feb), give or take anti-aliasing.
          if (pixels[i + 3] > 200 && pixels[i + 2] > 200 && pixels[i] < 80 && pixels[i + 1] < 140) blue += 1;
        }
        const chart = Chart.getChart(canvas);
        return {
          width: canvas.width,
          height: canvas.height,
          painted,
          blue,
          datasets: chart ? chart.data.datasets.map((d) => ({ label: d.label, n: d.data.length, first: d.data[0], last: d.data[d.data.length - 1] })) : [],
        };
      })()`)) as {
        width: number;
        height: number;
        painted: number;
        blue: number;
        datasets: { label: string; n: number; first?: { x: number; y: number }; last?: { x: number; y: number } }[];
      };
      expect(drawn.width).toBeGreaterThan(300);
      expect(drawn.height).toBeGreaterThan(200);
      expect(drawn.painted).toBeGreaterThan(5_000);
      expect(drawn.blue).toBeGreaterThan(200);

      const card = (await t.http().get(`/v1/memory/${seeded.deadline!.id}/retention`).set(asUser(f)).expect(200)).body;
      const byLabel = (prefix: string) => drawn.datasets.find((d) => d.label.startsWith(prefix));
      expect(byLabel('retention (forecast)')).toMatchObject({ n: 121, first: { x: 0, y: expect.closeTo(card.forecast[0].retention, 3) } });
      expect(byLabel('retention (forecast)')?.last?.x).toBeCloseTo(30, 5);
      expect(byLabel('reviews done')?.n).toBe(1);
      expect(byLabel('reviews due')?.n).toBe(2);
      expect(byLabel('soft-forgetting threshold')).toMatchObject({ n: 2, first: { y: card.forgetting.soft_threshold } });
      expect(byLabel('eviction threshold')).toMatchObject({ n: 2, first: { y: card.forgetting.eviction_threshold } });
      expect(byLabel('now')).toMatchObject({ first: { x: 0 } });

      // Its links: the one to coffee_order (not in the filtered list), which a click opens; seen
      // from there, the same link was found from the other memory.
      await page.locator('#links[data-loaded="true"]').waitFor();
      await expect(page.locator('#links-table tbody tr').count()).resolves.toBe(1);
      const link = page.locator('#links-table tbody tr').first();
      await expect(link.innerText()).resolves.toMatch(/similar_to\s+0\.80\s+fact \/ coffee_order\s+The coffee order is worth remembering\./);
      await expect(link.locator('meter').getAttribute('value')).resolves.toBe('0.8');
      await link.click();
      await page.locator('#links-table tbody tr', { hasText: 'project_deadline' }).waitFor();
      await expectText(page, '#detail-title', 'fact / coffee_order');
      await expectText(page, '#detail-content', 'The coffee order is worth remembering.');
      await expect(page.locator('#links-table tbody tr').first().innerText()).resolves.toMatch(/^similar_to ←/);
      await page.locator('#links-table tbody tr').first().click();
      await expectText(page, '#detail-title', 'fact / project_deadline');

      // Browsing, plotting and following links only looked: no access was recorded.
      const rows = await owner<{ access_count: number }>('select access_count from memories where id = any($1::uuid[])', [[seeded.deadline!.id, seeded.coffee!.id]]);
      expect(rows.map((r) => r.access_count)).toEqual([0, 0]);
      // The strict CSP held: no blocked script or style, no script error.
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});

async function expectText(page: import('playwright-core').Page, selector: string, text: string): Promise<void> {
  const locator = page.locator(selector);
  await locator.filter({ hasText: new RegExp(`^${text}$`) }).waitFor({ timeout: 10_000 });
  expect((await locator.innerText()).trim()).toBe(text);
}
