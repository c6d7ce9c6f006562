import { quoteAround } from '../visible-text';

/**
 * Short answers (ours; issue 15 item 1, "a default scorer that keeps facts"): an agent that asks
 * "What is your sister's name?" and is told "Anna." holds a fact that only the two lines together
 * state. Alone, "Anna." scored under attention and the importance trigger, and had it been kept, a
 * search for "sister" could not have found it (a newcomer's interview: every answer was lost). A
 * short reply to another speaker's question that states nothing on its own (libs/memory
 * facts.ts `answersElliptically`) is read with its question: scored as the person's own fact when
 * the question asks about their life, and kept with the question's line before it (`stmContent`).
 */

/** Not an answer: not knowing, declining, asking back ("I don't know", "I'd rather not say", "Why?"). */
export const NON_ANSWER =
  /^\W*(?:(?:i\s+)?(?:don't|do not|dont)\s+(?:know|remember|want to (?:say|talk|answer))|idk|dunno|not sure|no idea|no clue|never\s*mind|nevermind|skip|pass|no comment|maybe|later|whatever|hm+|why|huh|what|(?:i'd|i would)\s+rather\s+not|prefer not|none of your business|let me (?:think|check|see)|hold on|hang on|wait|one (?:sec|second|moment|minute)|just a (?:sec|second|moment|minute)|brb|ask me (?:later|again)|you first|i forgot|i forget|who knows|not telling|good question|next question|(?:can we|let's) talk about something else|something else|ok|okay|good (?:morning|afternoon|evening|night)|hello|hi|hey|thanks|thank you)\b|^\W*(?:모르겠|몰라|글쎄|비밀|말하기 싫|잠깐|잠시만)/i;

/** An offer of the assistant's, not a question about the person: "Would you like me to summarize it?", "Shall I save it?". */
export const OFFER = /\b(?:would|do)\s+you\s+(?:like|want)\b|\bwant\s+me\s+to\b|\b(?:shall|should|can|may)\s+i\b|\bhow\s+about\b|\bwhat\s+about\b|할까요/i;

/** A question about the asker ("What do you think my name is?"), not the person answering. */
export const ABOUT_THE_ASKER = /\b(?:my|mine|our)\b|제\s|저의|나의/i;

/** Yes or no, alone or with more ("Yes, twice a week", "No.", "네, 두 명이요"). */
export const YES_OR_NO = /^\W*(?:yes|yeah|yep|yup|no|nope|nah|not really|never|of course)\b|^\W*(?:네|예|아니요|아뇨|응|아니)(?![가-힣])/i;

/** A question that yes or no answers: it starts with its verb ("Do you ...?", "Any allergies ...?"), or a Korean one. */
export const YES_NO_QUESTION = /(?:^|[.!?]\s+)(?:do|does|did|are|is|was|were|have|has|had|can|could|will|would|any)\b[^.!?]*\?\s*$|[가-힣][^.!?]*\?\s*$/i;

/** What a question asks of a person beyond the life domains and tastes facts.ts knows: who they are. */
export const ASKED_ABOUT =
  /\b(?:name|call you|how old|age|birthday|born|where (?:are|were) you from|nationality|religion|diet|allerg\w*|medications?|what do you do|for a living|where do you live)\b|이름|나이|어디 살|고향|직업|名字|叫什么|名前/i;

/** Every question a text asks, in order ("What is your sister's name? And where does she live?"). */
export function questionsOf(text: string): string[] {
  return (text.replace(/\[[^\]]*\]/g, ' ').match(/[^.!?？。\n]*[?？]+/g) ?? []).map((q) => q.trim()).filter((q) => q.length > 1);
}

/** Longest quote of the question kept with a short answer, in characters: its end, where the question is. */
export const QUESTION_QUOTE_MAX = 300;

/** The question's line as a short answer's memory keeps it: on one line, at most {@link QUESTION_QUOTE_MAX} characters of its end. */
export function questionLine(question: { speaker: string; text: string }): string {
  const text = question.text.replace(/\s+/g, ' ').trim();
  return `${question.speaker}: ${quoteAround(text, text.length, QUESTION_QUOTE_MAX)}`;
}
