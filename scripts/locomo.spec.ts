import { locomoDate, parseConversation, parseEvidence } from './locomo';

describe('LoCoMo reader', () => {
  it('reads session dates as UTC', () => {
    expect(locomoDate('1:56 pm on 8 May, 2023')?.toISOString()).toBe('2023-05-08T13:56:00.000Z');
    expect(locomoDate('12:05 am on 1 January, 2024')?.toISOString()).toBe('2024-01-01T00:05:00.000Z');
    expect(locomoDate('sometime')).toBeNull();
  });

  it('parses evidence leniently and reports what it skipped', () => {
    const known = new Set(['D8:6', 'D9:17', 'D11:26', 'D1:3']);
    expect(parseEvidence(['D8:6; D9:17'], known)).toEqual({ ids: ['D8:6', 'D9:17'], skipped: [] });
    expect(parseEvidence(['D:11:26'], known)).toEqual({ ids: ['D11:26'], skipped: [] });
    expect(parseEvidence(['D', 'D10:19', 'D1:3'], known)).toEqual({ ids: ['D1:3'], skipped: ['D', 'D10:19'] });
    expect(parseEvidence([], known)).toEqual({ ids: [], skipped: [] });
  });

  it('turns dialogue into keyed memories and counts bad turns and dates', () => {
    const parsed = parseConversation({
      sample_id: 'conv-x',
      conversation: {
        speaker_a: 'A',
        session_2_date_time: 'bad date',
        session_2: [{ speaker: 'Bo', dia_id: 'D2:1', text: 'Later' }],
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: [
          { speaker: 'Al', dia_id: 'D1:1', text: 'Look', blip_caption: 'a photo of a dog' },
          { speaker: 'Al', dia_id: 'oops', text: 'bad id' },
        ],
      },
      qa: [{ question: 'Q?', evidence: ['D1:1'], category: 4 }],
    });
    expect(parsed.turns.map((t) => [t.key, t.content, t.session])).toEqual([
      ['turn_d1_1', 'Al: Look [shared an image: a photo of a dog]', 1],
      ['turn_d2_1', 'Bo: Later', 2],
    ]);
    expect(parsed.skipped).toEqual({ turns: 1, dates: 1 });
    expect(parsed.qa).toHaveLength(1);
  });
});
