import type { ConsolidationTrigger } from '@engram/memory';

// The shapes of the conversation stream's answers (ConversationStream; docs/api.md).

/** A message as posted to a conversation. */
export interface IncomingMessage {
  /** The caller's id of the message: a re-send of one the conversation holds is skipped. */
  client_id?: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  speaker?: string;
  content: string;
  occurred_at?: string;
  metadata?: Record<string, unknown>;
  importance?: number;
}

/** What one consolidation did: a new episodic memory, or a near-duplicate reinforced. */
export interface ConsolidationOutcome {
  stm_entry_id: string;
  memory_id: string;
  key: string;
  trigger: ConsolidationTrigger;
  status: 'created' | 'reinforced';
  score: number;
  /** How many messages the entry held (a chunk holds several). */
  messages: number;
  /**
   * With `LLM_URL` set: the keyed facts the LLM extracted from the entry and upserted (a new value
   * of a key replaces the old one; the history keeps it). Absent without an LLM or when it gave
   * nothing usable (the episode stands alone).
   */
  facts?: { memory_id: string; category: string; key: string; status: 'created' | 'updated' | 'unchanged' }[];
}

/** A message that repeated a long-term memory and reinforced it at once (it did not enter STM). */
export interface ReinforcedOutcome {
  message_id: string;
  memory_id: string;
  key: string;
}

export interface AppendResult {
  conversation_id: string;
  /** The messages this call stored, in the order sent. */
  message_ids: string[];
  /** Messages skipped: the conversation already held their client_id (or the call sent it twice). */
  duplicates: number;
  attended: number;
  rehearsed: number;
  /** Messages that repeated a long-term memory (same words, or reworded by fillers) and reinforced it. */
  reinforced: ReinforcedOutcome[];
  below_attention: number;
  discarded: number;
  consolidated: ConsolidationOutcome[];
  stm_size: number;
  stm_capacity: number;
}
