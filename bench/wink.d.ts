// The wink packages ship no types; the benchmark uses a handful of their calls.
declare module 'wink-bm25-text-search' {
  interface Engine {
    defineConfig(config: { fldWeights: Record<string, number> }): void;
    definePrepTasks(tasks: unknown[]): void;
    addDoc(doc: Record<string, string>, id: number | string): void;
    consolidate(): void;
    search(text: string, limit?: number): [string, number][];
  }
  const bm25: () => Engine;
  export default bm25;
}
declare module 'wink-nlp-utils' {
  const nlp: { string: Record<string, unknown>; tokens: Record<string, unknown> };
  export default nlp;
}
