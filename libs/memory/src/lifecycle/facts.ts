import { straightApostrophes } from '../apostrophes';
import { subjectlessCorrection } from './correction';
import { lifeChange } from './life-change';
import { ABOUT_THE_ASKER, ASKED_ABOUT, NON_ANSWER, OFFER, YES_NO_QUESTION, YES_OR_NO, questionsOf } from './answer';
/**
 * What makes a message worth remembering without an LLM (ours, after seed 001 §1.2's rule engine,
 * whose keyword lists and weights are ours to choose; docs/design.md §5.1): a person stating a
 * fact about themselves or their world (identity, work, home, family, health, plans, preferences,
 * decisions, corrections), with the particulars that make a fact (dates and times, numbers,
 * named things), rather than chatter (reactions, greetings, questions back). Each signal is
 * detected lexically, English and Korean; their weights are tuned on LoCoMo's observations
 * (bench/tune-conversation.ts, by cross-validation) and live in the lifecycle settings.
 */

/** The signals of one text, each 0 or 1 (`named` counts names, at most 3). */
export interface FactSignals {
  /** I, my, we ... / 저는, 제가, 우리 ... */
  first_person: number;
  /** A first-person statement of a state or an event: "I started ...", "my daughter ...". */
  self_statement: number;
  /** Life domains: work, home, family, health, education, pets, money, travel and bookings, the codes one keeps (door, garage, PIN). */
  domain: number;
  /** love, like, hate, prefer, favourite ... */
  preference: number;
  /** going to, will, plan, next week ... */
  plan: number;
  /** decided, approved, agreed, chose, signed, cancelled ...: a decision made. */
  decision: number;
  /** actually, no longer, moved to, switched, now ... */
  correction: number;
  /** yesterday, last month, a weekday or month, a year, "at age ..." */
  time: number;
  /** A digit. */
  number: number;
  /** Capitalised words inside a sentence and acronyms anywhere (names of people, places, things), at most 3. */
  named: number;
  /** A reaction or a pleasantry with nothing of the speaker's own: "Wow, that's amazing!" */
  reaction: number;
  /** A question and little else. */
  question: number;
  /** How long it is: ln(1 + characters) / ln(1 + 500), at most 1. */
  length: number;
  /** First-person words, a quarter each, at most 1 (one who talks about themselves says more of them). */
  first_person_words: number;
  /** Second-person words (you, your), a quarter each, at most 1: talk about the other. */
  second_person: number;
  /** Exclamation marks, a third each, at most 1. */
  exclamations: number;
  /** A shared image (its caption in brackets): what it shows is often not the speaker's fact. */
  image: number;
  /** A first-person statement of identity ("I'm a nurse", "my name is"), a life domain, a preference, a decision or a change: the core of a personal fact. */
  life_fact: number;
  /** The message before it, from someone else, asked a question: an answer carries the facts asked for. */
  answers_question: number;
}

/** What came just before a message in its conversation, when known. */
export interface FactContext {
  previous?: { speaker: string | null; text: string } | null;
  speaker?: string | null;
  /** The message's role: only a user's (or an unnamed writer's) words are scored as facts about a person. */
  role?: 'user' | 'assistant' | 'system' | 'tool';
}

export type FactWeights = Record<keyof FactSignals, number>;

