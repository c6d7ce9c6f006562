import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { WebhookEventType, WebhookPayload } from './webhook-events';
import type { ImportancePath, MemoryCategory, MemoryLayer, MemoryPriority, MemoryTier, MemoryType, StorageLocation, WriterKind } from '@engram/memory';

/** A timestamptz column: read as Date, written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamptz column with a database default. */
type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<Record<string, unknown>, string | undefined, string>;
type TextArray = ColumnType<string[], string[] | undefined, string[]>;


/** Who stated a memory's content (seed 002 "소스"). */
export type MemorySource = WriterKind;
export type { StorageLocation };
export type UserRole = 'owner' | 'admin' | 'member';
export type ActorType = 'user' | 'mind_key' | 'service_key' | 'system';
/** What a tenant service key may do (docs/design.md §2). */
export type ServiceKeyScope = 'minds:manage' | 'memories:read' | 'memories:write';
export type MemoryChange = 'create' | 'update' | 'verify';
/** Which path scored a memory's importance (libs/memory `ImportancePath`). */
export type ImportanceSource = ImportancePath;
/** `archived`: the memory left the vector index with its tier (re-embedded when it comes back). */
export type EmbeddingStatus = 'pending' | 'ready' | 'failed' | 'archived';

export interface TenantsTable {
  id: string;
  name: string;
  settings: Json;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface UsersTable {
  tenant_id: string;
  id: string;
  email: string;
  password_hash: string;
  role: UserRole;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface MindsTable {
  tenant_id: string;
  id: string;
  name: string;
  description: string | null;
  /** The SaaS's own id of the end user this mind remembers; unique in the tenant. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface ServiceKeysTable {
  tenant_id: string;
  id: string;
  name: string;
  scopes: ColumnType<ServiceKeyScope[], ServiceKeyScope[], ServiceKeyScope[]>;
  key_prefix: string;
  key_hash: string;
  created_by: string | null;
  created_at: GeneratedTimestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface MindKeysTable {
  tenant_id: string;
  id: string;
  mind_id: string;
  name: string;
  key_prefix: string;
  key_hash: string;
  created_by: string | null;
  created_at: GeneratedTimestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface MemoriesTable {
  tenant_id: string;
  id: string;
  mind_id: string;
  category: MemoryCategory;
  key: string;
  content: string;
  tags: TextArray;
  priority: Generated<MemoryPriority>;
  source: MemorySource;
  verified: Generated<boolean>;
  confidence: number;
  expires_at: Timestamp | null;
  occurred_at: GeneratedTimestamp;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  version: Generated<number>;
  memory_type: Generated<MemoryType>;
  layer: Generated<MemoryLayer>;
  importance_score: number | null;
  initial_retention: number | null;
  current_retention: number | null;
  strength_days: number | null;
  last_reviewed: Timestamp | null;
  review_schedule: ColumnType<Date[], Date[] | string[] | undefined, Date[] | string[]>;
  next_review: Timestamp | null;
  review_count: Generated<number>;
  access_count: Generated<number>;
  last_accessed: Timestamp | null;
  consolidation_score: number | null;
  forgotten_at: Timestamp | null;
  storage_location: Generated<StorageLocation>;
  tier: Generated<MemoryTier>;
  payload: Json;
  association_graph: Json;
  semantic_tags: TextArray;
  temporal_position: number | null;
  temporal_context: string | null;
  source_refs: TextArray;
  content_hash: string;
  /** pgvector text form `[x,y,...]`; never selected by default. */
  embedding: string | null;
  embedding_model: string | null;
  search_vector: ColumnType<string, never, never>;
  retention_at: Timestamp | null;
  importance_source: ImportanceSource | null;
  emotional_weight: number | null;
  hippocampus_dependency: Generated<number>;
  synaptic_consolidated: Generated<boolean>;
  embedding_status: Generated<EmbeddingStatus>;
  embedded_at: Timestamp | null;
  embedding_attempts: Generated<number>;
  /** In the HNSW index: the memory's mind has at least LARGE_MIND_MEMORIES (docs/design.md §6.1). */
  vector_indexed: Generated<boolean>;
  /** Cold and archived memories are compacted: `content` is the gist, `content_z` the full text. */
  compacted: Generated<boolean>;
  /** Brotli-compressed full text of a compacted memory (null when the text is its own gist). */
  content_z: Buffer | Uint8Array | null;
  /** The `expires_at` whose passing was announced to webhooks (memory.expired), once per expiry. */
  expiry_announced_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** When a repetition last said it again (a message or a save repeating it); null: never (migration 20261214000000). */
  restated_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface MemoryVersionsTable {
  tenant_id: string;
  memory_id: string;
  version: number;
  mind_id: string;
  change: MemoryChange;
  category: MemoryCategory;
  key: string;
  content: string;
  tags: string[];
  priority: MemoryPriority;
  source: MemorySource;
  verified: boolean;
  confidence: number;
  expires_at: Timestamp | null;
  // Recorded from migration 20261211000000 on: null in a version recorded before it.
  occurred_at: Timestamp | null;
  memory_type: MemoryType | null;
  payload: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  source_refs: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  temporal_context: string | null;
  temporal_position: number | null;
  // Recorded from migration 20261217000000 on: null in a version recorded before it.
  importance_score: number | null;
  actor_type: ActorType;
  actor_id: string | null;
  created_at: GeneratedTimestamp;
}

export interface MessagesTable {
  tenant_id: string;
  id: string;
  mind_id: string;
  conversation_id: string;
  /** The caller's id of the message, unique in its conversation. */
  client_id: string | null;
  role: 'user' | 'assistant' | 'system' | 'tool';
  speaker: string | null;
  content: string;
  metadata: Json;
  occurred_at: GeneratedTimestamp;
  received_at: GeneratedTimestamp;
  processed_at: Timestamp | null;
  stm_entry_id: string | null;
  importance: number | null;
  importance_source: ImportanceSource | null;
}

export interface StmEntriesTable {
  tenant_id: string;
  id: string;
  mind_id: string;
  conversation_id: string;
  content: string;
  speaker: string | null;
  message_ids: string[];
  importance: number;
  importance_source: ImportanceSource;
  emotion: number;
  association: number;
  utility: number;
  mentions: number;
  rehearsal_count: Generated<number>;
  decay_factor: number;
  entered_at: Timestamp;
  last_rehearsed_at: Timestamp;
  position: ColumnType<number, number, number>;
  chunk: ColumnType<{ items: string[]; pattern: string } | null, string | null, string | null>;
}

/** What eviction leaves of a memory (migration 20261130000000). */
export interface MemoryTombstonesTable {
  tenant_id: string;
  memory_id: string;
  mind_id: string;
  category: string;
  key: string;
  reason: 'evicted';
  retention: number | null;
  tier: string;
  importance_score: number | null;
  access_count: number;
  created_at: Timestamp;
  evicted_at: Timestamp;
}

export interface WebhookEndpointsTable {
  tenant_id: string;
  id: string;
  url: string;
  description: string | null;
  event_types: ColumnType<WebhookEventType[], WebhookEventType[], WebhookEventType[]>;
  /** `whsec_` + base64 (Standard Webhooks); in clear: every delivery is signed with it. */
  secret: string;
  enabled: Generated<boolean>;
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  tenant_id: string;
  /** The Standard Webhooks message id (`webhook-id`), the same on every attempt. */
  id: string;
  endpoint_id: string;
  event_type: WebhookEventType;
  payload: ColumnType<WebhookPayload, string, string>;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  last_status_code: ColumnType<number | null, number | null | undefined, number | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  next_attempt_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: GeneratedTimestamp;
  delivered_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The memory the event is about (`payload.data.memory_id`), generated: deliveries found by memory. */
  memory_id: ColumnType<string | null, never, never>;
}

/** The database as the application sees it (hand-written, CONVENTIONS "Layout"). */
export interface DB {
  tenants: TenantsTable;
  users: UsersTable;
  minds: MindsTable;
  mind_keys: MindKeysTable;
  service_keys: ServiceKeysTable;
  memories: MemoriesTable;
  memory_versions: MemoryVersionsTable;
  messages: MessagesTable;
  stm_entries: StmEntriesTable;
  memory_tombstones: MemoryTombstonesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type Tenant = Selectable<TenantsTable>;
export type User = Selectable<UsersTable>;
export type Mind = Selectable<MindsTable>;
export type MindKey = Selectable<MindKeysTable>;
export type ServiceKey = Selectable<ServiceKeysTable>;
export type Memory = Selectable<MemoriesTable>;
export type NewMemory = Insertable<MemoriesTable>;
export type MemoryUpdate = Updateable<MemoriesTable>;
export type MemoryVersion = Selectable<MemoryVersionsTable>;
export type Message = Selectable<MessagesTable>;
export type StmRow = Selectable<StmEntriesTable>;
export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
