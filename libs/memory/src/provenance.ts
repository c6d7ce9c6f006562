import { DEFAULT_CONFIDENCE } from './memory.constants';

export type WriterKind = 'user' | 'agent';

/** Who stated a memory's content and how far to trust it. */
export interface Provenance {
  source: WriterKind;
  verified: boolean;
  /** 0..1 */
  confidence: number;
}

/**
 * Source, verification and confidence after a write (seed 002 "소스", "검증", "신뢰도").
 *
 * New content belongs to its writer: a person's write (JWT) is `user`, verified, confidence 1.0
 * by default; an agent's (Mind Key) is `agent`, unverified, 0.7 by default.
 * A write that leaves the content as it was keeps who stated it and how confidently (unless
 * the writer gives a confidence), and a person's write of the same content confirms it.
 *
 * @param writer who is writing
 * @param confidence the writer's confidence (0..1), if given
 * @param previous the stored memory's provenance, when this write updates one, and whether
 *   the content stays the same
 */
export function provenanceOf(
  writer: WriterKind,
  confidence: number | undefined,
  previous?: Provenance & { contentUnchanged: boolean },
): Provenance {
  if (previous?.contentUnchanged) {
    return {
      source: previous.source,
      verified: previous.verified || writer === 'user',
      confidence: confidence ?? previous.confidence,
    };
  }
  return { source: writer, verified: writer === 'user', confidence: confidence ?? DEFAULT_CONFIDENCE[writer] };
}
