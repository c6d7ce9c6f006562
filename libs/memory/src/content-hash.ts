import { createHash } from 'node:crypto';

/** SHA-256 (hex) of a memory's content: seed 000's `content_hash`, used to spot unchanged writes and duplicates. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}
