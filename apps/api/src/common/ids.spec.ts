import { z } from 'zod';
import { decodeCursor, decodeKeyCursor, encodeCursor, encodeKeyCursor, isUuid, newId, ParseIdPipe } from './ids';

describe('isUuid', () => {
  it('accepts the ids this service issues and any RFC 9562 UUID, in either case', () => {
    for (const id of [newId(), crypto.randomUUID(), '0190A000-0000-7000-8000-00000000C0DE', '00000000-0000-0000-0000-000000000000']) {
      expect(isUuid(id)).toBe(true);
    }
  });

  it('refuses what is not one: other shapes, SQL, non-strings', () => {
    for (const value of ['', 'not-a-uuid', '0190a000000070008000000000000c0de', '{0190a000-0000-7000-8000-00000000c0de}', "0190a000-0000-7000-8000-00000000c0de'; drop table memories; --", 42, null, undefined]) {
      expect(isUuid(value)).toBe(false);
    }
  });
});

describe('ids in paths and cursors', () => {
  it('a path id that is not a UUID is not found; one that is comes back lower-cased', () => {
    const pipe = new ParseIdPipe('memory');
    expect(() => pipe.transform('42')).toThrow('memory not found');
    expect(pipe.transform('0190A000-0000-7000-8000-00000000C0DE')).toBe('0190a000-0000-7000-8000-00000000c0de');
  });

  it('a cursor round-trips, and a made-up one is a 400 naming cursor', () => {
    const id = newId();
    expect(decodeCursor(encodeCursor(id))).toBe(id);
    expect(() => decodeCursor('bm90LWFuLWlk')).toThrow('cursor: is not a cursor returned by this endpoint');
  });

  it('a sort-key cursor round-trips; a made-up one, or one of another shape, is a 400 naming cursor', () => {
    const shape = z.tuple([z.number(), z.string()]);
    expect(decodeKeyCursor(encodeKeyCursor([0.8312345678901234, 'similar_to']), shape)).toEqual([0.8312345678901234, 'similar_to']);
    expect(decodeKeyCursor(undefined, shape)).toBeUndefined();
    for (const bad of ['bm90LWFuLWlk', encodeKeyCursor(['x', 1]), encodeCursor(newId()), '', '%%%']) {
      expect(() => decodeKeyCursor(bad, shape)).toThrow('cursor: is not a cursor returned by this endpoint');
    }
  });
});
