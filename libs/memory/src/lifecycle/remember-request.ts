import { straightApostrophes } from '../apostrophes';
import { withExplicitSaveFloor, type ImportanceResult } from './importance';
import type { LifecycleConfig } from './lifecycle-config';

// An imperative at the start of a sentence (after "hey," or "also,"), asking the listener to keep
// what follows: said politely ("please remember ..."), or followed by a colon ("Note: ...") or by the
// speaker's own words within three ("remember that my wife ...", "keep in mind I'm vegan"). Advice
// to the other ("remember to take breaks", "don't forget, believe in yourself"), a reminiscence
// ("remember when we ...", "remember that time I ...") and "I remember" ask for nothing.
const OPENER = String.raw`(?:^|[.!?\n]\s*)(?:(?:hey|ok(?:ay)?|also|and|oh|btw|fyi)[,:]?\s+)*`;
const VERB = String.raw`(?:remember|memori[sz]e|note|save|store|(?:do not|don't|never)\s+forget|keep\s+in\s+mind|make\s+a\s+note(?:\s+of)?|note\s+to\s+self|take\s+note(?:\s+of)?|for\s+future\s+reference|for\s+the\s+record)`;
const REMINISCENCE = String.raw`(?!\s+(?:when|how|the\s+time|that\s+time|that\s+day|the\s+day)\b)`;
const ENGLISH = new RegExp(
  OPENER +
    String.raw`(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:remember|note|keep\s+in\s+mind)\s+(?:that|this)\b(?!\s+(?:time|day)\b)|(?:please|pls)\s+${VERB}${REMINISCENCE}\b|${VERB}${REMINISCENCE}(?:(?:\s+(?:this|that|it))?\s*[:\-–—]\s*\S|,?(?:\s+(?:this|that|it|is|was|about))?(?:\s+[\p{L}']+){0,2}?\s+(?:my|i|i'm|i've|i'll|me|we|we're|our|mine)\b))`,
  'iu',
);
// "Remember (that) the garage code is 3391": a statement of a particular after the verb, which
// advice lacks ("remember that staying positive is important"): a digit, a name, or a word for a
// thing people ask to keep (code, password, birthday ...).
const STATEMENT = new RegExp(OPENER + String.raw`${VERB}${REMINISCENCE}\s+(?:that\s+)?([^.!?
]{1,200}?\s(?:is|are|was|were|=)\s[^.!?
]*)`, 'iu');
const PARTICULAR = /\d|(?<=\s)\p{Lu}|\b(?:code|password|passcode|pin|number|address|birthday|anniversary|appointment|meeting|deadline|flight|name|phone|email|allergic|allergy)\b/u;
// 기억해 (줘/둬/주세요), 잊지 마, 메모해; 覚えて, 忘れないで; 记住, 别忘了; merk(e) dir; souviens-toi, retiens que, n'oublie pas; recuerda (que, esto), no olvides.
const OTHER = /기억해\s*(?:줘|둬|두|주|놔)|기억해\s*$|잊지\s*마|메모해|覚えて(?:おいて|ください)|忘れないで|记住|記住|别忘了|別忘了|merke?\s+dir|vergiss\s+nicht|souviens-toi|rappelle-toi|retiens\s+(?:que|bien|ceci|ça)|n'oublie\s+pas|no\s+olvides|recuerda\s+(?:que|esto|bien)|recuérdalo/iu;

/**
 * A person asking the listener to remember what they say ("Remember this: my locker code is
 * 4512", "don't forget my wife is allergic to peanuts", "기억해 줘"): the conversation's form of
 * seed 000's `explicit_save_command`, so the message gets the explicit save's importance floor
 * (docs/design.md §5.1). A reminiscence ("remember when we ...", "I remember ...") is no request.
 * @returns true when the text asks to be remembered
 */
export function asksToRemember(text: string): boolean {
  const t = straightApostrophes(text.normalize('NFC'));
  const statement = STATEMENT.exec(t)?.[1];
  return ENGLISH.test(t) || OTHER.test(t) || (statement !== undefined && !/\?\s*$/.test(t) && PARTICULAR.test(statement));
}

// What an instruction about the assistant's answers is about: their language, form, tools, the
// user's name and units. Advice between friends ("never give up", "always remember to smile")
// names none of these.
const OUTPUT =
  String.raw`(?:answers?|repl(?:y|ies)|respon(?:d|ses?)|write|writing|messages?|emojis?|emoticons?|language|english|german|french|spanish|korean|japanese|chinese|tone|bullet(?: points)?|markdown|tables?|code|comments?|tabs|spaces|semicolons|typescript|javascript|python|npm|yarn|pnpm|bun|formal|informal|short|brief|concise|detailed|summar(?:y|ies)|sources|links|my (?:full )?name|first name|last name|nickname|metric|imperial|celsius|fahrenheit|24-hour|units|currency|time ?zone)`;
