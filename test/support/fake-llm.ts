import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local server that speaks the OpenAI chat completions protocol, answering what the test says.
export function fakeLlm(answer: (prompt: string) => { status?: number; content?: string; delayMs?: number }) {
  const calls: { auth?: string; model?: string; prompt: string; response_format?: unknown }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { model: string; messages: { role: string; content: string }[]; response_format?: unknown };
      const prompt = parsed.messages.map((m) => m.content).join('\n');
      calls.push({ auth: req.headers.authorization, model: parsed.model, prompt, response_format: parsed.response_format });
      const a = answer(prompt);
      setTimeout(() => {
        res.statusCode = a.status ?? 200;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: a.content ?? '' } }] }));
      }, a.delayMs ?? 0);
    });
  });
  return {
    calls,
    start: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`))),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

