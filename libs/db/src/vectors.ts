/** What a memory's vector is, or that it has none yet (the backfill embeds it). */
export interface Embedding {
  model: string;
  vector: number[] | null;
}

/** pgvector's text form of a vector: `[x,y,...]`, 7 significant digits (pgvector keeps float4). */
export function vectorLiteral(v: readonly number[]): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (v[i] === 0 ? '0' : (v[i] as number).toPrecision(7));
  return `${out}]`;
}

/** The embedding columns for a vector (ready) or its absence (pending). */
export function embeddingColumns(embedding: Embedding | undefined, now: Date) {
  if (!embedding?.vector) return { embedding: null, embedding_model: embedding?.model ?? null, embedding_status: 'pending' as const, embedded_at: null };
  return { embedding: vectorLiteral(embedding.vector), embedding_model: embedding.model, embedding_status: 'ready' as const, embedded_at: now };
}
