import fc from 'fast-check';
import { parseDuration } from './duration';
import { provenanceOf } from './provenance';
import { normalizeTag, normalizeTags } from './tags';

describe('normalizeTags (seed 002: lower case, case-insensitive)', () => {
  it('lower-cases, trims, drops blanks and duplicates, keeps first-seen order', () => {
    expect(normalizeTags([' Docker', 'docker', 'SWARM', '', '  ', 'swarm '])).toEqual(['docker', 'swarm']);
  });

  it('composes (NFC): a tag typed precomposed or decomposed is one tag, and either filter finds it', () => {
    expect(normalizeTags(['re\u0301sume\u0301', 'r\u00e9sum\u00e9', 'RE\u0301SUME\u0301'])).toEqual(['r\u00e9sum\u00e9']);
    expect(normalizeTag('Re\u0301sume\u0301 ')).toBe('r\u00e9sum\u00e9');
    expect(normalizeTag('\u1100\u1161')).toBe('\uac00');
  });

  it('is idempotent, and a tag filter normalised the same way matches its stored tag', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 30 }), (tags) => {
        const once = normalizeTags(tags);
        expect(normalizeTags(once)).toEqual(once);
        for (const tag of tags) if (tag.trim()) expect(once).toContain(normalizeTag(tag.toUpperCase()).toLowerCase());
      }),
    );
  });
});

describe('parseDuration', () => {
  it.each([
    ['30m', 30 * 60_000],
    ['12h', 12 * 3_600_000],
    ['7d', 7 * 86_400_000],
    ['2w', 14 * 86_400_000],
  ])('%s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '7', 'd', '0d', '-1d', '7 d', '1.5h', '7days', '7D', '9999999d'])('rejects %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );
});

describe('provenanceOf (seed 002: source, verified, confidence)', () => {
  it('defaults: a person is verified at 1.0, an agent unverified at 0.7', () => {
    expect(provenanceOf('user', undefined)).toEqual({ source: 'user', verified: true, confidence: 1 });
    expect(provenanceOf('agent', undefined)).toEqual({ source: 'agent', verified: false, confidence: 0.7 });
    expect(provenanceOf('agent', 0.5)).toEqual({ source: 'agent', verified: false, confidence: 0.5 });
  });

  it('new content belongs to its writer; unchanged content keeps its author and never loses verification', () => {
    const prov = fc.record({ source: fc.constantFrom('user' as const, 'agent' as const), verified: fc.boolean(), confidence: fc.double({ min: 0, max: 1, noNaN: true }) });
    fc.assert(
      fc.property(fc.constantFrom('user' as const, 'agent' as const), fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }), prov, fc.boolean(), (writer, confidence, previous, unchanged) => {
        const next = provenanceOf(writer, confidence, { ...previous, contentUnchanged: unchanged });
        if (unchanged) {
          expect(next.source).toBe(previous.source);
          if (previous.verified) expect(next.verified).toBe(true);
          expect(next.confidence).toBe(confidence ?? previous.confidence);
        } else {
          expect(next).toEqual(provenanceOf(writer, confidence));
        }
        if (writer === 'user') expect(next.verified).toBe(true);
      }),
    );
  });
});
