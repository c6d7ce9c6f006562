import { AppError } from '@engram/services';
import { ifMatch, requireVersion } from './version-precondition';

describe('If-Match against a memory\'s version (RFC 9110 §13.1.1)', () => {
  it('reads *, a tag, a list with spaces and empty elements, and leaves weak or foreign tags unmatched', () => {
    expect(ifMatch(undefined)).toBeUndefined();
    expect(ifMatch('*')).toEqual({ any: true });
    expect(ifMatch('"3"')).toEqual({ versions: [3] });
    expect(ifMatch(' "7" , "3",')).toEqual({ versions: [7, 3] });
    expect(ifMatch(', "2",,"a,b"')).toEqual({ versions: [2] });
    expect(ifMatch('W/"3"')).toEqual({ versions: [] });
    expect(ifMatch(['"1"', '"2"'])).toEqual({ versions: [1, 2] });
  });

  it('refuses what is no list of entity tags, naming the header', () => {
    for (const bad of ['3', '"3', '"3" x', '', ' , ', 'W/3']) {
      expect(() => ifMatch(bad)).toThrow(AppError);
      try {
        ifMatch(bad);
      } catch (e) {
        expect((e as AppError).problems[0]?.field).toBe('If-Match');
      }
    }
  });

  it('passes a matching version or *, and refuses another version or a memory that does not exist', () => {
    expect(() => requireVersion(undefined, 2)).not.toThrow();
    expect(() => requireVersion({ versions: [1, 2] }, 2)).not.toThrow();
    expect(() => requireVersion({ any: true }, 9)).not.toThrow();
    expect(() => requireVersion({ versions: [1] }, 2)).toThrow(/version 2/);
    expect(() => requireVersion({ any: true }, undefined)).toThrow(/no such memory/);
  });
});
