import type { Actor } from '@engram/db';
import type { WriterKind } from '@engram/memory';

/** Whose memories a unit of work touches, and who is acting (a person, a mind's agent, the system). */
export interface MemoryScope {
  tenantId: string;
  mindId: string;
  /** `user` for a person (JWT), `agent` for a Mind Key or a background job (seed 002 "소스"). */
  writer: WriterKind;
  actor: Actor;
  /**
   * True for a request that only looks (HTTP HEAD: a monitor, a link checker): its reads are not
   * accesses (docs/design.md §5.5), so they neither count nor reinforce. Absent: false.
   */
  looksOnly?: boolean;
}

/** The scope of background work on a mind: the system acts, as the mind's agent. */
export function systemScope(tenantId: string, mindId: string): MemoryScope {
  return { tenantId, mindId, writer: 'agent', actor: { type: 'system', id: null } };
}
