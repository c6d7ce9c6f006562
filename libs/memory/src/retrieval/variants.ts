import { quotedLine } from '../lifecycle/correction';
import { contentWords } from '../lifecycle/similarity';
import { withoutSpeakers } from '../lifecycle/stm';

/**
 * Two statements of the same thing with a value changed ("The user works at Acme" / "The user
 * works at Globex"): at least two content words in common and a word-set (Jaccard) similarity of
 * at least 0.4, but not the same words. Ours (issue 15, "the newest fact wins").
 */
export function isVariant(a: Set<string>, b: Set<string>): boolean {
  let shared = 0;
  for (const w of a) if (b.has(w)) shared += 1;
  const union = a.size + b.size - shared;
  return shared >= 2 && shared < union && shared / union >= 0.4;
}

// Verbs a statement's subject comes before (their -s, -es, -ies forms and any -ed form count too).
const VERBS = new Set(
  'be is are was were am has have had do does did go goes went gone get got live lived work drive drove play take took use own study leave left arrive start join teach taught speak spoke wear need want eat ate drink drank say said think thought know knew feel felt make made buy bought sell sold visit meet met paint run ran write wrote read watch plan call name lose lost win won love like hate prefer enjoy move keep kept stay become became come came give gave see saw tell told'.split(' '),
);
const verbish = (w: string) => VERBS.has(w) || w.endsWith('ed') || (w.endsWith('ies') && VERBS.has(`${w.slice(0, -3)}y`)) || (w.endsWith('es') && VERBS.has(w.slice(0, -2))) || (w.endsWith('s') && VERBS.has(w.slice(0, -1)));

/**
 * Whether two statements differ before their verb and share it and what follows: another subject
 * with the same predicate ("Tom's sister lives in Porto" / "Tom's boss lives in Porto", two people;
 * another speaker saying the same), not the same subject with another value ("The user lives in
 * Berlin" / "... in Munich", "I drive a Volvo to work" / "... a Tesla ..."). Content words in the
 * order said (a {@link contentWords} set keeps it). A peer's report tried on Engram (graphiti
 * #1728): the boss's newer fact was put before the sister's asked about.
 */
export function otherSubject(a: Set<string>, b: Set<string>): boolean {
  const [x, y] = [[...a], [...b]];
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let end = 0;
  while (end < x.length - start && end < y.length - start && x[x.length - 1 - end] === y[y.length - 1 - end]) end++;
  return !x.slice(0, start).some(verbish) && x.slice(x.length - end).some(verbish);
}

// Verbs of a relation that holds one value at a time: one's home, work, name, being.
const ONE_VALUE = new Set('am is are was were be been live lives lived living work works worked working'.split(' '));
// Words that say when, not what: "I am now a nurse" states what "I am a nurse" would.
const WHEN = new Set('now currently still actually presently nowadays'.split(' '));
// A value that starts with one of these says which relation it is ("is on Monday" / "is about
// budgets", "is a doctor" / "is in Paris"): two such tails are two attributes, not two values.
const RELATION = new Set('a an the in on at as about with from for to of by near into over under after before since until during not no'.split(' '));
const PRONOUN = new Set('i we you he she they it'.split(' '));

/** A statement's words in order, lower-case, "I'm" and "you're" read as "I am" and "you are", words that only say when left out. */
function tokens(text: string): string[] {
  return (text.toLowerCase().replace(/['’]m\b/g, ' am').replace(/['’]re\b/g, ' are').match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !WHEN.has(w));
}

