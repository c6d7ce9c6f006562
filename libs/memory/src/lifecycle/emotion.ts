import Sentiment from 'sentiment';

/** Seed 000 `emotional_encoding`: valence −1..1, arousal and dominance 0..1, discrete labels. */
export interface EmotionalEncoding {
  valence: number;
  arousal: number;
  dominance: number;
  discrete_emotions: string[];
  /** 0..1: how emotionally charged (feeds the consolidation score and its ≥ 0.8 trigger). */
  weight: number;
}

const analyzer = new Sentiment();

// Korean has no AFINN list; a few common stems with AFINN-like scores.
const KOREAN: [string, number][] = [
  ['행복', 3], ['기쁘', 3], ['기뻐', 3], ['사랑', 3], ['최고', 3], ['좋', 2], ['고마', 2], ['감사', 2], ['신나', 3], ['설레', 2],
  ['슬프', -2], ['슬퍼', -2], ['화나', -3], ['화가', -3], ['무섭', -2], ['무서', -2], ['걱정', -2], ['싫', -2], ['최악', -3], ['우울', -3], ['짜증', -2],
];

const LABELS: [string, RegExp][] = [
  ['joy', /\b(happy|glad|joy|delighted|thrilled|love|wonderful|great)\b|행복|기쁘|기뻐/i],
  ['excitement', /\b(excited|exciting|can't wait|amazing|awesome)\b|신나|설레/i],
  ['sadness', /\b(sad|unhappy|depressed|miserable|grief|cry|cried|lonely)\b|슬프|슬퍼|우울/i],
  ['anger', /\b(angry|furious|mad|annoyed|hate)\b|화나|화가|짜증/i],
  ['fear', /\b(afraid|scared|terrified|worried|anxious|nervous)\b|무섭|무서|걱정/i],
  ['surprise', /\b(surprised|shocked|unexpected|wow)\b|놀랐|놀라/i],
];

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/**
 * A lexical estimate of a text's emotional encoding: AFINN-165 (the `sentiment` library) for
 * English plus a small Korean stem list for valence; exclamation marks, shouted words and the
 * strength of the wording for arousal. Deterministic, no model needed.
 */
export function emotionalEncoding(text: string): EmotionalEncoding {
  let score = analyzer.analyze(text).score;
  for (const [stem, value] of KOREAN) if (text.includes(stem)) score += value;
  const valence = Math.tanh(score / 4);
  const exclamations = Math.min(3, (text.match(/!/g) ?? []).length);
  const shouted = /\b[A-Z]{3,}\b/.test(text) ? 1 : 0;
  const arousal = clamp(0.5 * Math.abs(valence) + 0.15 * exclamations + 0.2 * shouted, 0, 1);
  const discrete = LABELS.filter(([, re]) => re.test(text)).map(([label]) => label);
  const weight = clamp(0.7 * Math.abs(valence) + 0.5 * arousal, 0, 1);
  return { valence, arousal, dominance: 0.5, discrete_emotions: discrete, weight };
}
