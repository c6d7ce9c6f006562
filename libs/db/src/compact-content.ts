import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/**
 * The compressed form of a cold or archived memory's full text (docs/design.md §5 tiers): brotli, tuned
 * for text. A memory's text is at most 32 KiB, so a 64 KiB window loses nothing, and it makes
 * each call ~0.1 ms instead of ~5 ms with the default 4 MiB window (measured on 400-byte texts).
 */
export function compressContent(content: string): Buffer {
  const bytes = Buffer.from(content, 'utf8');
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: 9,
      [constants.BROTLI_PARAM_LGWIN]: 16,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/** The full text back from {@link compressContent}'s bytes (`pg` gives a Buffer, PGlite a Uint8Array). */
export function inflateContent(bytes: Uint8Array): string {
  return brotliDecompressSync(bytes).toString('utf8');
}

/**
 * Makes compaction invisible to readers: any result row that carries a non-null `content_z`
 * gets `content` = its inflated full text (and `content_z` = null), so the API, recall, the
 * version history and the embedder always see the whole memory, whatever its tier. A query has
 * to select `content_z` with `content` for this to apply (MEMORY_COLUMNS does).
 */
export class CompactContentPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const { rows } = args.result;
    for (const row of rows) {
      const z = row['content_z'];
      if (z instanceof Uint8Array) {
        row['content'] = inflateContent(z);
        row['content_z'] = null;
      }
    }
    return args.result;
  }
}