/**
 * The same subject and verb with another value, when the value has words of its own ("My
 * favourite drink is green tea" / "... is black coffee", "I live in New York" / "I live in San
 * Francisco", "I am a teacher" / "I am now a nurse"): {@link isVariant} misses them, two words of
 * six in common. The statements begin with the same two words or more, among them a verb of one
 * value at a time (be, live, work), and end in values of at most eight words that share none.
 * When the shared words end at the verb, the relation is not said yet, so more is asked: a subject
 * that is not a pronoun, and values of two words or more that each start with a word of their own
 * (not "a", "in", "on", ... nor a verb): "The meeting is on Monday" / "... is about budgets",
 * "My sister is a doctor" / "... is in Paris", "My dog is called Rex" / "... is sick" and "I am
 * allergic to peanuts" / "I am vegetarian" are two things each. "I have a dog named Rex" / "... a
 * cat named Tom" (two pets) and "I like tea" / "I like coffee" (two tastes) are too. Ours, after
 * two testers' finds (mem0 #4536: the old value came first; then unrelated newer facts first).
 */
export function newValue(a: string, b: string): boolean {
  return newValueOf(tokens(a), tokens(b));
}

/** {@link newValue} of two statements' {@link tokens} (a search reads each hit's once, not once a pair). */
function newValueOf(x: readonly string[], y: readonly string[]): boolean {
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p++;
  const verb = x.slice(0, p).findIndex((w) => ONE_VALUE.has(w));
  if (p < 2 || verb < 0) return false;
  const [rx, ry] = [x.slice(p), y.slice(p)];
  if (rx.length === 0 || ry.length === 0 || rx.length > 8 || ry.length > 8) return false;
  const other = new Set(ry);
  if (rx.some((w) => other.has(w))) return false;
  // A value that starts with a relation of its own is another attribute of what the shared
  // words said ("I work at Google as an engineer" / "... on weekends").
  if (RELATION.has(rx[0] as string) || RELATION.has(ry[0] as string)) return false;
  if (x.slice(verb + 1, p).some((w) => !ONE_VALUE.has(w))) return true;
  const subject = x.slice(0, verb);
  const ownStart = (t: readonly string[]) => t.length >= 2 && !verbish(t[0] as string) && !(t[0] as string).endsWith('ing');
  return subject.some((w) => !PRONOUN.has(w)) && ownStart(rx) && ownStart(ry);
}

/** A memory's own lines and the lines it quotes of others (`(correcting: …)`, `(previously: …)`). */
function linesOf(content: string): { own: string[]; quoted: string[] } {
  const own: string[] = [];
  const quoted: string[] = [];
  for (const line of content.split('\n')) {
    const q = quotedLine(line);
    if (q === null) own.push(line.trim());
    else quoted.push(q);
  }
  return { own, quoted };
}

/** Whether a memory quotes one of another's lines, whole or cut (`…`): a correction and what it corrects, a change and what it replaces. */
function quotes(a: { quoted: string[] }, b: { own: string[] }): boolean {
  return a.quoted.some((q) => {
    const cut = q.replace(/^…|…$/g, '');
    return b.own.some((l) => l === q || (cut !== q && l.includes(cut)));
  });
}

/** A statement's event time and, when known, when the memory was first and last written and last said again. */
export interface Stated {
  occurred_at: Date;
  created_at?: Date;
  updated_at?: Date;
  /** When a repetition last said it again (a message repeating it); null or absent: never. */
  restated_at?: Date | null;
  /** Its place in its conversation (episodes): what was said later in the same post comes later. */
  temporal_context?: string | null;
  temporal_position?: number | null;
}

/**
 * `order` (indexes of `hits`, newest first) with each run of statements made at the same instant
 * (one post of a whole session: its messages share the time they were received) put in the order
 * they were said where they were said in one conversation: the members of a conversation keep
 * the places they hold in the run, filled later place first. Others (a batch of keyed writes, no
 * order among them) keep the ranking's order.
 */
