import { quoteAround } from '../visible-text';
import { CORRECTED_QUOTE_MAX, quotedLine } from './correction';

/**
 * A change of where a person lives or works, said without the old value ("I moved to Berlin last
 * week" after "I live in Paris", "I just started a new job at Globex" after "I work at Acme"):
 * the two share no word, so a search for "where does the user live" found only Paris, and nothing
 * told a model reading both which one holds (issue 15 item 4, "the newest fact wins"; its own
 * example). Kept with the line it replaces, `(previously: user: I live in Paris.)`, the new
 * statement is found by the old one's words and, quoting it, ranks before it (libs/memory
 * `newestFirstAmongVariants`). Ours; English and Korean, and moves in German, French and Spanish.
 */
export type LifeTopic = 'home' | 'work';

// A move's destination: a place's name, or a new home ("I moved to decaf coffee", "... to the
// night shift", "... to Linux" are no moves: helper 35's). A join's: a company's name, not a
// service or a club.
const PLACE = String.raw`(?:(?:a|an|the|my|our)\s+(?:new\s+|bigger\s+|smaller\s+)?(?:apartment|flat|house|home|place|city|town|country|suburbs?|countryside|neighbou?rhood|village|coast)\b|(?!(?:Linux|Windows|Mac|macOS|Android|iOS|iPhone|Python|Java|Rust|Go|Vim|Emacs|Spotify|Netflix|Slack|Teams|Zoom|Notion)\b)\p{Lu}\p{L}+)`;
const NOT_EMPLOYER = String.raw`(?!(?:Weight\s+Watchers|Netflix|Spotify|Twitter|Instagram|Facebook|TikTok|Discord|Reddit|Strava|Duolingo|Peloton|YouTube|LinkedIn|Patreon|Costco|Mensa|AA|the\b|a\b|an\b))`;
// Written for case-sensitive patterns (a name's capital is read): "I", "we" and "We" by hand.
const I = String.raw`\b(?:[Ii]|[Ww]e)(?:'ve|'d)?\s+(?:(?:now|still|currently|also|just|recently|finally|have|had|'ve)\s+)*`;

