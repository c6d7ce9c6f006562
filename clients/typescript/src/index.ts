/**
 * Typed client for the Engram API: openapi-fetch over the types openapi-typescript generated from
 * the API's OpenAPI document (./schema.d.ts, from ../openapi.json; regenerate both with
 * `npm run client:generate` in the repository's root).
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';

type Schemas = components['schemas'];

/** A stored memory, as the API answers it. */
export type Memory = Schemas['MemoryViewDto_Output'];
/** The body of `POST /v1/memory` (upsert by `(category, key)`). */
export type MemoryInput = Schemas['UpsertMemoryDto'];
/** The body of `PUT /v1/memory/{id}`. */
export type MemoryUpdate = Schemas['UpdateMemoryDto'];
/** A page of memories: `{items, next_cursor}`. */
export type MemoryPage = Schemas['MemoryPageDto_Output'];
/** The answer of `GET /v1/memory/search`. */
export type SearchResult = Schemas['SearchResultDto_Output'];
/** One hit of a search: a memory with its score. */
export type SearchHit = SearchResult['items'][number];
/** A mind (an agent identity). */
export type Mind = Schemas['MindViewDto_Output'];
/** A new Mind Key: its secret `key` is shown this once. */
export type NewMindKey = Schemas['NewMindKeyDto_Output'];
/** A new tenant service key: its secret `key` is shown this once. */
export type NewServiceKey = Schemas['NewServiceKeyDto_Output'];
/** The answer of `POST /v1/auth/register`: `{token, user, tenant}`. */
export type RegisterResponse = Schemas['RegisterResponseDto_Output'];
/** The body of every error answer: `{statusCode, error, message, requestId, errors?}`. */
export type ApiError = Schemas['ApiError'];

/** The client: `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, ... typed by path. */
export type EngramClient = Client<paths, 'application/json'>;

export interface EngramClientOptions {
  /** Where the API runs, without `/v1`: e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** An agent's Mind Key (`emk_...`): acts on its own mind. */
  mindKey?: string;
  /** A person's JWT (from register or login). */
  token?: string;
  /**
   * A tenant service key (`esk_...`): a SaaS backend acting on any mind of its tenant within
   * its scopes; give `mindId` for memory calls (or use {@link EngramClientOptions.mindId} per client).
   */
  serviceKey?: string;
  /** The mind a person or a service key acts on (sent as `X-Mind-Id`); not needed with a Mind Key. */
  mindId?: string;
  /** A fetch of your own (tests, proxies, retries); the global fetch by default. */
  fetch?: ClientOptions['fetch'];
  /** More headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * A client for the API. Give it a Mind Key (agents), a JWT (people) or a service key (SaaS
 * backends), with the mind to act on for the last two, or none (register, login, probes). Every
 * call answers `{data, error, response}`: `data` typed by the path's success answer, `error` an
 * {@link ApiError}.
 *
 * @throws TypeError when given more than one of mindKey, token and serviceKey.
 */
export function createEngramClient(options: EngramClientOptions): EngramClient {
  const { baseUrl, mindKey, token, serviceKey, mindId, fetch, headers } = options;
  const given = [mindKey, token, serviceKey].filter((c) => c !== undefined);
  if (given.length > 1) {
    throw new TypeError('createEngramClient: give one of mindKey (an agent), token (a person) or serviceKey (a backend), not several');
  }
  const credential = given[0];
  return createClient<paths, 'application/json'>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    ...(fetch ? { fetch } : {}),
    headers: {
      ...headers,
      ...(credential !== undefined ? { Authorization: `Bearer ${credential}` } : {}),
      ...(mindId !== undefined ? { 'X-Mind-Id': mindId } : {}),
    },
  });
}

export default createEngramClient;
