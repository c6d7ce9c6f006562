import fc from 'fast-check';
import { DEFAULT_LIFECYCLE } from './lifecycle-defaults';
import { asksToRemember, givesInstruction, withExplicitSaveRequest } from './remember-request';

const REQUESTS = [
  'Remember this: my locker code is 4512',
  'Please remember that my wife is allergic to peanuts',
  "Don't forget: the wifi password is tiger42",
  'Don’t forget that I’m flying to Lisbon on the 12th',
  'Remember my anniversary is June 3rd',
  'Keep in mind I am vegan',
  'Save this: parking spot B12',
  'Note to self: buy milk',
  'remember: standup moved to 10am',
  'Hey, note that I moved to Berlin',
  'For future reference, my blood type is O+',
  'Thanks! Also, please remember to book the table',
  '기억해 줘: 내 사물함 번호는 4512야',
  '잊지 마, 다음 주 화요일에 치과 예약이 있어',
  '覚えておいて、私の誕生日は5月3日です',
  '记住，我对花生过敏',
  // A tester's: the particular after "remember (that|the)" (helper 21).
  'Remember that the garage code is 3391.',
  'Remember the wifi password is hunter2',
  "Remember that Sarah's birthday is May 3.",
  "Don't forget the dentist appointment is on Tuesday",
  // A kept thing named only by its word (no digit, no name): the word list once never matched.
  'Remember that my locker password is sunflower',
  // A newcomer's, at 0.51-0.60: German, French and Spanish requests with another opening.
  'Recuerda esto: mi taquilla es la 217',
  'Merke dir, dass mein Schließfach die 217 ist',
  'Retiens que mon casier est le 217',
  // Asked as a question (the next newcomer's, at 0.41).
  'Can you remember that I parked on level 3?',
];
// Reminiscence, advice to the other, questions: LoCoMo's friends say these to each other.
const NOT_REQUESTS = [
  'Remember when we went to Paris?',
  'I remember that day',
  'Do you remember my dog?',
  'I will never forget that trip',
  "Don't forget when we met",
  'I noted that down',
  'Keep that up!',
  'Save that for later, lol',
  'Remember to take breaks',
  "Don't forget, believe in yourself",
  'Remember that time I fell?',
  'Remember that epic block in Game 7?',
  'Remember that staying positive is very important.',
  'Remember that the best is yet to come',
  'Remember the day we met at the beach?',
  'Can you remember that time we went hiking?',
  'Can you remember what I said yesterday?',
];

// A tester's: standing instructions said as commands were discarded (claude-code #75297, TrueMemory #554).
const INSTRUCTIONS = [
  'From now on, reply in German',
  'Always use bun instead of npm',
  'Keep your answers short',
  'Stop using emojis',
  'Please always answer in German',
  "Don't ever use emojis in replies to me",
  'Never put my full name into code repos',
  'Only answer in bullet points',
  "Don't use emojis",
  // A newcomer's, discarded at 0.07-0.24: the same in the other languages the rules read.
  'Antworte ab jetzt auf Englisch',
  'Antworte immer kurz',
  'Désormais, réponds en anglais',
  'A partir de ahora, responde en inglés',
  '以后请用英文回答',
  'これからは英語で答えてください',
  '앞으로는 영어로 대답해 주세요',
  '앞으로 답변은 짧게 해 주세요',
  // A newcomer's (helper 27), discarded at 0.09-0.53: a topic to leave alone.
  "Please don't ever mention my ex-wife.",
  'Stop suggesting recipes with pork.',
  'Never bring up my divorce',
];
// Friends' advice in LoCoMo's manner.
const NOT_INSTRUCTIONS = [
  'Never give up on your dreams!',
  'Always remember to smile',
  'Stop by anytime!',
  "Don't worry about it",
  'Keep it up!',
  'Only time will tell',
  "Don't be afraid to write and share",
  '以后再说吧',
  'Ich antworte dir später',
  '앞으로 열심히 할게요',
  "Don't mention it!",
  'Stop talking about that, haha',
];

describe('a standing instruction to the assistant', () => {
  it.each(INSTRUCTIONS)('is one: %s', (text) => {
    expect(givesInstruction(text)).toBe(true);
    expect(withExplicitSaveRequest({ score: 0.2, path: 'rules' }, { role: 'user', content: text }, DEFAULT_LIFECYCLE)).toEqual({ score: 0.8, path: 'explicit_save' });
  });
  it.each(NOT_INSTRUCTIONS)('is not: %s', (text) => expect(givesInstruction(text)).toBe(false));
});

describe('a request to remember (seed 000 explicit_save_command, said in a conversation)', () => {
  it.each(REQUESTS)('is a request: %s', (text) => expect(asksToRemember(text)).toBe(true));
  it.each(NOT_REQUESTS)('is not: %s', (text) => expect(asksToRemember(text)).toBe(false));

  it("lifts a user's request to the explicit-save floor, above the importance trigger", () => {
    const lifted = withExplicitSaveRequest({ score: 0.23, path: 'rules' }, { role: 'user', content: "Don't forget: the wifi password is tiger42" }, DEFAULT_LIFECYCLE);
    expect(lifted).toEqual({ score: DEFAULT_LIFECYCLE.importance.explicit_save_floor, path: 'explicit_save' });
    expect(lifted.score).toBeGreaterThanOrEqual(DEFAULT_LIFECYCLE.consolidation.triggers.importance);
  });

  it("never lowers a score, and leaves an assistant's, a tool's or a system's words alone", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('user', 'assistant', 'tool', 'system'), fc.constantFrom(...REQUESTS, ...NOT_REQUESTS), (score, role, content) => {
        const out = withExplicitSaveRequest({ score, path: 'rules' }, { role, content }, DEFAULT_LIFECYCLE);
        expect(out.score).toBeGreaterThanOrEqual(score);
        if (role !== 'user' || !asksToRemember(content)) expect(out).toEqual({ score, path: 'rules' });
      }),
    );
  });
});
