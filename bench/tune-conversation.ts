/**
 * Tunes the rule engine's fact weights (libs/memory facts.ts) on LoCoMo by cross-validation. For
 * each fold (one conversation held out): a logistic regression of "an observation cites this
 * turn" on the fact signals of the training conversations gives the weights' shape; a search on
 * the same training conversations, replaying the STM (bench/conversation-sim.ts), sets their
 * scale and offset and how much emotion a mere reaction keeps, for the most cited turns kept
 * while storing at most `--max-stored` of all turns. Then the held-out conversation is scored.
 * Prints train and held-out shares per fold, their mean, and the weights tuned on every
 * conversation (what the defaults are set from). The weight of `life_fact` is raised where needed
 * so that the plain facts of MUST_KEEP reach the 0.7 importance trigger (a product rule: a person
 * stating where they work or live is kept whatever the data set's habits).
 *
 *   npx tsx bench/tune-conversation.ts --file <locomo-dev.json> [--max-stored 0.68]
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_LIFECYCLE, PLAIN_FACTS, emotionalEncoding, factScore, factSignals, scoreByRules, type FactSignals, type FactWeights } from '@engram/memory';
import { parseConversation, type LocomoConversation, type LocomoTurn } from '../scripts/locomo';
import { citedTurns, replay } from './conversation-sim';

const { values: args } = parseArgs({ options: { file: { type: 'string' }, 'max-stored': { type: 'string', default: '0.68' } } });
if (!args.file) throw new Error('--file is required (the LoCoMo dev file)');
const MAX_STORED = Number(args['max-stored']);
const END = new Date('2030-01-01T00:00:00Z');
const NAMES = Object.keys(factSignals('')) as (keyof FactSignals)[];

interface Conv {
  conversation: LocomoConversation;
  cited: Set<string>;
  signals: Map<string, FactSignals>;
  base: Map<string, number>;
  emotion: Map<string, number>;
}

/** What is tuned: the fact weights (with `bias`, added to every message) and a reaction's share of its emotional weight. */
export interface Tuned {
  weights: FactWeights & { bias: number };
  reaction_emotion: number;
  /** The lexical emotional weight's scale, 0.8..1 (its estimate runs high on friendly chatter; at 0.8 or more the 0.8 emotion trigger stays reachable). */
  emotion_scale: number;
}

const convs: Conv[] = (JSON.parse(readFileSync(args.file, 'utf8')) as unknown[]).map((raw) => {
  const conversation = parseConversation(raw);
  const turns = conversation.turns;
  return {
    conversation,
    cited: citedTurns(raw),
    // By dia_id: a turn's signals depend on the turn before it.
    signals: new Map(turns.map((t, i) => [t.diaId, factSignals(t.utterance, { speaker: t.speaker, previous: turns[i - 1] ? { speaker: (turns[i - 1] as LocomoTurn).speaker, text: (turns[i - 1] as LocomoTurn).utterance } : null })])),
    base: new Map(turns.map((t) => [t.diaId, scoreByRules(t.utterance, {}, DEFAULT_LIFECYCLE)])),
    emotion: new Map(turns.map((t) => [t.utterance, emotionalEncoding(t.utterance).weight])),
  };
});

/** libs/memory PLAIN_FACTS: each must reach the importance trigger (0.7) under the tuned weights. */
const MUST_KEEP = PLAIN_FACTS.map((text) => ({ text, base: scoreByRules(text, {}, DEFAULT_LIFECYCLE), signals: factSignals(text) }));

/** Logistic regression (gradient descent, L2 0.01) of citation on the signals. @returns the coefficients and the intercept */
function logistic(set: readonly Conv[]): { w: number[]; b: number } {
  const rows = set.flatMap((c) => c.conversation.turns.map((t) => ({ x: NAMES.map((n) => (c.signals.get(t.diaId) as FactSignals)[n]), y: c.cited.has(t.diaId) ? 1 : 0 })));
  const w = NAMES.map(() => 0);
  let b = 0;
  for (let epoch = 0; epoch < 400; epoch++) {
    const gw = NAMES.map(() => 0);
    let gb = 0;
    for (const { x, y } of rows) {
      const p = 1 / (1 + Math.exp(-(b + x.reduce((s, v, i) => s + v * (w[i] as number), 0))));
      x.forEach((v, i) => (gw[i] = (gw[i] as number) + (p - y) * v));
      gb += p - y;
    }
    w.forEach((_, i) => (w[i] = (w[i] as number) - 0.5 * ((gw[i] as number) / rows.length + 0.01 * (w[i] as number))));
    b -= 0.5 * (gb / rows.length);
  }
  return { w, b };
}

