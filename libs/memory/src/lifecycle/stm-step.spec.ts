import { DEFAULT_LIFECYCLE } from './lifecycle-config';
import { contentWords, sameStatement } from './similarity';
import { advanceStm, attend, enterStm, stmContent, type SourcedStmEntry, type StmMessage } from './stm-step';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const config = DEFAULT_LIFECYCLE;
let n = 0;
const ids = () => `id-${++n}`;
const message = (text: string, importance = 0.5, over: Partial<StmMessage> = {}): StmMessage => ({ id: ids(), speaker: 'user', text, importance: { score: importance, path: 'rules' }, ...over });

describe('the conversation stream\'s STM step (seed 000: attention, rehearsal, capacity, time rules)', () => {
  it('chatter stays below attention; a statement enters STM as `<speaker>: <text>`', () => {
    expect(attend([], message('ok', 0), T0, config)).toEqual({ kind: 'below_attention' });
    const m = message('The deployment of version two is scheduled for Friday evening');
    expect(attend([], m, T0, config)).toEqual({ kind: 'new' });
    const { buffer, entry, evicted } = enterStm([], m, 0.2, T0, config, ids);
    expect(buffer).toEqual([entry]);
    expect(evicted).toEqual([]);
    expect(entry).toMatchObject({ content: stmContent(m), message_ids: [m.id], mentions: 1, association: 0.2, importance_source: 'rules', entered_at: T0 });
  });

  it('reads Chinese and Japanese by their pairs of characters: a short statement is attended, a repeat rehearses, another place is another statement', () => {
    // As one word, an unspaced sentence had too few words for attention, and no rewording matched it.
    expect([...contentWords('我住在北京')]).toEqual(['我住', '住在', '在北', '北京']);
    expect(attend([], message('我住在北京', 0), T0, config)).toEqual({ kind: 'new' });
    expect(sameStatement('user: 我住在北京', 'user: 我住在北京。', config.consolidation.near_duplicate_similarity)).toBe(true);
    expect(sameStatement('user: 我住在北京', 'user: 我住在上海', config.consolidation.near_duplicate_similarity)).toBe(false);
  });

  it('a repeat rehearses its entry; a repeat scored higher lifts the entry and its source', () => {
    const first = message('The deployment of version two is scheduled for Friday evening');
    const { buffer } = enterStm([], first, 0, T0, config, ids);
    const again = message('The deployment of version two is scheduled for Friday evening', 0.9, { importance: { score: 0.9, path: 'llm' } });
    const seen = attend(buffer, again, new Date(T0.getTime() + 60_000), config);
    if (seen.kind !== 'rehearsal') throw new Error(`expected a rehearsal, got ${seen.kind}`);
    expect(seen.buffer[0]).toMatchObject({ mentions: 2, rehearsal_count: 1, importance: 0.9, importance_source: 'llm', message_ids: [first.id, again.id] });
  });

  it('a full buffer pushes out its weakest entry, consolidated when it qualifies, and never grows past capacity', () => {
    let buffer: SourcedStmEntry[] = [];
    const out: { entry: SourcedStmEntry; consolidate: boolean }[] = [];
    // No two share a content word (the speaker's name is one: `me` is too short to count), so
    // nothing chunks: places free only by pushing an entry out.
    const topics = ['alpine glaciers retreat yearly', 'quantum error correction codes', 'sourdough starter feeding schedule', 'medieval castle sieges lasted', 'coral reef bleaching worsens', 'jazz chord voicings explained', 'volcanic soil farming yields', 'arctic fox camouflage changes', 'roman aqueduct engineering feats', 'desert night photography tips'];
    topics.forEach((topic, i) => {
      const entered = enterStm(buffer, message(topic, i === 0 ? 0.95 : 0.3, { speaker: 'me' }), 0, new Date(T0.getTime() + i * 1000), config, ids);
      buffer = entered.buffer;
      out.push(...entered.evicted);
      expect(buffer.length).toBeLessThanOrEqual(config.stm.capacity);
    });
    expect(out.length).toBe(topics.length - config.stm.capacity);
    // The important first entry (an immediate trigger) consolidates on its way out.
    expect(out.every((e) => e.consolidate === (e.entry.importance >= config.consolidation.triggers.importance))).toBe(true);
  });

  it('the time rules: an entry stays its first 30 s, an important one then consolidates, a dull one leaves after 1800 s', () => {
    const { buffer: one } = enterStm([], message('The meeting with the investors moved to Tuesday at nine', 0.9), 0, T0, config, ids);
    const { buffer } = enterStm(one, message('Some unremarkable remark about nothing in particular today', 0.1), 0, T0, config, ids);
    expect(advanceStm(buffer, new Date(T0.getTime() + 10_000), config)).toMatchObject({ consolidate: [], discarded: 0 });
    const later = advanceStm(buffer, new Date(T0.getTime() + 60_000), config);
    expect(later.consolidate.map((c) => c.trigger)).toEqual(['importance']);
    expect(later.kept).toHaveLength(1);
    expect(advanceStm(later.kept, new Date(T0.getTime() + 1_800_000), config)).toMatchObject({ kept: [], consolidate: [], discarded: 1 });
  });
});
