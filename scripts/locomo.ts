/**
 * Lenient reader of LoCoMo conversations (`snap-research/locomo`, data/locomo10.json layout;
 * see ../shared/bench-data/SOURCE.md). Malformed parts are skipped and counted, never fatal.
 */

export interface LocomoTurn {
  /** `D<session>:<turn>` as in the data. */
  diaId: string;
  /** A snake_case memory key derived from the dia_id, e.g. `turn_d1_3`. */
  key: string;
  session: number;
  speaker: string;
  /** `"<speaker>: <text>"`, plus the image caption where the turn shared an image. */
  content: string;
  /** The same without the speaker: what was said, and the caption. */
  utterance: string;
  sessionDate: Date | null;
  sessionDateText: string | null;
}

export interface LocomoQa {
  question: string;
  category: number;
  evidence: unknown;
}

export interface LocomoConversation {
  sampleId: string;
  sessions: number;
  turns: LocomoTurn[];
  qa: LocomoQa[];
  skipped: { turns: number; dates: number };
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** `"1:56 pm on 8 May, 2023"` → that instant, read as UTC (the data gives no zone); null if unreadable. */
export function locomoDate(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return null;
  const [, h, min, ampm, day, monthName, year] = m as unknown as [string, string, string, string, string, string, string];
  const month = MONTHS.findIndex((name) => name.startsWith(monthName.toLowerCase().slice(0, 3)));
  if (month < 0) return null;
  const hour = (Number(h) % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
  const date = new Date(Date.UTC(Number(year), month, Number(day), hour, Number(min)));
  return Number.isNaN(date.getTime()) ? null : date;
}

const DIA_ID = /^D(\d+):(\d+)$/;

export function parseConversation(raw: unknown): LocomoConversation {
  const obj = (raw ?? {}) as Record<string, unknown>;
  const conv = (obj.conversation ?? {}) as Record<string, unknown>;
  const turns: LocomoTurn[] = [];
  const skipped = { turns: 0, dates: 0 };
  const sessionNumbers = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);

  for (const session of sessionNumbers) {
    const dateText = conv[`session_${session}_date_time`];
    const sessionDate = locomoDate(dateText);
    if (!sessionDate) skipped.dates += 1;
    const list = conv[`session_${session}`];
    if (!Array.isArray(list)) continue;
    for (const t of list as Record<string, unknown>[]) {
      const diaId = typeof t?.dia_id === 'string' ? t.dia_id.trim() : '';
      const m = DIA_ID.exec(diaId);
      if (!m || typeof t.speaker !== 'string' || typeof t.text !== 'string' || !t.speaker.trim()) {
        skipped.turns += 1;
        continue;
      }
      const caption = typeof t.blip_caption === 'string' && t.blip_caption.trim() ? ` [shared an image: ${t.blip_caption.trim()}]` : '';
      const utterance = `${t.text}${caption}`;
      const content = `${t.speaker}: ${utterance}`;
      if (!utterance.trim()) {
        skipped.turns += 1;
        continue;
      }
      turns.push({
        diaId,
        key: `turn_d${m[1]}_${m[2]}`,
        session,
        speaker: t.speaker.trim(),
        content,
        utterance,
        sessionDate,
        sessionDateText: typeof dateText === 'string' ? dateText : null,
      });
    }
  }

  const qa: LocomoQa[] = Array.isArray(obj.qa)
    ? (obj.qa as Record<string, unknown>[])
        .filter((q) => typeof q?.question === 'string')
        .map((q) => ({ question: q.question as string, category: Number(q.category) || 0, evidence: q.evidence }))
    : [];
  return { sampleId: typeof obj.sample_id === 'string' ? obj.sample_id : 'unknown', sessions: sessionNumbers.length, turns, qa, skipped };
}

/**
 * Evidence ids of a QA item, read leniently: strings may hold several ids (`"D8:6; D9:17"`) or
 * a stray colon (`"D:11:26"` → `D11:26`). Ids that name no turn of the conversation, and
 * strings with no id in them, are returned as skipped.
 */
export function parseEvidence(evidence: unknown, known: ReadonlySet<string>): { ids: string[]; skipped: string[] } {
  const ids: string[] = [];
  const skipped: string[] = [];
  const list = Array.isArray(evidence) ? evidence : evidence === undefined || evidence === null ? [] : [evidence];
  for (const entry of list) {
    if (typeof entry !== 'string') {
      skipped.push(String(entry));
      continue;
    }
    const parts = entry.split(/[;,\s]+/).filter(Boolean);
    let found = false;
    for (const part of parts) {
      const m = /^D:?(\d+):(\d+)$/i.exec(part);
      const id = m ? `D${Number(m[1])}:${Number(m[2])}` : null;
      if (id && known.has(id)) {
        if (!ids.includes(id)) ids.push(id);
        found = true;
      } else {
        skipped.push(part);
      }
    }
    if (parts.length === 0 && !found) skipped.push(entry);
  }
  return { ids, skipped };
}

/**
 * A turn as a keyed memory, the way the importer and the retrieval benchmark store it: key from
 * the dia_id, content "<speaker>: <text>" (+ caption), tags speaker and session, the dia_id in
 * source_refs, the session's date as event time (one second per turn, to keep their order) and
 * as temporal context, the turn's number in its session as temporal position.
 */
export function turnMemory(conversation: LocomoConversation, position: number) {
  const turn = conversation.turns[position] as LocomoTurn;
  return {
    category: 'note',
    key: turn.key,
    content: turn.content,
    tags: [turn.speaker.toLowerCase(), `session_${turn.session}`],
    memory_type: 'episodic',
    source_refs: [turn.diaId],
    temporal_context: turn.sessionDateText ?? `session ${turn.session}`,
    temporal_position: Number(turn.diaId.split(':')[1]),
    occurred_at: turn.sessionDate ? new Date(turn.sessionDate.getTime() + position * 1000).toISOString() : undefined,
  };
}