function saidLaterFirst<T extends Stated>(hits: readonly T[], order: number[]): number[] {
  const out = [...order];
  for (let start = 0; start < order.length; ) {
    let end = start + 1;
    const at = statedAt(hits[order[start] as number] as T);
    while (end < order.length && statedAt(hits[order[end] as number] as T) === at) end++;
    const byConversation = new Map<string, number[]>();
    for (let k = start; k < end; k++) {
      const h = hits[order[k] as number] as T;
      if (h.temporal_context == null || h.temporal_position == null) continue;
      const slots = byConversation.get(h.temporal_context);
      if (slots) slots.push(k);
      else byConversation.set(h.temporal_context, [k]);
    }
    for (const slots of byConversation.values()) {
      const later = slots.map((k) => order[k] as number).sort((x, y) => ((hits[y] as T).temporal_position as number) - ((hits[x] as T).temporal_position as number));
      slots.forEach((k, n) => (out[k] = later[n] as number));
    }
    start = end;
  }
  return out;
}

/**
 * When a statement was made, in ms: its event time (`occurred_at`); for an event still ahead of
 * the memory's last write ("the appointment is on 10 March 2027", dated so), when the memory was
 * written (`created_at`). Ranked by its date, such a statement stayed the newest for good, above
 * the change that moved it (a newcomer's). Not the last write itself: a tag or priority edit
 * makes no new statement (the next newcomer's). A content change that keeps a future date counts
 * from the memory's creation too (the row does not say when its content last changed). Said
 * again later (`restated_at`: "I live in Paris" repeated after "I live in Berlin"), it counts
 * from the repetition: the memory was reinforced rather than copied, and the repetition is its
 * newest statement (a newcomer's find).
 */
export function statedAt(hit: Stated): number {
  const occurred = hit.occurred_at.getTime();
  const first = hit.updated_at === undefined || occurred <= hit.updated_at.getTime() ? occurred : (hit.created_at ?? hit.updated_at).getTime();
  return Math.max(first, hit.restated_at?.getTime() ?? -Infinity);
}

/**
 * The newest fact wins (ours; docs/retrieval.md "Newest first"): among ranked hits, statements of
 * the same thing (the same category and key; variants, {@link isVariant}, that do not differ in
 * their subject, {@link otherSubject}; a new value of the same subject and verb, {@link newValue}; or one quoting a line of the other: a correction and what it
 * corrects, a change and what it replaces) keep the places the
 * ranking gave them, but are put in them newest first (by when each was stated: {@link statedAt}),
 * so that the current value comes before the one it replaced. Other hits do not move.
 *
 * @param hits best first
 * @returns the same hits, reordered
 */
export function newestFirstAmongVariants<T extends Stated & { category: string; key: string; content: string }>(hits: readonly T[]): T[] {
  // Without the speakers: "assistant" and "user" in every line made an answer about the sister
  // and one about the dog alike enough to be one statement (helper 35's).
  const words = hits.map((h) => contentWords(withoutSpeakers(h.content)));
  const lines = hits.map((h) => linesOf(h.content));
  const own = lines.map((l) => tokens(withoutSpeakers(l.own.join('\n'))));
  const group = hits.map((_, i) => i);
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i] as number)));
  for (let i = 0; i < hits.length; i++) {
    for (let j = i + 1; j < hits.length; j++) {
      const a = hits[i] as T;
      const b = hits[j] as T;
      const [la, lb] = [lines[i], lines[j]] as [ReturnType<typeof linesOf>, ReturnType<typeof linesOf>];
      if (
        (a.category === b.category && a.key === b.key) ||
        (isVariant(words[i] as Set<string>, words[j] as Set<string>) && !otherSubject(words[i] as Set<string>, words[j] as Set<string>)) ||
        newValueOf(own[i] as string[], own[j] as string[]) ||
        quotes(la, lb) ||
        quotes(lb, la)
      )
        group[root(j)] = root(i);
    }
  }
  const out = [...hits];
  const members = new Map<number, number[]>();
  hits.forEach((_, i) => members.set(root(i), [...(members.get(root(i)) ?? []), i]));
  for (const places of members.values()) {
    if (places.length < 2) continue;
    const newest = saidLaterFirst(hits, [...places].sort((x, y) => statedAt(hits[y] as T) - statedAt(hits[x] as T) || x - y));
    places.forEach((place, k) => (out[place] = hits[newest[k] as number] as T));
  }
  return out;
}
