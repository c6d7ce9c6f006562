import fc from 'fast-check';
import { foldAccents } from './accents';

describe('foldAccents (the twin of engram_fold_accents)', () => {
  it('takes the accents off Latin, Vietnamese and Cyrillic letters, and writes the undecomposable ones as typed without', () => {
    expect(foldAccents('Café Müller, Straße, Hà Nội, Øresund, Łódź, Æsir, œuvre, живёт')).toBe('Cafe Muller, Strasse, Ha Noi, Oresund, Lodz, AEsir, oeuvre, живет');
  });

  it('reads full-width Latin and half-width kana as the usual letters', () => {
    expect(foldAccents('Ｐｙｔｈｏｎ ３')).toBe('Python 3');
    expect(foldAccents('ｶﾞｯｺｳ')).toBe('ガッコウ');
  });

  it('leaves Hangul, kana with their voicing marks, Han and ASCII as they are', () => {
    for (const text of ['서울에 살아요', 'がっこう ぱん', '北京', 'plain ascii 123']) expect(foldAccents(text)).toBe(text);
    // Decomposed Hangul comes back composed.
    expect(foldAccents('서울'.normalize('NFD'))).toBe('서울');
  });

  it('is idempotent and never leaves a combining diacritical mark', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const once = foldAccents(text);
        expect(foldAccents(once)).toBe(once);
        expect(/[\u0300-\u036f]/.test(once)).toBe(false);
      }),
    );
  });
});
