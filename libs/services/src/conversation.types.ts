import type { ConsolidationTrigger } from '@engram/memory';

// The shapes of the conversation stream's answers (ConversationStream; docs/api.md).

/** A message as posted to a conversation. */
export interface IncomingMessage {
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
}

export interface AppendResult {
  conversation_id: string;
  message_ids: string[];
  attended: number;
  rehearsed: number;
  below_attention: number;
  discarded: number;
  consolidated: ConsolidationOutcome[];
  stm_size: number;
  stm_capacity: number;
}