const INSTRUCTION = new RegExp(
  String.raw`(?:^|[.!?\n]\s*)(?:(?:ok(?:ay)?|also|and|oh|btw|hey)[,:]?\s+)*(?:please\s+|pls\s+)?` +
    String.raw`(?:(?:from now on|going forward|in (?:the )?future|henceforth)\b` +
    String.raw`|(?:always|never|(?:don't|do not) ever|stop|quit|avoid|only)\s+(?:\S+\s+){0,6}?${OUTPUT}\b` +
    String.raw`|(?:don't|do not)\s+(?:use|add|include|put|send|write|reply|respond|answer|call|mention|give|show)\s+(?:\S+\s+){0,5}?${OUTPUT}\b` +
    // A topic to leave alone: "Please don't ever mention my ex-wife", "Stop suggesting recipes with
    // pork" (a newcomer's, 0.09-0.53); not "Don't mention it".
    String.raw`|(?:(?:don't|do not)\s+(?:ever\s+)?|never\s+|stop\s+)(?:mention(?:ing)?|bring(?:ing)?\s+up|suggest(?:ing)?|recommend(?:ing)?|talk(?:ing)?\s+about|ask(?:ing)?\s+(?:me\s+)?about)\s+(?!it\b|that\b|this\b)\S+` +
    String.raw`|(?:reply|respond|answer|write|talk to me|speak to me)\s+(?:to me\s+)?(?:in|with|using|only)\b` +
    String.raw`|keep\s+(?:your|the|all)\s+(?:answers|replies|responses|messages|summaries|code)\b` +
    String.raw`|use\s+\S+\s+(?:instead of|rather than|over)\b)`,
  'iu',
);

// The same in the other languages the rules read: "from now on" alone, or a verb of answering with
// "always", "only", a language or a length ("Antworte immer kurz", "Réponds en anglais",
// "以后请用英文回答", "これからは英語で答えてください", "앞으로는 영어로 대답해 주세요"; a newcomer's, all
// discarded at 0.07-0.24 while the English said the same at 0.8).
const INSTRUCTION_INTL = new RegExp(
  [
    String.raw`(?<![\p{L}])(?:ab jetzt|von jetzt an|von nun an|ab sofort|in zukunft|künftig|désormais|dorénavant|à partir de maintenant|à l'avenir|a partir de ahora|de ahora en adelante|desde ahora|en adelante)(?![\p{L}])`,
    String.raw`(?<![\p{L}])(?:antworte|antwortet|antworten sie|schreib|schreibe|sprich|réponds|répondez|réponds-moi|répondez-moi|écris|écrivez|parle-moi|parlez-moi|responde|respóndeme|responda|contesta|contéstame|escribe|escríbeme|háblame)(?:\s+\S+){0,3}?\s+(?:immer|nur|auf (?:deutsch|englisch|französisch|spanisch|koreanisch|japanisch|chinesisch)|kurz|toujours|uniquement|seulement|en (?:anglais|français|allemand|espagnol|coréen|japonais|chinois)|brièvement|siempre|solo|sólo|en (?:inglés|español|alemán|francés|coreano|japonés|chino)|brevemente)(?![\p{L}])`,
    String.raw`以后(?:请|要|都|你)|今后(?:请|要|都|你)|从现在开始|从今以后|往后请|(?:请|以后)?(?:用|以)\p{Script=Han}{1,6}(?:回答|回复|写)`,
    String.raw`これからは|今後は|今度から|(?:で|に|く)(?:答えて|返事して|書いて|話して)(?:ください|下さい)`,
    String.raw`(?:앞으로(?:는)?|지금부터(?:는)?|이제부터(?:는)?)\s.{0,30}(?:주세요|줘|하세요)|(?:로|으로|게)\s*(?:대답|답변|답|말|써)\s*(?:해\s*)?(?:주세요|줘)`,
  ].join('|'),
  'iu',
);

/**
 * A standing instruction to the assistant ("From now on, reply in German", "Always use bun
 * instead of npm", "Keep your answers short", "Stop using emojis"): a preference about how to
 * be answered, said as a command, which the fact rules (first-person statements) read as
 * chatter (testers' finds, after claude-code #75297 and TrueMemory #554).
 * @returns true when the text gives one
 */
export function givesInstruction(text: string): boolean {
  const t = straightApostrophes(text.normalize('NFC'));
  return INSTRUCTION.test(t) || INSTRUCTION_INTL.test(t);
}

/**
 * A user's message that asks to be remembered ({@link asksToRemember}) or gives a standing
 * instruction ({@link givesInstruction}) is an explicit save: its
 * importance is at least `importance.explicit_save_floor` (0.8 by default, above the importance
 * trigger's 0.7, so it consolidates at its first STM step; path `explicit_save`). Another role's
 * words, and a score already at the floor, are left as they are.
 */
export function withExplicitSaveRequest(result: ImportanceResult, message: { role: string; content: string }, config: LifecycleConfig): ImportanceResult {
  return message.role === 'user' && (asksToRemember(message.content) || givesInstruction(message.content)) ? withExplicitSaveFloor(result, config.importance.explicit_save_floor) : result;
}
