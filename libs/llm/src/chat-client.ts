import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Thrown when the chat endpoint fails, times out or answers in an unexpected shape. */
export class ChatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatError';
  }
}

/**
 * A client of any OpenAI-compatible chat completions endpoint (`LLM_URL` + `/chat/completions`,
 * `LLM_MODEL`, `LLM_API_KEY`), one attempt per call bounded by `LLM_TIMEOUT_MS`: callers on the
 * write path fall back instead of retrying.
 */
@Injectable()
export class ChatClient {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.LLM_URL !== undefined;
  }

  /** @returns the first choice's message content. @throws ChatError */
  /**
   * @param options.jsonSchema asks for structured output (`response_format: {type: 'json_schema', json_schema}`, OpenAI's protocol); the answer is still parsed leniently
   */
  async complete(messages: ChatMessage[], options: { temperature?: number; jsonSchema?: object } = {}): Promise<string> {
    const base = this.config.LLM_URL;
    if (!base) throw new ChatError('LLM_URL is not set');
    const url = `${base.replace(/\/+$/, '')}/chat/completions`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(this.config.LLM_API_KEY ? { Authorization: `Bearer ${this.config.LLM_API_KEY}` } : {}),
        },
        body: JSON.stringify({
          model: this.config.LLM_MODEL,
          messages,
          temperature: options.temperature ?? 0,
          ...(options.jsonSchema ? { response_format: { type: 'json_schema', json_schema: options.jsonSchema } } : {}),
        }),
        signal: AbortSignal.timeout(this.config.LLM_TIMEOUT_MS),
      });
    } catch (error) {
      const reason = error instanceof Error && error.name === 'TimeoutError' ? `timed out after ${this.config.LLM_TIMEOUT_MS} ms` : String(error);
      throw new ChatError(`chat endpoint unreachable: ${reason}`);
    }
    if (!res.ok) throw new ChatError(`chat endpoint answered ${res.status}`);
    const body = (await res.json().catch(() => undefined)) as { choices?: { message?: { content?: unknown } }[] } | undefined;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new ChatError('chat endpoint answered without choices[0].message.content');
    return content;
  }
}