function measure(set: readonly Conv[], t: Tuned) {
  let turns = 0;
  let stored = 0;
  let cited = 0;
  let citedStored = 0;
  for (const c of set) {
    const reactions = new Set(c.conversation.turns.filter((x) => (c.signals.get(x.diaId) as FactSignals).reaction === 1).map((x) => x.utterance));
    const o = replay(c.conversation, c.cited, DEFAULT_LIFECYCLE, {
      end: END,
      importance: (turn) => Math.min(1, (c.base.get(turn.diaId) ?? 0) + factScore(c.signals.get(turn.diaId) as FactSignals, t.weights)),
      emotion: (x) => t.emotion_scale * (reactions.has(x) ? t.reaction_emotion : 1) * (c.emotion.get(x) ?? 0),
    });
    turns += o.turns;
    stored += o.stored;
    cited += o.cited;
    citedStored += o.citedStored;
  }
  return { stored: stored / turns, cited: citedStored / cited };
}

/** Cited turns kept, heavily penalised beyond the storage budget. */
const objective = (m: { stored: number; cited: number }) => m.cited - 10 * Math.max(0, m.stored - MAX_STORED);
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The weights a logistic fit and a scale and offset make: importance += scale·(logit − offset), in factScore's linear form. */
function weightsOf(fit: { w: number[]; b: number }, scale: number, offset: number): Tuned['weights'] {
  const weights = Object.fromEntries(NAMES.map((n, i) => [n, round2(scale * (fit.w[i] as number))])) as FactWeights;
  return { ...weights, bias: round2(scale * (fit.b - offset)) };
}

/** The weights with `life_fact` raised (never lowered) as far as needed for every MUST_KEEP case to reach the importance trigger. */
function keepingTheCases(weights: Tuned['weights']): Tuned['weights'] {
  const trigger = DEFAULT_LIFECYCLE.consolidation.triggers.importance;
  let lift = 0;
  for (const k of MUST_KEEP) {
    if (k.signals.life_fact !== 1) throw new Error(`MUST_KEEP case without the life_fact signal: ${k.text}`);
    lift = Math.max(lift, trigger - (k.base + factScore(k.signals, weights)));
  }
  return { ...weights, life_fact: round2(weights.life_fact + Math.ceil(Math.max(0, lift) * 100) / 100) };
}

function tune(set: readonly Conv[]): Tuned {
  const fit = logistic(set);
  let best: Tuned | undefined;
  let score = -Infinity;
  let at = { scale: 0.2, offset: 0, reaction: 1, emotion: 1 };
  const tryAt = (scale: number, offset: number, reaction: number, emotion: number) => {
    const t: Tuned = { weights: keepingTheCases(weightsOf(fit, scale, offset)), reaction_emotion: reaction, emotion_scale: emotion };
    const s = objective(measure(set, t));
    if (s > score) [best, score, at] = [t, s, { scale, offset, reaction, emotion }];
  };
  // Coarse, then finer around the best.
  for (const scale of [0.15, 0.2, 0.25, 0.3]) for (let offset = -2; offset <= 2; offset += 0.5) for (const reaction of [0.25, 1]) for (const emotion of [0.8, 1]) tryAt(scale, offset, reaction, emotion);
  const c = at;
  for (const s of [c.scale - 0.05, c.scale, c.scale + 0.05])
    for (const o of [c.offset - 0.25, c.offset, c.offset + 0.25])
      for (const r of [c.reaction - 0.25, c.reaction, c.reaction + 0.25].filter((x) => x > 0 && x <= 1))
        for (const e of [c.emotion - 0.1, c.emotion, c.emotion + 0.1].filter((x) => x >= 0.8 - 1e-9 && x <= 1)) tryAt(s, o, r, e);
  return best as Tuned;
}

const fmt = (m: { stored: number; cited: number }) => `stored ${m.stored.toFixed(3)}, cited kept ${m.cited.toFixed(3)}`;
const held: { stored: number; cited: number }[] = [];
for (let i = 0; i < convs.length; i++) {
  const train = convs.filter((_, j) => j !== i);
  const t = tune(train);
  const m = measure([convs[i] as Conv], t);
  held.push(m);
  process.stdout.write(`fold ${convs[i]?.conversation.sampleId}: train ${fmt(measure(train, t))}; held out ${fmt(m)}\n`);
}
const mean = (k: 'stored' | 'cited') => held.reduce((s, m) => s + m[k], 0) / held.length;
process.stdout.write(`held-out mean: stored ${mean('stored').toFixed(3)}, cited kept ${mean('cited').toFixed(3)}\n`);
const all = tune(convs);
process.stdout.write(`tuned on all: ${fmt(measure(convs, all))}\n${JSON.stringify(all)}\n`);
