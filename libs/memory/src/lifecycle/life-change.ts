import { quoteAround } from '../visible-text';
import { CORRECTED_QUOTE_MAX, quotedLine } from './correction';

/**
 * A change of where a person lives or works, said without the old value ("I moved to Berlin last
 * week" after "I live in Paris", "I just started a new job at Globex" after "I work at Acme"):
 * the two share no word, so a search for "where does the user live" found only Paris, and nothing
 * told a model reading both which one holds (issue 15 item 4, "the newest fact wins"; its own
 * example). Kept with the line it replaces, `(previously: user: I live in Paris.)`, the new
 * statement is found by the old one's words and, quoting it, ranks before it (libs/memory
 * `newestFirstAmongVariants`). Ours; English and Korean.
 */
export type LifeTopic = 'home' | 'work';

/** A first-person statement of where one lives or works, of any time. */
const STATES: Record<LifeTopic, RegExp[]> = {
  home: [
    /\b(?:i|we)\s+(?:(?:now|still|currently|also|just|recently|finally|have|had|'ve)\s+)*(?:live|lived|living|moved|relocated|reside)\b/i,
    /\b(?:i'm|im|i am|we're|we are)\s+(?:now\s+|currently\s+|still\s+)?(?:living|based|staying)\s+(?:in|at)\b|\bmy\s+(?:home|address|apartment|flat|house)\s+is\b/i,
    /살아요|살고 있|이사했|이사 왔/,
  ],
  work: [
    /\b(?:i|we)\s+(?:(?:now|still|currently|also|just|recently|finally)\s+)*(?:work|worked|working)\s+(?:at|for|as|in)\b/i,
    /\b(?:i'm|im|i am)\s+(?:now\s+|currently\s+)?(?:working|employed)\s+(?:at|for|as|by)\b|\bmy\s+(?:job|employer|company)\s+is\b/i,
    /\b(?:i|we)\s+(?:(?:just|recently|finally)\s+)?started\s+(?:a\s+new\s+job|working\s+(?:at|for|as))\b/i,
    // A company's name after "joined" (not "joined a gym").
    /\b[Ii]\s+(?:(?:just|recently|finally)\s+)?joined\s+\p{Lu}/u,
    /일해요|일하고 있|다녀요|다니고 있|입사했|이직했|취직했/,
  ],
};

/** What makes such a statement a change: a move, "now", a new job, "no longer". */
const CHANGES: Record<LifeTopic, RegExp> = {
  home: /\b(?:moved|relocated|moving|relocating)\s+(?:back\s+)?(?:to|into)\b|\b(?:live|living|based)\b[^.!?]*\bnow\b|\bnow\s+(?:live|living|based)\b|이사했|이사 왔|이제/i,
  work: /\bnew\s+job\b|\bstarted\b|\bjoined\b|\b(?:got|been|was)\s+hired\b|\bwork(?:ing)?\b[^.!?]*\bnow\b|\bnow\s+work(?:ing)?\b|입사했|이직했|취직했|이제/i,
};

/** Words that find a topic's earlier statements (a full-text query, any word). */
const PROBES: Record<LifeTopic, string> = {
  home: 'live lived living moved relocated based home 살아요 이사',
  work: 'work works worked working job started joined employed 일해요 다녀요 입사',
};

/** Work said beside a move: "I just moved to Globex, I work there now" moved jobs, not homes. */
const WORK_WORDS = /\b(?:work|works|working|job|company|employer|hired|office|team)\b/i;
const MOVED_ONLY = /\b(?:moved|relocated)\b/i;
const LIVES = /\b(?:live|lived|living|reside|based|staying|home|address|apartment|flat|house)\b|살아요|살고 있/i;

const states = (topic: LifeTopic, text: string) =>
  STATES[topic].some((r) => r.test(text)) && !(topic === 'home' && MOVED_ONLY.test(text) && !LIVES.test(text) && WORK_WORDS.test(text));

/** The topic a text changes, with the words that find what it replaces; null when it changes neither. */
export function lifeChange(text: string): { topic: LifeTopic; probes: string } | null {
  for (const topic of ['home', 'work'] as const) if (states(topic, text) && CHANGES[topic].test(text)) return { topic, probes: PROBES[topic] };
  return null;
}

/**
 * The line a change replaces: of `earlier` (memories said before it, any order), the latest with a
 * line of the same speaker (`<speaker>: …`, in a chunk too) stating the same topic, at most
 * {@link CORRECTED_QUOTE_MAX} characters of it. Null when none does.
 */
export function replacedLine(earlier: readonly { content: string; occurred_at: Date }[], topic: LifeTopic, speaker: string): string | null {
  const prefix = `${speaker}: `;
  const newestFirst = [...earlier].sort((a, b) => b.occurred_at.getTime() - a.occurred_at.getTime());
  for (const memory of newestFirst) {
    const lines = memory.content.split('\n').filter((l) => quotedLine(l) === null && l.startsWith(prefix));
    const line = lines.reverse().find((l) => states(topic, l.slice(prefix.length)));
    if (line) return quoteAround(line, 0, CORRECTED_QUOTE_MAX);
  }
  return null;
}

/** A change's content with the line it replaces. */
export function withReplacedLine(content: string, line: string): string {
  return `${content}\n(previously: ${line})`;
}
