import fc from 'fast-check';
import { CORRECTED_QUOTE_MAX, correctedLine, subjectlessCorrection, withCorrectedLine } from './correction';

describe('subjectlessCorrection', () => {
  it.each([
    ['Actually, it is 20mg now, not 10.', ['10mg', '10']],
    ["No, it's 20mg, not 10mg!", ['10mg']],
    ['Sorry, I meant 40, not 14', ['14']],
    ['Make that 7:30, not 7:45.', ['7:45']],
    ['Oops, 2027-03-14, not 2027-03-13', ['2027-03-13']],
  ])('%s names only values: the old one is looked for', (text, probes) => {
    expect(subjectlessCorrection(text)?.probes).toEqual(probes);
  });

  it.each([
    'The meeting is at 3pm, not 2pm.', // names its subject: found by "meeting"
    'Actually, I live in Lisbon, not Porto.', // no digit: a place, named
    'It is 20mg now.', // says no old value
    'Wow, not bad!',
  ])('%s is not one', (text) => {
    expect(subjectlessCorrection(text)).toBeNull();
  });
});

describe('correctedLine', () => {
  const at = (d: string) => new Date(d);
  const correction = subjectlessCorrection('Actually, it is 20mg now, not 10.')!;

  it('is the latest statement holding the old value, its own line of a chunk', () => {
    const line = correctedLine(
      [
        { content: 'user: I took 10mg of melatonin once.', occurred_at: at('2026-10-01') },
        { content: 'user: I work as a nurse.\nuser: My doctor put me on atorvastatin 10mg for cholesterol.', occurred_at: at('2026-11-01') },
        { content: 'user: I have 2 cats.', occurred_at: at('2026-11-10') },
      ],
      correction,
    );
    expect(line).toBe('user: My doctor put me on atorvastatin 10mg for cholesterol.');
  });

  it('prefers the old value with its unit: ten cats said later are not the dose', () => {
    const line = correctedLine(
      [
        { content: 'user: My doctor put me on atorvastatin 10mg for cholesterol.', occurred_at: at('2026-11-01') },
        { content: 'user: We now have 10 cats at home.', occurred_at: at('2026-11-15') },
      ],
      correction,
    );
    expect(line).toBe('user: My doctor put me on atorvastatin 10mg for cholesterol.');
    expect(correctedLine([{ content: 'user: We now have 10 cats at home.', occurred_at: at('2026-11-15') }], correction)).toBe('user: We now have 10 cats at home.');
  });

  it('reads a time or a date as one value', () => {
    const time = subjectlessCorrection('Make that 7:30, not 7:45.')!;
    expect(correctedLine([{ content: 'user: My train leaves at 7:45 tomorrow.', occurred_at: at('2026-11-01') }, { content: 'user: 45 minutes at 7 am', occurred_at: at('2026-11-02') }], time)).toBe('user: My train leaves at 7:45 tomorrow.');
  });

  it('is undefined when nothing said before holds the old value', () => {
    expect(correctedLine([{ content: 'user: I have 100 cats and 10mg.', occurred_at: at('2026-11-10') }], subjectlessCorrection('Sorry, I meant 40, not 10')!)).toBeUndefined();
    expect(correctedLine([{ content: 'user: I have 2 cats.', occurred_at: at('2026-11-10') }], correction)).toBeUndefined();
  });

  it('never quotes more than its bound (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 80 }), (words) => {
        const content = `user: dose 10mg ${words.join(' ')}`;
        const line = correctedLine([{ content, occurred_at: at('2026-11-01') }], correction) as string;
        expect(line.length).toBeLessThanOrEqual(CORRECTED_QUOTE_MAX + 1);
        expect(withCorrectedLine('user: Actually, it is 20mg now, not 10.', line)).toContain('(correcting: user: dose 10mg');
      }),
    );
  });
});