// Whole words of spaced languages: a letter or digit on neither side (accented letters included).
const wholeWords = (alternatives: string) => new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`, 'iu');
const FIRST_PERSON = /\b(i|i'm|im|i've|ive|i'd|i'll|my|mine|me|myself|we|we're|we've|we'll|our|ours|us)\b|저는|제가|저의|나는|내가|나의|우리|저희/i;
const VERB =
  'am|was|were|have|had|got|get|went|go|wake|woke|drink|eat|smoke|wear|rent|weigh|carry|started|start|finished|began|joined|moved|bought|made|took|visited|saw|met|decided|plan|planned|planning|will|want|wanted|need|needed|love|loved|like|liked|enjoy|enjoyed|hate|hated|dislike|disliked|detest|prefer|work|worked|working|live|lived|living|study|studied|learned|learning|adopted|signed|lost|won|received|graduated|married|getting|engaged|retired|take|taking|took|broke|hurt|injured|sprained|quit|opened|launched|built|wrote|painted|ran|finally|switched|changed|became|stopped|use|used|using|drive|drove|driving|own|owned|play|played|playing|speak|spoke|teach|taught|teaching|train|trained|training|practice|practise|practiced|volunteer|volunteered|run|running|got promoted|expecting|sold|sell|selling|booked|reserved|cancelled|canceled|postponed|rescheduled|earn|earned|earning';
const SELF_STATEMENT = new RegExp(
  `\\bthe\\s+(?:kids|children|twins)\\s+(?:are|were)\\b|\\b(i|we)\\s+(?:(?:just|recently|finally|also|really|actually|still|now|already|usually|often|always|sometimes|normally|mostly|never|have|had|'ve|'m|am|are|'re|was|were|'d|'ll|gonna|going to|started to|used to|don't|do not|didn't|did not|no longer)\\s+)*(?:${VERB})\\b|\\b(i'm|im|i've|ive|we're|we've)\\s+\\w+|\\b(i|we)\\s+(?:really\\s+|just\\s+)?(?:can't|cannot|can not)\\s+stand\\b|\\b(?:my|our)\\s+(?:[\\w']+\\s+){0,2}[\\w']+(?:\\s+(?:to|from|at|in|on|for|with|of)\\s+(?:(?:the|a|an|my|our)\\s+)?(?:[\\w']+\\s+)?[\\w']+)?\\s+(is|was|are|were|has|had|got|gets|just|leaves|left|departs|departed|arrives|arrived|lands|landed|expires|expired|renews|closes|opens|costs|cost|delayed|loves?|likes?|starts?|started|goes|went|works?|worked|lives?|lived|turned|turns|passed|died|moved|graduated|retired|broke|crashed|left|quit|plays?|played|studies|studied|teaches|taught|drives|drove|owns|speaks|attends|attended|sings|dances|swims|trains|volunteers)\\b`,
  'i',
);
// Casual English drops the subject too, at a sentence's start: "Just got some new shoes", "Been
// tweaking a dessert recipe", "Gonna volunteer at shelters next month" (LoCoMo's chat; a statement,
// not a question, and with more than the verb: not "Got it!").
const SELF_STATEMENT_DROPPED =
  /(?:^|[.!?]\s+)(?:(?:just|finally|recently|also|still)\s+)?(?:got(?!\s+(?:it|your|you|ya|this|that|to)\b)|had|went|started|finished|bought|made|took|visited|joined|moved|adopted|won|lost|received|booked|tried|signed up|picked up|been\s+(?:(?:real|really|so|super|pretty)\s+)?(?:busy|working|tackling|tweaking|trying|doing|learning|training|practicing|practising|volunteering|reading|writing|playing|helping|taking|getting|going|looking|planning)|busy with|gonna\s+(?!be\b)\w+|planning to|heading to|off to)\s+(?:[^\s.!?]+\s+){1,}[^\s.!?]+[^?]*?(?:[.!]|$)/i;
// Korean drops the subject: a life event in the first person's polite or plain past/present counts without one.
const SELF_STATEMENT_KO =
  /(?:^|\s)제 [가-힣]|우리 집|(?:출장|여행|휴가)(?:을|를)? (?:가|갈|갔|떠나)|(저는|제가|나는|내가|우리는|저희는).{0,30}(했|해요|합니다|했어|있어|있습니다|살아|살고|다녀|다니|일해|일하|좋아|싫어|샀|갔|시작|이사|결혼|졸업|그만|키워|키우)|(더 이상 .{0,20}(?:지 않|안 )|끊었|좋아해|싫어해|이사했|결혼했|졸업했|입사했|퇴사했|취직했|전학했|이직했|시작했|살고 있|살아요|일해요|일하고 있|다니고 있|다녀요|키우고 있|키워요|갈 거|할 거|갈 예정|할 예정|하려고|먹어요|마셔요|안 먹|안 피워|임신했|이혼했|살이에요|(?:채식주의자|학생|의사|간호사|선생님|엔지니어|회사원|주부)(?:예요|이에요|입니다)|이름은|(?:아내|남편|딸|아들|엄마|아빠|부모님|여자친구|남자친구|고양이|강아지)(?: [가-힣]+)?(?:은|는|이|가) .{0,20}(?:예요|이에요|입니다|있어요))/;
const DOMAIN =
  /\b(job|work|career|company|boss|office|colleague|business|store|shop|studio|client|customer|salary|promotion|promoted|manager|team|project|interview|home|house|apartment|city|town|moved|kids?|children|son|daughter|husband|wife|partner|boyfriend|girlfriend|mom|mother|dad|father|sister|brother|family|parents?|grandma|grandpa|baby|pregnant|wife's|husband's|doctor|hospital|sick|ill|allergic|allergy|diagnosed|surgery|therapy|health|insulin|metformin|medication|medicine|meds|pills?|dose|dosage|mg|prescription|prescribed|relocated|relocating|depressed|anxious|lonely|burn(?:ed|t) out|(?:once|twice|\w+ times) a (?:day|week|month)|blood (?:sugar|pressure|type|thinners)|diabetes|asthma|coffee|tea|glasses|contacts|epipen|hives|smoke|smoking|kg|pounds|lbs|swim|migraines?|headaches?|injury|leg|arm|knee|back pain|sleep|bed|bedtime|wake up|insomnia|anxiety|depression|married|wedding|engaged|divorced|broke up|split up|separated|wheelchair|crutches|hearing aids?|insulin pump|cpap|phone|email|address|birthday|school|class|degree|college|university|course|exam|learning|studying|lessons?|language|japanese|spanish|french|german|korean|chinese|marathon|gym|training|hobby|guitar|piano|band|car|dogs?|cats?|pets?|puppy|puppies|kitten|adopted|adoption|twins|money|loan|rent|earn|earns|earned|paid|income|flights?|gate|boarding|booking|booked|reservations?|hotel|trip|travel(?:ling|ing)?|tickets?|passport|visa|trains?|bus|platform|seat|taxi|rental|airport|appointment|dentist|vet|garage|storage unit|locker|combination|(?:door|garage|gate|access|alarm|lock|locker|security|zip|postal|confirmation|booking) code|confirmation number|booking reference|reference number|passcode|password|pin|wi-?fi|every (?:day|morning|evening|night|week|weekend)|on weekends)\b|회사|직장|일|집|이사|이직|취직|입사|퇴사|가족|아이|아들|딸|남편|아내|엄마|아빠|부모|병원|의사|아파|알레르기|담배|술|건강|학교|수업|대학|강아지|고양이|결혼|이혼|임신|학생|키워|키우|약|매일|커피|이름|남편|아내|비행기|항공|공항|출장|여행|휴가|예약|호텔|기차|버스|비밀번호|번호|생일/i;
// "into" as a taste only after being ("I'm really into jazz"), not "I'm going to look into it"
// (a newcomer's, kept at importance 1).
const PREFERENCE = /\b(love|loved|loves|like|liked|likes|enjoy|enjoyed|enjoys|hate|hated|hates|dislike|dislikes|detest|prefer|prefers|favou?rite|fave|passionate|passion|can't stand|cannot stand|(?:big |huge |great )?fan of)\b|\b(?:i'm|im|i am|we're|been|really|so|totally|very)\s+into\b|좋아|싫어|선호|제일 좋/i;
const PLAN = /\b(going to|gonna|plan|plans|planning|planned|will|want to|wanna|hope to|hoping to|thinking (?:of|about)|signed up|next (?:week|month|year|weekend)|tomorrow|soon)\b|할 거|예정|계획|하려고|다음 주|내일/i;
// A plan about one's life, said as one ("I'm planning a trip to Japan"): narrower than PLAN, whose
// "going to" and "will" are also how a reply says it will check something.
const LIFE_PLAN = /\b(plan|plans|planning|planned|hope to|hoping to|thinking (?:of|about)|signed up|saving up|saving for)\b|예정|계획|하려고/i;
const DECISION = /\b(decided|decide|decision|approved|approve|agreed|agree to|chose|chosen|picked|settled on|signed|confirmed|accepted|rejected|declined|cancel(?:l)?ed|postponed|committed|elected|hired|fired|bought|sold)\b|결정|승인|합의|선택|확정|취소|계약/i;
const CORRECTION = /\b(actually|no longer|not anymore|any ?more|moved to|switched|changed|instead|now i|used to|rescheduled|postponed|pushed (?:back )?to|called off|(?:is|are|'s) off|make that|(?:is|are|'s) now|(?:down|up) to (?=\d))\b|,\s*not\s+(?:on\s+|at\s+|the\s+)?[\w']+(?:[.,:/-]\d+)*(?:(?<=\d)\s[a-z%]{1,6})?\s*[.!]*$|사실은|사실 |바뀌었|변경|이제는|더 이상|바꿨|옮겼|이사했/i;
// A decision or a change in the other languages read (a newcomer's: "Mein Flug nach Wien wurde
// gestrichen", "Je n'habite plus à Paris" discarded at 0.46-0.62).
const DECISION_INTL = new RegExp(
  `取消|決定|キャンセル|${wholeWords('gestrichen|abgesagt|storniert|entschieden|gekündigt|annulé|annulée|annulés|décidé|décidée|démissionné|cancelado|cancelada|cancelé|decidí|decidimos|renuncié').source}`,
  'iu',
);
const CORRECTION_INTL = new RegExp(
  `其实|不再|改到|改成|换成|改为|もう.{0,6}ない|実は|変わりました|変更|${wholeWords("verschoben|geändert|déplacé|déplacée|changé|changée|se cambió|cambió|cambiada|cambiado|eigentlich|nicht mehr|kein(?:e|en)? mehr|en fait|ne \\p{L}+ plus|n'\\p{L}+ plus|plus jamais|ya no|en realidad|de hecho").source}`,
  'iu',
);
// A code, number or password one keeps, said without "my" ("The gate code for the office is
// 4512#", "Booking reference for the rental car: ZX81QP", "호텔 예약 번호는 KX-44821이에요"): its
// value has a digit (a newcomer's, discarded at 0.28-0.46).
const KEPT_CODE =
  /\b(?:password|passcode|pin|code|combination|confirmation|(?:confirmation|booking|reference|account|ticket|flight|membership|policy|tracking|order|reservation|appointment|phone|cell|mobile|room|table) (?:number|no\.?|reference|code)|booking reference|seat)\b[^.!?]{0,40}?(?:\b(?:is|are)\b|:|\s)\s*[^\s.!?]*\d|\b(?:rent|salary|mortgage|deposit|fee|budget|tuition|premium|bill)\b[^.!?]{0,20}?\b(?:is|was|are|of)\b\s*[$€£¥]?\s*\d|(?<![\d-])(?:\(\d{3}\)\s?|\d{3}[-. ])\d{3}[-. ]\d{4}(?!\d)|\+\d{1,3}[\d ()-]{7,}\d|(?:비밀번호|번호|코드)(?:은|는|가|이)\s*\S*\d|(?:订单号|预约号|号码|密码|单号|予約番号|番号|暗証番号|パスワード)(?:是|は|：|:)?\s*\S*\d/i;
// Asking, not telling: "I'm just curious, ...", "My question is about ...", "I was just asking
// about ..." say nothing of the speaker (a newcomer's, kept at 1.0).
const ASKING = /\b(?:i'm|im|i am)\s+(?:just\s+)?(?:curious|wondering)\b[^.!?]*|\bmy\s+(?:question|query)\s+is\b|\bi\s+(?:was|am|'m)\s+(?:just\s+)?asking\b|\bi\s+have\s+a\s+(?:quick\s+)?question\b/gi;
// A question about oneself asks what the speaker would be told: "Do I live in Paris?", "Where do
// I live?", "What's my name?" (a newcomer's, kept at 1.0 as an identity). Not "Did I tell you I
// moved to Berlin?", which tells.
const SELF_QUESTION =
  /(?:^|[.!?]\s+)(?:(?:what|where|when|who|which|how|why)(?:'s|\s+(?:do|does|did|am|is|are|was|were|have|has|had|can|could|should|will|would))|do|does|did|am|is|are|was|were|have|has|had|can|could|should|will|would|shall)\s+(?:i|my|we|our)\b(?![^.!?]*\b(?:tell|told|mention|mentioned|say|said)\b)[^.!?]*\?/gi;
// A passing state is no fact about a life: "I'm so tired today lol", "Ich bin heute so müde",
// "Je suis tellement fatigué aujourd'hui" (the next newcomer's, kept at 0.77).
const PASSING =
  /\b(?:i'm|im|i am|i feel|i'm feeling|feeling)\s+(?:so\s+|really\s+|very\s+|super\s+|kinda\s+|a\s+bit\s+|pretty\s+)?(?:tired|sleepy|bored|hungry|exhausted|stressed)(?:\s+(?:today|tonight|right\s+now|now))?(?:\s+(?:lol|haha|lmao))?|(?<![\p{L}])(?:ich bin (?:heute |gerade )?(?:so |sehr |total )?müde|je suis (?:tellement |très |si )?(?:fatigué|fatiguée|crevé|crevée)(?: aujourd'hui)?|estoy (?:muy |tan )?(?:cansado|cansada|aburrido|aburrida)(?: hoy)?)(?![\p{L}])(?:,?\s*(?:haha|mdr|jaja|lol))?/giu;
const TIME =
  /\b(yesterday|today|tonight|tomorrow|last (?:week|month|year|night|weekend|summer|winter|spring|fall)|next (?:week|month|year)|ago|since|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|weekend|summer|winter|at age|years? old|(?:19|20)\d\d|\d{1,2}(?:st|nd|rd|th)|\d{1,2}(?::\d\d)?\s*(?:am|pm))\b|어제|오늘|내일|지난주|다음 주|작년|내년|월요일|화요일|수요일|목요일|금요일|토요일|일요일|\d+월|\d+일|\d+년/i;
// Who a person is, what they have and how they live: "I'm a nurse", "my name is", "I live in",
// "I have asthma", "I'm vegetarian", "I don't eat pork"; Korean identity and family statements.
// Work and home in the progressive or the past, with where or as what ("I'm working as a nurse",
// "I worked at IBM", "I'm living in Berlin": a newcomer's, discarded at 0.55-0.65), not "I'm working on it".
const IDENTITY =
  /\b(?:i'm|im|i am|i|i've been|i have been)\s+(?:now\s+|currently\s+|still\s+|also\s+|just\s+)?(?:work|working|worked|employed|based|living|lived|staying|study|studying|studied|majoring|enrolled|teach|teaching|taught)(?:\s+\w+)?\s+(?:as|at|for|in|with)\b|\b(i'm|im|i am)\s+(a|an)\s+\w+|\b(?:my|our)\s+(?:[\w]+'s\s+)?name\b|\bcall\s+me\s+[a-z]+\b|\bi\s+keep\s+(?:kosher|halal)\b|\b(?:i|we)\s+(?:still\s+|now\s+|currently\s+|also\s+)?(live|grew up|was born|were born)\b|\b(?:i'm|im|i am|we're|we are)\s+(?:now\s+|finally\s+|already\s+)?back\s+(?:in|at|home|to)\b|\b(?:i|we)\s+(?:just\s+|recently\s+)?(?:moved|relocated)\s+(?:back\s+)?(?:to|into|from)\b|\b(?:i|we)\s+(?:just\s+|recently\s+|finally\s+)?(?:stopped|quit|started|began)\s+(?:taking|smoking|drinking|using)\b|\bi\s+(?:also\s+|still\s+|now\s+)?play\s+(?:the\s+)?(?!it\b|with\b|along\b|around\b|games?\b|a\s+(?:game|joke|trick|role)\b)\w+|\b(?:my|the)\s+(?:doctor|dentist|therapist|physician|gp|cardiologist|psychiatrist|specialist)\s+(?:just\s+)?(?:raised|lowered|increased|reduced|doubled|halved|changed|switched|prescribed|put\s+me\s+on|took\s+me\s+off)\b|\b(i'm|im|i am)\s+from\b|\b(?:we are|we're)\s+a\s+family\b|\bi\s+(?:just\s+|recently\s+|finally\s+)?(have|had|got|own|drive)\s+(?!(?:a|an|another|one\s+more|some|no|any|a\s+few|a\s+quick|a\s+follow-?up|nothing)?\s*(?:more\s+)?(?:questions?|suggestions?|ideas?|clue|thoughts?|comments?|requests?|follow-?ups?|to\s+add)\b|nothing\b|to\b|got\s+to\b|a\s+(?:quick|good|great|nice|lovely|feeling|look|minute|moment|second|sec|point)\b|fun\b|time\b)(a|an|two|three|\d+)?\s*\w+|\b(i'm|im|i am|we're|we are)\s+(?:a\s+|an\s+|\w+\s+)?(vegetarians?|vegans?|pescatarians?|kosher|halal|allergic|intolerant|gluten[- ]free|pregnant|married|single|divorced|retired|diabetic|sober|muslim|christian|catholic|jewish|hindu|buddhist|atheist|deaf|blind|disabled|autistic|left-handed|gay|lesbian|bisexual|straight|transgender|unemployed|self-employed|widowed|engaged|\d+)\b|\b(i'm|im|i am)\s+on\s+(?:\w+\s+)?(?:blood\s+thinners|medication|meds|insulin|antidepressants|chemo|dialysis)\b|\b(i'm|im|i am)\s+(?:\w+\s+)?(afraid|scared|terrified)\s+of\b|\b(?:i\s+(?:now\s+|still\s+|also\s+|only\s+)?(?:take|inject(?=\s+(?:\d|insulin|heparin|ozempic|semaglutide|testosterone|b12|my\s)))|i'm\s+(?:now\s+|still\s+)?(?:taking|injecting(?=\s+(?:\d|insulin|heparin|ozempic|semaglutide|testosterone|b12|my\s)))|im\s+(?:taking|injecting(?=\s+(?:\d|insulin|heparin|ozempic|semaglutide|testosterone|b12|my\s)))|i am\s+(?:now\s+|still\s+)?(?:taking|injecting(?=\s+(?:\d|insulin|heparin|ozempic|semaglutide|testosterone|b12|my\s))))\s+(?!it\b|that\b|this\b|care\b|a\s+(?:look|break|walk|nap)\b)\w+|\bi\s+(don't|do not|never|no longer)\s+(eat|drink|smoke|work|live|have\s+(?!time|an?\s+idea|a\s+clue|any\s+(?:idea|questions?)|questions?)\w+)\b|\bi\s+(?:can't|cannot|can not)\s+(?:swim|drive|eat|drink|walk|see|hear|read|speak|cook|ride|(?:have|tolerate|digest)\s+(?!it\b|that\b|this\b|them\b|you\b|him\b|her\b|anything\b|any\s+more\b)\w+)\b|제 이름은|(?:저는|나는) .{1,20}(예요|이에요|입니다|이야)|제 (아내|남편|딸|아들|엄마|아빠|부모님|여자친구|남자친구)|(있어요|없어요|있습니다|살아요|살고 있어요|안 먹어요|안 마셔요|못 먹어요)|(?:채식주의자|학생|의사|간호사|선생님|엔지니어|회사원|주부)(?:예요|이에요|입니다)|살이에요|살입니다/i;
// A reaction in the first person says nothing of the speaker: "I love it!", "I like that"; and
// in the other languages read ("Ich liebe es!", "J'adore !", "Me encanta", "我爱你", "この答えが好きです").
const REACTION_SELF_INTL =
  /(?<![\p{L}])(?:ich liebe (?:es|dich|das)|j'adore(?: ça)?(?=\s*[.!]*\s*$)|me encantan?(?=\s*[.!¡]*\s*$)|me encanta (?:esto|esta|este|eso)[^.!?]*)(?![\p{L}])|我爱你|我(?:太|很|真|好)?喜欢(?:了|这个|那个|你)\p{Script=Han}{0,3}|(?:この|その|あの)\p{L}{0,6}が好きです|大好き(?=[!！]*$)/giu;
const REACTION_SELF = /\b(i|we)\s+(really\s+|totally\s+|just\s+)?(love|like|adore|enjoy)\s+(it|that|this|them|those|you|u|how\s+you\b[^.!?]*)\b\W*/gi;
// Taking leave says nothing of one's life either: "I'm going to bed now, good night" (a newcomer's, kept at 1.0).
const LEAVING = /\b(?:i'm|im|i am)\s+(?:going|off|heading)\s+to\s+(?:bed|sleep)\s*(?:now)?\s*[.!]*$|\b(?:i'm|im|i am|i'll|i will|i have to|i've got to|i gotta|gotta)\s+(?:going\s+to\s+|off\s+to\s+|heading\s+to\s+|go\s+to\s+|go\s+)?(?:bed|sleep|go|head\s+out|log\s+off|sign\s+off)\s+now\b[^.!?]*|\b(?:good\s*night|bye|see\s+you|talk\s+(?:to\s+you\s+)?(?:later|soon|tomorrow))\b\W*/gi;
const NUMBER = /\d/;
const NAMED = /(?<=[\p{Ll},;:'")]\s)\p{Lu}[\p{Ll}\p{Lu}'’-]+|(?<![\p{L}])\p{Lu}{2,}(?![\p{L}])/gu;
const REACTION =
  /^\W*(wow|whoa|woah|aw+|oh|ooh|haha|lol|cool|nice|great|awesome|amazing|sounds|that's|thats|that is|thanks|thank you|congrats|congratulations|yay|omg|so (?:happy|glad|proud)|good (?:luck|job|for you)|sure|yeah|yes|yep|no worries|same here|definitely|absolutely|totally|glad|hey|hi|hello|bye|see you|take care|love (?:it|that|this)|lovely|beautiful|wonderful|you (?:got|are|'re)|keep (?:it|going)|let's)\b|^(와|우와|대박|좋아요|감사|고마워|축하|응|네|그래|哈哈|谢谢|太好了|好的|恭喜|ありがとう|すごい|おめでとう)|^\W*(danke|merci|gracias|genial|super|toll|bravo)\b/i;
const WORD = /[\p{L}\p{N}]+/gu;

// Chinese, Japanese, German, French and Spanish: a person's own statements of who they are, where
// they work and live, their family, health and tastes, as the English and Korean lists above read
// them. Without these, "我在谷歌工作" or "Ich wohne in München" scored 0.03-0.27 and most fell below
// attention (a newcomer's report; none of LoCoMo's English is changed by them). Spaced languages
// match whole words (a letter on neither side, accented letters included); Chinese and Japanese,
// unspaced, as substrings. Japanese and Spanish drop the subject, as Korean does: their verb forms
// of the first person speak of the speaker.
const FIRST_PERSON_INTL = new RegExp(
  `我|私|僕|俺|わたし|ぼく|(?<![\\p{L}])j'|${wholeWords('ich|mein|meine|meinen|meinem|meiner|mir|mich|wir|unser|unsere|je|moi|mon|ma|mes|nous|notre|nos|yo|mi|mis|nosotros|nosotras|nuestro|nuestra').source}`,
  'iu',
);
const FIRST_PERSON_INTL_COUNT = new RegExp(FIRST_PERSON_INTL.source, 'giu');
const SELF_STATEMENT_INTL = new RegExp(
  [
    // Chinese: I + a verb of state, work, home, taste or plan; "my X is / is called / lives".
    '我(?:的)?(?:女儿|儿子|孩子|老婆|老公|妻子|丈夫|妈妈|爸爸|父母|男朋友|女朋友)',
    '我们?[^，。！？,.!?]{0,6}?(?:信|跑|骑|练|失业|怀孕|戴|退休|岁|在|住|是|有|喜欢|爱|讨厌|吃|喝|抽|叫|工作|上班|学|读|对|做|养|开|要|想|打算|计划|准备|结婚|离婚|搬|去|会|戒)',
    '我的.{1,8}(?:是|叫|在|住|有)',
    // Japanese: a first-person subject, or a first-person verb form without one.
    '(?:私|僕|俺|わたし|ぼく)(?:は|が|も)',
    '(?:が|は).{0,8}(?:います|あります)|(?:して|飲んで|食べて|使って|持って|吸って)います|(?:飲み|食べ|吸い|走り)ます|(?:会社員|医者|教師|主婦|学生|看護師|エンジニア|公務員|アレルギー|ベジタリアン|キリスト教徒|仏教徒|イスラム教徒)です|働いて(?:い|る)|勤めて(?:い|る)|住んで(?:い|る)|通って(?:い|る)|飼って(?:い|る)|勉強して(?:い|る)|結婚して(?:い|る)|好きです|嫌いです|大好き|苦手です|アレルギーがあ|引っ越しました|引っ越します|始めました|辞めました|予定です|つもりです|と申します|といいます',
    // German, French, Spanish.
    wholeWords("ich (?:bin|war|habe|hab|hatte|arbeite|wohne|lebe|studiere|lerne|heiße|mag|liebe|hasse|esse|trinke|rauche|spiele|fahre|unterrichte|ziehe|gehe|werde|plane)|wir (?:sind|haben|wohnen|leben|arbeiten|ziehen|heiraten|bekommen)|(?:mein|meine|unser|unsere) \\p{L}+(?: \\p{L}+){0,2} (?:ist|sind|heißt|wohnt|lebt|arbeitet|hat|wurde|war|geht|fährt|fliegt)|ich (?:nehme|fliege|reise)|(?:arbeite|wohne|lebe|studiere|bin|habe|fliege) ich").source,
    wholeWords("je n'\\p{L}+|je (?:suis|travaille|vis|m'appelle|aime|adore|déteste|préfère|mange|bois|fume|joue|enseigne|vais|viens|pars|étudie|ne)|j'(?:habite|ai|aime|adore|étudie|enseigne|utilise)|(?:mon|ma|mes|notre|nos) \\p{L}+(?: \\p{L}+){0,2} (?:est|sont|s'appelle|habite|travaille|a|part|était)|nous (?:sommes|avons|habitons|allons|partons|déménageons|arrivons)|je (?:prends|fais|cours|bois)").source,
    wholeWords('(?:yo )?(?:trabajo en|trabajo como|vivo|estudio|soy (?!sauce|milk|beans?|latte|protein|products?)\\p{L}+|tengo|me llamo|me gusta|me gustan|me encanta|me encantan|odio|prefiero|estoy|enseño|juego|voy a|pienso|fumo|no como|no bebo|tomo|bebo|corro|hablo|me mudé|me he mudado|no tengo)|(?:mi|mis|nuestro|nuestra) \\p{L}+(?: \\p{L}+){0,2} (?:es|son|se llama|vive|trabaja|tiene|murió|falleció|fue|está|sale)|vamos a').source,
  ].join('|'),
  'iu',
);
const DOMAIN_INTL = new RegExp(
  '工作|公司|上班|工程师|老师|医生|护士|学生|住|搬|失业|眼镜|今年.{1,3}岁|血压|糖尿病|哮喘|抑郁|癌|吃素|佛教|基督教|伊斯兰|穆斯林|每天|每周|每晚|早上|家在|开一辆|车|老婆|老公|妻子|丈夫|儿子|女儿|孩子|父母|妈妈|爸爸|哥哥|姐姐|弟弟|妹妹|男朋友|女朋友|医院|过敏|病|药|学校|大学|学习|结婚|离婚|怀孕|猫|狗|宠物|生日|电话|名字|素食|' +
    '働|会社|仕事|勤め|引っ越|妻|夫は|息子|喘息|高血圧|糖尿病|会社員|医者|教師|主婦|毎日|毎朝|毎晩|ジョギング|キリスト教|仏教|イスラム|娘|子供|両親|病院|アレルギー|病気|薬|学校|大学|勉強|結婚|妊娠|犬|ペット|誕生日|名前|エンジニア|先生|看護師|' +
    wholeWords(
      'arbeite|arbeit|arbeitet|firma|flug|fliege|fliegen|zug|reise|hotel|buchung|ticket|schließfach|\\p{L}*(?:tabletten|medikamente)|blutdruck\\p{L}*|(?:zwei|drei|vier|fünf|keine|meine|unsere|\\d+) kinder|beruf|job|ingenieur|ingenieurin|lehrer|lehrerin|arzt|ärztin|wohne|wohnung|haus|umgezogen|frau|mann|sohn|tochter|eltern|mutter|vater|schwester|bruder|freundin|freund|krankenhaus|allergisch|allergie|krank|medikament|schule|universität|uni|studiere|studium|verheiratet|hochzeit|schwanger|hund|katze|geburtstag|vegetarier|vegetarierin|' +
        'travail|travaille|entreprise|vol|voyage|vacances|partons|hôtel|billet|réservation|casier|voiture|lunettes|sanguin|un chat|mon chat|insuline|asthme|diabète|allergie|tous les (?:jours|matins|soirs)|chaque (?:jour|matin|soir)|boulot|métier|ingénieur|professeur|médecin|infirmière|infirmier|habite|maison|appartement|déménagé|femme|mari|fils|fille|enfants|parents|mère|père|sœur|frère|hôpital|allergique|malade|médicament|école|université|étudie|marié|mariée|mariage|enceinte|chien|anniversaire|végétarien|végétarienne|' +
        'trabajo|trabaja|empresa|vuelo|tren|viaje|billete|reserva|taquilla|coche|carro|gafas|inglés|idioma|sanguíneo|asma|diabetes|alergia|insulina|hipertensión|depresión|todos los días|todas las mañanas|cada (?:día|mañana|noche|semana)|ingeniero|ingeniera|profesor|profesora|médico|médica|enfermera|enfermero|vivo|casa|piso|mudé|esposa|esposo|marido|mujer|hijo|hija|hijos|padres|madre|padre|hermana|hermano|novia|novio|hospital|alérgico|alérgica|enfermo|enferma|medicamento|escuela|universidad|estudio|casado|casada|boda|embarazada|perro|gato|cumpleaños|vegetariano|vegetariana',
    ).source,
  'iu',
);
const PREFERENCE_INTL = new RegExp(`喜欢|爱|讨厌|最爱|好き|嫌い|苦手|${wholeWords("ich mag|wir mögen|liebe|hasse|lieblings\\p{L}*|bevorzuge|aime|adore|déteste|préfère|préféré|préférée|gusta|gustan|encanta|encantan|odio|prefiero|favorito|favorita").source}`, 'iu');
const IDENTITY_INTL = new RegExp(`我是|我叫|叫我|我的名字|(?:妻|夫|父|母|息子|娘|兄|姉|弟|妹|彼氏|彼女)は.{1,12}(?:です|でした|ました)|(?:糖尿病|喘息|妊娠中|\\d+歳|[0-9０-９]+歳|血液型は.{1,4})です|吸いません|我不(?:吃|喝|抽)|食べません|飲みません|名前は|と申します|(?:私|僕|俺)は.{1,12}です|${wholeWords("ich heiße|mein name|ich (?:esse|trinke|rauche) (?:kein|nicht)|je m'appelle|appelle-moi|appellez-moi|je n'ai pas|nenn mich|nennt mich|llámame|je suis (?:un |une )?(?:professeu\\p{L}+|médecin|infirmi\\p{L}+|ingénieu\\p{L}+|étudiant\\p{L}*|avocat\\p{L}*|végétarien\\p{L}*|végan\\p{L}*|allergique|intolérant\\p{L}*|marié\\p{L}*|divorcé\\p{L}*|célibataire|enceinte|retraité\\p{L}*|musulman\\p{L}*|chrétien\\p{L}*|juif|juive|catholique|bouddhiste|diabétique|né\\p{L}*|\\d+)|je ne (?:mange|bois|fume)|soy (?!sauce|milk|beans?|latte|protein|products?)\\p{L}+|me llamo|mi nombre|no (?:como|bebo|fumo)").source}`, 'iu');
// "Ich bin Lehrer", "Ich bin verheiratet": a noun (capitalised in German) or a state, not "Ich bin mir nicht sicher".
const GERMAN_IDENTITY = /(?<![\p{L}])[Ii]ch bin (?:ein |eine |kein |keine )?(?:\p{Lu}\p{Ll}+|verheiratet|geschieden|ledig|schwanger|allergisch|krank|vegetarisch|vegan|\d+)/u;
// Not "je vais" or "voy a" alone: "Je vais bien", "Me voy a dormir" are how one says goodnight.
const LIFE_PLAN_INTL = new RegExp(`打算|计划|准备|予定|つもり|${wholeWords('ich plane|je compte|je prévois|planeo|pienso mudarme').source}`, 'iu');
const TIME_INTL = new RegExp(
  `昨天|今天|明天|去年|明年|上周|下周|上个月|下个月|星期|周末|昨日|今日|明日|来年|先週|来週|週末|[月火水木金土日]曜日|\\d+[年月日]|${wholeWords("januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember|janvier|février|\\d{1,2}(?:er)? mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|gestern|heute|morgen|letzte woche|nächste woche|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|hier|aujourd'hui|demain|semaine|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|ayer|hoy|mañana|semana|lunes|martes|miércoles|jueves|viernes|sábado|domingo").source}`,
  'iu',
);
const FIRST_PERSON_WORDS = /\b(i|i'm|im|i've|ive|i'd|i'll|my|mine|me|myself)\b|저는|제가|저의|나는|내가|나의/gi;
const SECOND_PERSON = /\b(you|your|you're|youre|you've|yours|yourself)\b|당신|너는|네가/gi;

/** The fact signals of a text (its speaker's name left out), with its conversation's previous message when known. */
export function factSignals(raw: string, context: FactContext = {}): FactSignals {
  return readFacts(raw, context).signals;
}

/**
 * Whether a text is a short answer to the other speaker's question that says nothing without it
 * ("Anna." to "What is your sister's name?"; libs/memory answer.ts): at most 12 words, no statement
 * of its own, no question back, not "I don't know", and no mere reaction unless yes or no to a
 * yes-or-no question. Its memory keeps the question's line (`stmContent`).
 */
export function answersElliptically(raw: string, context: FactContext = {}): boolean {
  return readFacts(raw, context).elliptical;
}

function readFacts(raw: string, context: FactContext): { signals: FactSignals; elliptical: boolean } {
  // Decomposed Hangul (NFD, as some keyboards send it) reads as the composed form; a typographic
  // apostrophe (phones, word processors, models) as the straight one: "I’m vegetarian" was lost.
  // An emoji between words is no word: "My daughter 👧 is called Mia" read as no statement (0.61, helper 33's).
  const text = straightApostrophes(raw.normalize('NFC')).replace(/\s*[\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\u200d\ufe0f]+(?=\s)/gu, '');
  // Questions about oneself first, while the sentence boundaries they start at are still there.
  const unasked = text.replace(SELF_QUESTION, ' ');
  const own = unasked.replace(REACTION_SELF, ' ').replace(REACTION_SELF_INTL, ' ').replace(LEAVING, ' ').replace(ASKING, ' ').replace(PASSING, ' ');
  const wordsOf = text.match(WORD) ?? [];
  const firstPerson = FIRST_PERSON.test(text) || FIRST_PERSON_INTL.test(text) ? 1 : 0;
  const selfDropped = SELF_STATEMENT_KO.test(own) || SELF_STATEMENT_INTL.test(own) || SELF_STATEMENT_DROPPED.test(own);
  // Korean, Japanese and Spanish drop the subject: a first-person statement speaks of the speaker without a pronoun.
  const ofSpeaker = firstPerson === 1 || selfDropped;
  const identity = IDENTITY.test(own) || IDENTITY_INTL.test(own) || GERMAN_IDENTITY.test(own);
  const domain = DOMAIN.test(text) || DOMAIN_INTL.test(text);
  const preference = PREFERENCE.test(text) || PREFERENCE_INTL.test(text);
  const keptCode = KEPT_CODE.test(own);
  const decision = DECISION.test(text) || DECISION_INTL.test(text);
  const correction = CORRECTION.test(text) || CORRECTION_INTL.test(text);
  const time = TIME.test(text) || TIME_INTL.test(text);
  // A change of a particular ("Actually, it's 40mg now, not 20", "Der Termin wurde auf Dienstag
  // verschoben"): what a person corrects is what they need kept, said with or without "I".
  const named = Math.min(3, new Set((own.match(NAMED) ?? []).filter((w) => !/^(I|I'm|I've|I'd|I'll|OK|TV)$/.test(w))).size);
  const ownDecision = DECISION.test(own) || DECISION_INTL.test(own);
  const ownCorrection = CORRECTION.test(own) || CORRECTION_INTL.test(own);
  const changed = ownCorrection && (NUMBER.test(own) || time || named > 0 || subjectlessCorrection(own) !== null);
  // A change of home or work ("I joined Initech", "Just moved to Berlin!": life-change.ts) is one however said.
  const moved = lifeChange(own) !== null;
  const selfStatement = SELF_STATEMENT.test(own) || selfDropped || identity || keptCode || changed || moved ? 1 : 0;
  const ownContent = selfStatement === 1 || named > 0 || NUMBER.test(text) || decision;
  const reaction = (REACTION.test(text) || /^[^\p{L}\p{N}]*$/u.test(own)) && !ownContent;
  // The questions the message before asks, the last one ending it (an image's caption after it aside).
  const questions = answersQuestion(context) ? questionsOf(context.previous?.text ?? '') : [];
  const asked = questions.length > 0 ? (questions[questions.length - 1] as string) : null;
  const elliptical =
    asked !== null && selfStatement === 0 && wordsOf.length <= 12 && !/[?？]\s*$/.test(text.trim()) && !NON_ANSWER.test(text) && (!REACTION.test(text) || (YES_OR_NO.test(text) && YES_NO_QUESTION.test(asked)));
  // The answer to a question about the person's life is their own statement of it ("Penicillin." to
  // "Any allergies?"); any question of the message may be it, not an offer nor one about the asker.
  const lifeQuestion = (q: string) => !OFFER.test(q) && !ABOUT_THE_ASKER.test(q) && (DOMAIN.test(q) || DOMAIN_INTL.test(q) || PREFERENCE.test(q) || PREFERENCE_INTL.test(q) || ASKED_ABOUT.test(q));
  const aboutLife = elliptical && questions.some(lifeQuestion);
  const signals: FactSignals = {
    first_person: firstPerson === 1 || SELF_STATEMENT_DROPPED.test(own) ? 1 : 0,
    self_statement: selfStatement,
    domain: domain ? 1 : 0,
    preference: ofSpeaker && preference ? 1 : 0,
    plan: PLAN.test(text) ? 1 : 0,
    decision: decision ? 1 : 0,
    correction: correction ? 1 : 0,
    time: time ? 1 : 0,
    number: NUMBER.test(text) ? 1 : 0,
    named,
    // Letters of any script are content: "我在谷歌工作" is not punctuation (\W alone read it so).
    reaction: reaction && !aboutLife ? 1 : 0,
    // A question about oneself is one however long ("Do I live in Hamburg with my wife Anna and our two kids?").
    question: /[?？]\s*$/.test(text.trim()) && (wordsOf.length <= 12 || unasked.trim() === '') && selfStatement === 0 ? 1 : 0,
    length: Math.min(1, Math.log1p([...text].length) / Math.log1p(500)),
    first_person_words: Math.min(1, ((text.match(FIRST_PERSON_WORDS) ?? []).length + (text.match(FIRST_PERSON_INTL_COUNT) ?? []).length) / 4),
    second_person: Math.min(1, (text.match(SECOND_PERSON) ?? []).length / 4),
    exclamations: Math.min(1, (text.match(/!/g) ?? []).length / 3),
    image: /\[shared an image: /.test(text) ? 1 : 0,
    life_fact:
      selfStatement === 1 &&
      (identity || moved || DOMAIN.test(own) || DOMAIN_INTL.test(own) || (ofSpeaker && (PREFERENCE.test(own) || PREFERENCE_INTL.test(own) || LIFE_PLAN.test(own) || LIFE_PLAN_INTL.test(own))) || keptCode || ownDecision || ownCorrection)
        ? 1
        : 0,
    answers_question: asked !== null ? 1 : 0,
  };
  if (aboutLife) Object.assign(signals, { first_person: 1, self_statement: 1, domain: 1, life_fact: 1 });
  return { signals, elliptical };
}

function answersQuestion(context: FactContext): boolean {
  const previous = context.previous;
  if (!previous || !/[?？]\s*(\[[^\]]*\])?\s*$/.test(previous.text.trim())) return false;
  return previous.speaker === null || context.speaker === undefined || context.speaker === null || previous.speaker !== context.speaker;
}

/**
 * How much of a fact a text states: the weighted sum of its signals (weights may be negative
 * for chatter), clamped to 0..1. Added to seed 001's rule score by the rule engine.
 */
export function factScore(signals: FactSignals, weights: FactWeights & { bias?: number }): number {
  let score = weights.bias ?? 0;
  for (const name of Object.keys(signals) as (keyof FactSignals)[]) score += (weights[name] ?? 0) * signals[name];
  return Math.min(1, Math.max(0, Math.round(score * 1e9) / 1e9));
}
