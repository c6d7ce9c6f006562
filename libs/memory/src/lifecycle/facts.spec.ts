import fc from 'fast-check';
import { factScore, factSignals, type FactSignals } from './facts';
import { PLAIN_FACTS } from './plain-facts';
import { scoreByRules, scoreByRulesAndFacts } from './importance';
import { DEFAULT_LIFECYCLE } from './lifecycle-config';
import { sameStatement } from './similarity';

const trigger = DEFAULT_LIFECYCLE.consolidation.triggers.importance;
const score = (text: string, previous?: string) =>
  scoreByRulesAndFacts(text, { speaker: 'user', previous: previous === undefined ? null : { speaker: 'assistant', text: previous } }, DEFAULT_LIFECYCLE);

describe('the rule path keeps facts (libs/memory facts.ts)', () => {
  it.each(PLAIN_FACTS)('a first-person fact reaches the importance trigger: %s', (text) => {
    expect(score(text)).toBeGreaterThanOrEqual(trigger);
  });

  // Phones, word processors and models type a curly apostrophe: the same facts.
  it.each(PLAIN_FACTS.filter((t) => t.includes("'")).map((t) => t.replace(/'/g, '\u2019')))('with a typographic apostrophe too: %s', (text) => {
    expect(score(text)).toBeGreaterThanOrEqual(trigger);
  });

  it.each(['Wow, that is amazing!', 'Thanks so much!', 'haha ok', 'Sounds good, see you!', 'That is so cool, you are awesome!', '우와 대박!', '哈哈，太好了', 'ありがとう！', 'Danke!', '¡Gracias!'])(
    'chatter stays under the attention threshold: %s',
    (text) => {
      expect(score(text)).toBeLessThan(DEFAULT_LIFECYCLE.stm.attention_threshold);
    },
  );

  // A newcomer's, kept at 1.0: asking is not telling.
  it.each([
    "I'm just curious, what's the weather like on Mars?",
    'My question is about the French revolution',
    'I was just asking about the French revolution',
    // The next newcomer's, kept at 0.77-1.0: leaving, and a passing state.
    "nah I'm going to bed",
    "I'm so tired today lol",
    'Ich bin heute so müde, haha',
    "Je suis tellement fatigué aujourd'hui, mdr",
    // The next newcomer's, kept at 1.0 as an identity: a question about oneself.
    'Do I live in Paris?',
    'Where do I live?',
    "What's my name?",
    'Am I allergic to peanuts?',
    // However long, and whatever names it holds (helper 27's, kept at 0.98).
    'Do I live in Hamburg with my wife Anna and our two kids, Lena and Max?',
  ])(
    'asking, leaving or a passing state stays under the importance trigger: %s',
    (text) => {
      expect(score(text)).toBeLessThan(trigger);
    },
  );

  it('work in the progressive needs where or as what: "I\'m working on it" is not a life fact', () => {
    expect(factSignals("I'm working on it").life_fact).toBe(0);
    expect(score("I'm working on it")).toBeLessThan(trigger);
    expect(factSignals("I'm working as a nurse").life_fact).toBe(1);
  });

  // LoCoMo's chat drops the "I" (observation-cited turns left out at 0.15-0.52).
  it.each(['Just got some new shoes, too!', 'Been tweaking a dessert recipe to make it yummier.', 'Gonna volunteer at shelters next month.', 'Hey Maria! Been real busy tackling a project to support military veterans.'])(
    'a statement without its subject is the speaker\'s own: %s',
    (text) => {
      expect(factSignals(text)).toMatchObject({ first_person: 1, self_statement: 1 });
    },
  );

  it.each(['Got it, thanks!', 'Got your back, Jon!', 'Got any fave styles?', 'Been there, done that.', 'Gonna be fun!', 'Had fun?'])('a reply without a subject is not a statement: %s', (text) => {
    expect(factSignals(text)).toMatchObject({ first_person: 0, self_statement: 0 });
  });

  it('"I can\'t have dairy" is a fact about the speaker; "I can\'t have that" is not', () => {
    expect(score("Unfortunately, I can't have dairy, so no ice cream for me.")).toBeGreaterThanOrEqual(trigger);
    expect(score("I can't have that.")).toBeLessThan(trigger);
    expect(factSignals("I can't have that.").self_statement).toBe(0);
  });

  it('"into" is a taste only after being: "I\'m going to look into it" is chatter, "I\'m really into jazz" a preference', () => {
    expect(score("I'm going to look into it")).toBeLessThan(trigger);
    expect(factSignals("I'm really into jazz")).toMatchObject({ preference: 1, life_fact: 1 });
  });

  it('reads the signals it names, English and Korean', () => {
    const s = factSignals('Actually I no longer work at Acme: I moved to Globex in March 2026, and we decided to stay!');
    expect(s).toMatchObject({ first_person: 1, self_statement: 1, domain: 1, correction: 1, time: 1, number: 1, decision: 1, life_fact: 1, reaction: 0, question: 0 });
    expect(s.named).toBe(3); // Acme, Globex, March
    expect(factSignals('DGIA approved the budget')).toMatchObject({ decision: 1, named: 1 });
    expect(factSignals('Wow, that is amazing!')).toMatchObject({ reaction: 1, first_person: 0, life_fact: 0 });
    expect(factSignals('어제 병원에 다녀왔어요')).toMatchObject({ time: 1, domain: 1 });
    expect(factSignals('What about you?')).toMatchObject({ question: 1 });
  });

  it('reads Chinese and Japanese as words, not punctuation, and a question in any script as one', () => {
    // \W alone took an unspaced sentence for punctuation: a mere reaction.
    expect(factSignals('我在谷歌工作')).toMatchObject({ reaction: 0, first_person: 1, self_statement: 1, domain: 1, life_fact: 1 });
    expect(factSignals('你在哪里工作？')).toMatchObject({ question: 1, first_person: 0, life_fact: 0 });
    expect(factSignals('Wo arbeitest du?')).toMatchObject({ question: 1, first_person: 0, life_fact: 0 });
    // A first-person pronoun as a whole word only: "je" is not in "jeans", "ich" not in "rich".
    expect(factSignals('Those jeans look rich').first_person).toBe(0);
    // French elision: l'hôpital holds the word hôpital.
    expect(factSignals("J'étais à l'hôpital hier")).toMatchObject({ first_person: 1, domain: 1, time: 1 });
  });

  // A newcomer's: stored at importance 1.0 as facts.
  it.each([
    'I have no idea',
    'I have a question',
    'I have to go now, bye!',
    'OMG I love you so much!!!',
    'Ich bin mir nicht sicher',
    'Ich bin gleich zurück',
    "Je suis d'accord",
    'Je suis là',
    // A second newcomer's.
    'I have another question',
    'I have a follow-up question',
    'I have nothing to add',
    'I love how you explained it',
    'Ich liebe es!',
    "J'adore !",
    'Me encanta esta respuesta',
    '我喜欢这个回答',
    'この答えが好きです',
    'Je vais bien, merci',
    'Me voy a dormir, buenas noches',
    "I'm going to bed now, good night",
    'I have to go now, talk to you later',
  ])(
    'a pleasantry in the first person stays under the trigger: %s',
    (text) => {
      expect(score(text)).toBeLessThan(trigger);
    },
  );

  it.each(["J'adore le jazz", 'Me encanta el café', 'Ich liebe Jazz', '我喜欢喝茶'])('a taste is still a fact when a reaction is not: %s', (text) => {
    expect(score(text)).toBeGreaterThanOrEqual(trigger);
  });

  it("another language's word spelt like an English one does not make English chatter a fact", () => {
    // kind (German child), chat (French cat), soy (Spanish I am), plane (German I plan), mag (German I like).
    for (const text of ["I'm kind of tired", "Let's chat later, I'm busy", 'Soy sauce is great', 'I read that mag', 'I took a plane, it was late']) {
      expect({ text, life_fact: factSignals(text).life_fact }).toEqual({ text, life_fact: 0 });
    }
    for (const text of ['Soy profesora', 'Ich mag Kaffee', 'Ich plane eine Reise nach Japan']) expect({ text, life_fact: factSignals(text).life_fact }).toEqual({ text, life_fact: 1 });
  });

  it('an answer to someone else\'s question is one: the context signal', () => {
    expect(factSignals('Yes, twice a week', { speaker: 'a', previous: { speaker: 'b', text: 'Do you still swim?' } }).answers_question).toBe(1);
    expect(factSignals('Yes, twice a week', { speaker: 'a', previous: { speaker: 'a', text: 'Do you still swim?' } }).answers_question).toBe(0);
    expect(factSignals('Yes, twice a week', { speaker: 'a', previous: { speaker: 'b', text: 'I swim.' } }).answers_question).toBe(0);
  });

  it('the fact score stays in 0..1 and never lowers the seed rule score', () => {
    const names = Object.keys(factSignals('')) as (keyof FactSignals)[];
    const arbWeights = fc.record(Object.fromEntries([...names, 'bias'].map((n) => [n, fc.double({ min: -1, max: 1, noNaN: true })])) as Record<keyof FactSignals | 'bias', fc.Arbitrary<number>>);
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), arbWeights, (text, weights) => {
        const f = factScore(factSignals(text), weights);
        expect(f).toBeGreaterThanOrEqual(0);
        expect(f).toBeLessThanOrEqual(1);
        const config = { ...DEFAULT_LIFECYCLE, importance: { ...DEFAULT_LIFECYCLE.importance, facts: weights } };
        expect(scoreByRulesAndFacts(text, {}, config)).toBeGreaterThanOrEqual(scoreByRules(text, {}, config) - 1e-12);
      }),
    );
  });

  it('a rewording is the same statement; a changed value is not, however long the sentence', () => {
    const same = (a: string, b: string) => sameStatement(a, b, DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity);
    expect(same('user: DGIA approved the budget', 'user: Noted: the DGIA approved the budget.')).toBe(true);
    expect(same('ana: I moved here with my husband, two kids and our old dog last summer from Boston', 'ana: fyi I moved here with my husband, two kids and our old dog last summer from boston')).toBe(true);
    expect(same('ana: I moved here with my husband, two kids and our old dog last summer from Boston', 'ana: I moved here with my husband, two kids and our old dog last summer from Denver')).toBe(false);
    expect(same('ana: the garage code is 4711 and the gate opens at seven every morning', 'ana: the garage code is 4712 and the gate opens at seven every morning')).toBe(false);
    // A phrase that says how it is told is no added word.
    expect(same('ana: I moved here with my husband and two kids last summer from Boston', 'ana: Just so you know, I moved here with my husband and two kids last summer from Boston')).toBe(true);
  });

  // A newcomer's: the new statement was merged into the old one (reinforced) and lost.
  it.each([
    ['I am not allergic to penicillin', 'I am allergic to penicillin'],
    ['I do not have diabetes', 'I have diabetes'],
    ['My blood type is A positive', 'My blood type is B positive'],
    ['My daughter Emma is allergic to peanuts and eggs', 'My daughter Emma is allergic to peanuts but not eggs'],
    ['Ich arbeite seit fünf Jahren als Softwareentwickler in Berlin', 'Ich arbeite seit acht Jahren als Softwareentwickler in Berlin'],
    ['私はペニシリンにアレルギーがあります', '私はペニシリンにアレルギーがありません'],
    ['私は東京の渋谷にある会社で五年間働いています', '私は東京の渋谷にある会社で八年間働いています'],
    // A second newcomer's: two words swapped, another tense, a question, a small word turned.
    ["I'm allergic to penicillin, not amoxicillin", "I'm allergic to amoxicillin, not penicillin"],
    ['I prefer tea over coffee', 'I prefer coffee over tea'],
    ['I moved from Lisbon to Porto', 'I moved from Porto to Lisbon'],
    ['My sister works for my brother', 'My brother works for my sister'],
    ['My wife is pregnant', 'My wife was pregnant'],
    ['I have a dog', 'I had a dog'],
    ['I live in Lisbon', 'I will live in Lisbon'],
    ['My blood sugar goes up after lunch', 'My blood sugar goes down after lunch'],
    ['I am allergic to penicillin', 'Am I allergic to penicillin?'],
    // A tester's: a value in lower case, in a long sentence (mem0 #5867 tried on Engram).
    ['i moved to paris last year with my wife and two kids and our old dog and we rent a small flat near the river', 'i moved to rome last year with my wife and two kids and our old dog and we rent a small flat near the river'],
    ['my favourite colour has always been blue since i was a little kid growing up by the sea', 'my favourite colour has always been green since i was a little kid growing up by the sea'],
    ['the doctor told me last week that i am allergic to penicillin and should carry a card', 'the doctor told me last week that i am allergic to amoxicillin and should carry a card'],
    // A tester's: a word added that qualifies, hedges or reverses the statement (mnemon #133 tried on Engram).
    ['My flight to Boston on Friday evening with United Airlines leaves from gate twelve', 'My flight to Boston on Friday evening with United Airlines leaves from gate twelve, cancelled'],
    ['My flight to Boston on Friday evening with United Airlines leaves from gate twelve', 'My flight to Boston on Friday evening with United Airlines leaves from gate twelve is delayed'],
    ['I live in Lisbon with my partner and our two dogs near the river', 'I live in Lisbon with my ex partner and our two dogs near the river'],
    ['I live in Lisbon with my partner and our two dogs near the river', 'I live in Lisbon with my late partner and our two dogs near the river'],
    ['I live in Lisbon with my partner and our two dogs near the river', 'I may live in Lisbon with my partner and our two dogs near the river'],
    ['I live in Lisbon with my partner and our two dogs near the river', 'I could live in Lisbon with my partner and our two dogs near the river'],
    ['I live in Lisbon with my partner and our two dogs near the river', 'I hope to live in Lisbon with my partner and our two dogs near the river'],
    ['I live in Lisbon with my partner and our two dogs near the river', 'I live in Lisbon with my partner and our two dogs near the river anymore'],
    ['The meeting with the design team is on Monday at the main office', 'The meeting with the design team is on Monday at the main office, cancelled'],
  ])('a negation or a changed value is another statement: %s / %s', (a, b) => {
    expect(sameStatement(`user: ${a}`, `user: ${b}`, DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(false);
    // Each is still the same as itself, said again.
    expect(sameStatement(`user: ${a}`, `user: ${a}.`, DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(true);
    expect(sameStatement(`user: ${b}`, `user: ${b}!`, DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(true);
  });

  // A newcomer's: typed on a phone ("don’t") or without an apostrophe ("dont"), the negation was not
  // seen, and "I don’t like spicy Thai food" reinforced "I like spicy Thai food".
  it.each([["I don\u2019t like spicy Thai food a lot"], ["I can\u2019t eat spicy Thai food a lot"], ['I dont like spicy Thai food a lot'], ['I dont really like spicy Thai food a lot']])(
    'a negation typed with a curly apostrophe or none is a negation: %s',
    (negated) => {
      expect(sameStatement('user: I like spicy Thai food a lot', `user: ${negated}`, DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(false);
      expect(sameStatement("user: I don't like spicy Thai food a lot", 'user: I don\u2019t like spicy Thai food a lot', DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(true);
    },
  );

  it("a negation said another way is the same statement: don't / do not", () => {
    expect(sameStatement('user: I do not have a car', "user: I don't have a car", DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(true);
    // Shouted: no name "DON" nor letter "T" (a tester's find); a name in capitals with its possessive stays a value.
    expect(sameStatement("user: I DON'T like spicy Thai food a lot", "user: I don't like spicy Thai food a lot", DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(true);
    expect(sameStatement("user: I DON'T like spicy Thai food a lot", "user: I do not like spicy Thai food a lot", DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(true);
    expect(sameStatement("user: I work at JOHN'S bakery near the old harbour", "user: I work at MARY'S bakery near the old harbour", DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity)).toBe(false);
  });

  it("an assistant's words are not a user's facts, a first-person reaction is chatter, decomposed Hangul reads as composed", () => {
    const said = 'As an AI I do not have preferences, but I love helping! I live in the cloud.';
    expect(scoreByRulesAndFacts(said, { role: 'assistant' }, DEFAULT_LIFECYCLE)).toBe(scoreByRules(said, {}, DEFAULT_LIFECYCLE));
    for (const text of ['I love it!', "That's so cool, I love it!", 'I like that']) expect(score(text)).toBeLessThan(trigger);
    expect(score('저는 서울에 살아요.'.normalize('NFD'))).toBe(score('저는 서울에 살아요.'));
  });
});
