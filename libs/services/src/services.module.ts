import { Global, Module } from '@nestjs/common';
import { AccessRecorder } from './access-recorder.service';
import { VectorIndexing } from './vector-indexing';
import { ConversationStream } from './conversation-stream.service';
import { EpisodeConsolidation } from './episode-consolidation.service';
import { FactConsolidation } from './fact-consolidation.service';
import { HybridSearch } from './hybrid-search.service';
import { LifecycleSettings } from './lifecycle-settings.service';
import { MemoryWriter } from './memory-writer.service';
import { MindAccess } from './mind-access';
import { WebhookQueue } from '@engram/queues';
import { WebhookDeliverer, WebhookDispatch, WebhookOutbox } from './webhooks';

const services = [AccessRecorder, VectorIndexing, LifecycleSettings, MindAccess, WebhookQueue, WebhookDeliverer, WebhookDispatch, WebhookOutbox, MemoryWriter, HybridSearch, FactConsolidation, EpisodeConsolidation, ConversationStream];

/**
 * The domain services both apps use (docs/design.md §1): tenant lifecycle settings, the one
 * memory writer with its webhook outbox and the deliveries' dispatch, hybrid search and the
 * conversation stream. Needs DbModule, EmbeddingsModule, LlmModule and ConfigModule (all global).
 */
@Global()
@Module({ providers: services, exports: services })
export class ServicesModule {}