/** A first-person statement of where one lives or works, of any time. */
const STATES: Record<LifeTopic, RegExp[]> = {
  home: [
    new RegExp(String.raw`${I}(?:live|lived|living|reside)\b`, 'iu'),
    new RegExp(String.raw`${I}(?:moved|relocated)\s+(?:back\s+)?(?:to|into)\s+${PLACE}|^\W*(?:[Jj]ust\s+)?(?:[Mm]oved|[Rr]elocated)\s+(?:back\s+)?(?:to|into)\s+${PLACE}`, 'u'),
    /\b(?:i'm|im|i am|we're|we are)\s+(?:now\s+|currently\s+|still\s+)?(?:living|based|staying)\s+(?:in|at)\b|\b(?:my|our)\s+(?:new\s+)?(?:home|address|apartment|flat|house)\s+is\b/i,
    /살아요|살고 있|이사했|이사 왔/,
    // Without the subject ("Living in Berlin now."), and moves in German, French and Spanish (helper 35's).
    new RegExp(String.raw`^\W*(?:[Ll]iving|[Bb]ased)\s+in\s+\p{Lu}|(?<!\p{L})(?:(?:bin|sind)\s+(?:nach|in)\s+\p{Lu}\p{L}+\s+(?:um)?gezogen|(?:déménagé|déménagée|déménagés|déménager|emménagé|emménagée)\s+(?:à|a|en|au)\s+\p{Lu}|(?:[Mm]e\s+mudé|[Nn]os\s+mudamos|[Mm]e\s+he\s+mudado|[Nn]os\s+hemos\s+mudado)\s+a\s+\p{Lu})`, 'u'),
  ],
  work: [
    new RegExp(String.raw`${I}(?:work|worked|working)\s+(?:at|for|as|in)\b`, 'iu'),
    /\b(?:i'm|im|i am)\s+(?:now\s+|currently\s+)?(?:working|employed)\s+(?:at|for|as|by)\b|\bmy\s+(?:new\s+)?(?:job|employer|company)\s+is\b/i,
    new RegExp(String.raw`${I}(?:started|start)\s+(?:a\s+new\s+job|working\s+(?:at|for|as))|\bstarted\s+(?:a\s+new\s+job\s+)?at\s+\p{Lu}|${I}(?:got|been|was)\s+hired\b|\bhired\s+me\b`, 'u'),
    // A company's name after "joined" (not "joined a gym", "joined Netflix").
    new RegExp(String.raw`\b[Ii](?:'ve)?\s+(?:(?:just|recently|finally|have)\s+)?joined\s+${NOT_EMPLOYER}\p{Lu}`, 'u'),
    /일해요|일하고 있|다녀요|다니고 있|입사했|이직했|취직했/,
  ],
};

/** What makes such a statement a change: a move, "now", a new job, "no longer". */
const CHANGES: Record<LifeTopic, RegExp> = {
  home: /\b(?:moved|relocated|moving|relocating)\s+(?:back\s+)?(?:to|into)\b|\b(?:live|living|based)\b[^.!?]*\bnow\b|\bnow\s+(?:live|living|based)\b|\bnew\s+(?:home|house|apartment|flat|place)\b|이사했|이사 왔|이제|gezogen|déménag|emménag|mudé|mudamos|mudado/i,
  work: /\bnew\s+job\b|\bstarted\b|\bjoined\b|\bhired\b|\bwork(?:ing)?\b[^.!?]*\bnow\b|\bnow\s+work(?:ing)?\b|입사했|이직했|취직했|이제/i,
};

/** Told as the past or a supposition, not as a change: "back in 2012", "When I moved to Paris in 2010", "If I moved ...". */
const NOT_NOW = /\b(?:when|if|whenever|before|after|until|once)\s+(?:i|we)\b|\bback\s+(?:in|then)\b|\b(?:in|since|from)\s+(?:19|20)\d\d\b|\byears?\s+ago\b|\bfirst\s+job\b|\bright\s+after\s+(?:college|school|university)\b|\bgrowing\s+up\b|\bas\s+a\s+(?:kid|child)\b|\bused\s+to\b|\bwould\b/i;

/** Asked of someone: where they live, where they work (a short answer's question, answer.ts). */
const ASKS: Record<LifeTopic, RegExp> = {
  home: /\bwhere\s+(?:do|did)\s+you\s+live\b|\bwhere\s+are\s+you\s+(?:based|living|staying)\b|\bwhich\s+(?:city|town|country)\b|\bwhere\s+is\s+your\s+home\b|어디\s*(?:사세요|살아요|살)/i,
  work: /\bwhere\s+do\s+you\s+work\b|\bwhat\s+do\s+you\s+do\b|\bwho\s+do\s+you\s+work\s+for\b|\bwhat\s+is\s+your\s+job\b|\bwhat's\s+your\s+job\b|어디서\s*일/i,
};

/** A fact saved in the third person about the user ("The user lives in Paris", an agent's keyed write). */
const OF_THE_USER: Record<LifeTopic, RegExp> = {
  home: /\b(?:the\s+)?user\s+(?:now\s+|still\s+|currently\s+)?(?:lives|lived|is\s+living|is\s+based|moved|relocated)\b/i,
  work: /\b(?:the\s+)?user\s+(?:now\s+|still\s+|currently\s+)?(?:works|worked|is\s+working|is\s+employed|joined|started)\b/i,
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

/** The topic a text changes now, with the words that find what it replaces; null when it changes neither, or tells the past. */
export function lifeChange(text: string): { topic: LifeTopic; probes: string } | null {
  if (NOT_NOW.test(text)) return null;
  for (const topic of ['home', 'work'] as const) if (states(topic, text) && CHANGES[topic].test(text)) return { topic, probes: PROBES[topic] };
  return null;
}

/**
 * The lines a change replaces: of `earlier` (memories said before it, any order), the latest with
 * a line of the same speaker (`<speaker>: …`, in a chunk too) stating the same topic (not as the
 * past: "back in 2012"), or answering the other's question about it ("assistant: Where do you
 * live?" / "user: Paris.": both lines), or, for `user`, a fact saved about the user ("The user
 * lives in Paris"); never `said` itself (a change said again), each at most
 * {@link CORRECTED_QUOTE_MAX} characters. Empty when none.
 */
export function replacedLines(earlier: readonly { content: string; occurred_at: Date }[], topic: LifeTopic, speaker: string, said = ''): string[] {
  const prefix = `${speaker}: `;
  const newestFirst = [...earlier].sort((a, b) => b.occurred_at.getTime() - a.occurred_at.getTime());
  for (const memory of newestFirst) {
    const lines = memory.content.split('\n').filter((l) => quotedLine(l) === null);
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i] as string;
      const own = line.startsWith(prefix) ? line.slice(prefix.length) : null;
      if (own !== null && own.trim() === said.trim()) continue;
      const asked = i > 0 && own !== null && !(lines[i - 1] as string).startsWith(prefix) && ASKS[topic].test(lines[i - 1] as string);
      if (own !== null && ((states(topic, own) && !NOT_NOW.test(own)) || asked)) return (asked ? [lines[i - 1] as string, line] : [line]).map((l) => quoteAround(l, 0, CORRECTED_QUOTE_MAX));
      if (speaker === 'user' && !/^[^:\n]{1,64}:\s/.test(line) && OF_THE_USER[topic].test(line)) return [quoteAround(line, 0, CORRECTED_QUOTE_MAX)];
    }
  }
  return [];
}

/** A change's content with the lines it replaces. */
export function withReplacedLines(content: string, lines: readonly string[]): string {
  return [content, ...lines.map((l) => `(previously: ${l})`)].join('\n');
}
