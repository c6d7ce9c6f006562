import fc from 'fast-check';
import { QUESTION_QUOTE_MAX, questionLine, questionsOf } from './answer';

const lastQuestion = (text: string) => questionsOf(text).at(-1) ?? '';
import { answersElliptically, factSignals } from './facts';
import { scoreByRulesAndFacts } from './importance';
import { DEFAULT_LIFECYCLE } from './lifecycle-config';
import { chunkBuffer, type StmEntry } from './stm';
import { stmContent } from './stm-step';

const trigger = DEFAULT_LIFECYCLE.consolidation.triggers.importance;
const asked = (question: string, speaker = 'assistant') => ({ speaker: 'user', role: 'user' as const, previous: { speaker, text: question } });
const score = (answer: string, question: string, speaker?: string) => scoreByRulesAndFacts(answer, asked(question, speaker), DEFAULT_LIFECYCLE);

describe('short answers read with their question (libs/memory answer.ts)', () => {
  // A newcomer's interview: every answer was discarded (below attention or under the trigger).
  it.each([
    ["What is your sister's name?", 'Anna.'],
    ['Where do you work?', 'At Globex, as a nurse.'],
    ['Any allergies I should know about?', 'Penicillin.'],
    ['Do you have any allergies?', 'No.'],
    ['Do you have kids?', 'Yes, two.'],
    ['How old are you?', '34'],
    ['Where are you from?', 'Lisbon, originally.'],
    ["What's your favourite food?", 'Sushi!'],
    ['Do you take any medication?', 'Metformin, 500mg twice a day.'],
    ['Which city do you live in?', 'Berlin.'],
    ['여동생 이름이 뭐예요?', '안나요.'],
  ])('an answer about the person\'s life is their fact: %s %s', (question, answer) => {
    expect(answersElliptically(answer, asked(question))).toBe(true);
    expect(score(answer, question)).toBeGreaterThanOrEqual(trigger);
    expect(score(answer, 'Nice weather today, right?')).toBeLessThan(trigger);
  });

  it.each([
    ["What's your sister's name?", "I don't know"],
    ["What's your sister's name?", "I'd rather not say."],
    ["What's your sister's name?", 'Why do you ask?'],
    ['How are you?', 'Good, thanks!'],
    ['How was your weekend?', 'Great!'],
    ['Does that help?', 'Yes, thanks.'],
    ['Want me to set a reminder?', 'Sure.'],
    ['Anything else I can help with?', 'No.'],
  ])('a non-answer or a pleasantry stays under the trigger: %s %s', (question, answer) => {
    expect(score(answer, question)).toBeLessThan(trigger);
  });

  it('is an answer only to someone else\'s question, and only when it says nothing alone', () => {
    expect(answersElliptically('Anna.', { speaker: 'user', previous: { speaker: 'user', text: "What is my sister's name?" } })).toBe(false);
    expect(answersElliptically('Anna.', { speaker: 'user', previous: { speaker: 'assistant', text: 'Tell me about your family.' } })).toBe(false);
    expect(answersElliptically('My sister is called Anna and she lives in Porto.', asked("What is your sister's name?"))).toBe(false);
    expect(answersElliptically('Anna.', { speaker: 'user' })).toBe(false);
  });

  it('reads the question the previous message ends with, an image caption left out', () => {
    expect(lastQuestion('Congrats on the new team! Which team did you sign with?')).toBe('Which team did you sign with?');
    expect(lastQuestion('Look at this, huh? [shared an image: a photo of a laptop]')).toBe('Look at this, huh?');
    expect(lastQuestion('No question here.')).toBe('');
    // The question asks about a pastime, not the family its sentence before names: no lift.
    expect(factSignals('It was great!', asked('My family came over. Did the rain stop?')).life_fact).toBe(0);
  });

  // A newcomer's: the question's own entry chunked with its answer's read the question twice.
  it('a chunk of a question and its answer holds the question once, and each message once', () => {
    const at = new Date('2026-03-06T15:00:00Z');
    const entry = (id: string, content: string, message_ids: string[]): StmEntry => ({
      id, content, speaker: null, message_ids, importance: 0.5, emotion: 0, association: 0, utility: 0, mentions: 1, rehearsal_count: 0, decay_factor: 0.85, entered_at: at, last_rehearsed_at: at, chunk: null,
    });
    const question = 'assistant: Nice to meet you, Dana! Where do you live these days?';
    const long = `assistant: ${'We talked about your garden and your dogs. '.repeat(10)}Where do you live these days?`;
    for (const [asked, quoted] of [[question, question], [long, questionLine({ speaker: 'assistant', text: long.slice('assistant: '.length) })]] as const) {
      const chunked = chunkBuffer([entry('q', asked, ['m1']), entry('a', `${quoted}\nuser: I live in Rotterdam these days, near the port`, ['m1', 'm2'])], 'c', DEFAULT_LIFECYCLE);
      expect(chunked?.[0]?.content).toBe(`${asked}\nuser: I live in Rotterdam these days, near the port`);
      expect(chunked?.[0]?.message_ids).toEqual(['m1', 'm2']);
    }
  });

  it('keeps the question before the answer in STM, on one line, its end at most QUESTION_QUOTE_MAX characters', () => {
    const answering = { id: 'q', speaker: 'assistant', text: "What is your\nsister's name?" };
    expect(stmContent({ speaker: 'user', text: 'Anna.', answering })).toBe("assistant: What is your sister's name?\nuser: Anna.");
    expect(stmContent({ speaker: 'user', text: 'Anna.', answering: null })).toBe('user: Anna.');
    fc.assert(
      fc.property(fc.string({ maxLength: 800 }), (text) => {
        const line = questionLine({ speaker: 's', text: `${text} What is your name?` });
        expect(line.length).toBeLessThanOrEqual('s: '.length + QUESTION_QUOTE_MAX + 2);
        expect(line).not.toMatch(/\n/);
        expect(line.endsWith('What is your name?')).toBe(true);
        // No surrogate half left alone by the cut.
        expect(line).not.toMatch(/^s: …?[\uDC00-\uDFFF]/);
      }),
    );
  });
});
