import type { z } from 'zod';
import { AppError } from '@engram/services';
import { inputProblem } from '../common/input-hygiene';
import { zodProblems } from '../common/zod-problems';
import { LINE_SCHEMAS, type MemoryLine, type MemoryVersionLine, type MindLine } from './data-rights.dto';

// An export file (GET /v1/tenant/export, JSONL) read and checked line by line before anything
// is stored: what TenantImport applies.

/** An import file's lines by kind, each with its line number for errors. */
export interface ParsedImport {
  settings?: { line: number; lifecycle: Record<string, unknown> };
  minds: (MindLine & { line: number })[];
  memories: (MemoryLine & { line: number })[];
  /** By the memory id of the file, oldest first. */
  versions: Map<string, MemoryVersionLine[]>;
}

/** A 400 naming `line N: field` and the rule it breaks. */
export function lineError(line: number, field: string, rule: string): AppError {
  const name = field ? `line ${line}: ${field}` : `line ${line}`;
  return new AppError('bad_request', `${name}: ${rule}`, [{ field: name, message: rule }]);
}

type LineType = keyof typeof LINE_SCHEMAS;

/**
 * One line read and checked against its schema (data-rights.dto LINE_SCHEMAS): JSON, an object,
 * storable text, a known `type`, the tenant line first and once.
 * @throws AppError 400 naming the line and its field
 */
function readLine(n: number, raw: string, seenTenant: boolean): { type: LineType; data: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw lineError(n, '', 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw lineError(n, '', 'must be a JSON object');
  const problem = inputProblem(value, '');
  if (problem) throw lineError(n, problem.field || 'line', problem.message);
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !(type in LINE_SCHEMAS)) throw lineError(n, 'type', `must be one of ${Object.keys(LINE_SCHEMAS).join(', ')}`);
  if (!seenTenant && type !== 'tenant') throw lineError(n, 'type', 'the first line must be the tenant line of an Engram export');
  if (seenTenant && type === 'tenant') throw lineError(n, 'type', 'an export has one tenant line, the first');
  const result = (LINE_SCHEMAS[type as LineType] as z.ZodType).safeParse(value);
  if (!result.success) {
    // Fields named as the API names them (`tags[0]`, not zod's `tags.0`).
    const problem = zodProblems(result.error)[0];
    throw lineError(n, problem?.field && problem.field !== 'body' ? problem.field : 'line', problem?.message ?? 'is invalid');
  }
  return { type: type as LineType, data: result.data as Record<string, unknown> };
}

/** The lines read so far, with what must stay unique in a file: mind ids and names, memory ids and keys, versions. */
class ImportContents {
  readonly out: ParsedImport = { minds: [], memories: [], versions: new Map() };
  seenTenant = false;
  /** A memory stored after this instant cannot be in an export made before it (a few minutes of clock skew allowed). */
  private readonly latest: number;

  constructor(now: Date) {
    this.latest = now.getTime() + 5 * 60_000;
  }
  private readonly mindIds = new Set<string>();
  private readonly mindNames = new Set<string>();
  private readonly memoryIds = new Map<string, MemoryLine & { line: number }>();
  private readonly memoryKeys = new Set<string>();
  private readonly versionKeys = new Set<string>();

  /** @throws AppError 400 naming the line and the field that repeats or refers to nothing above it */
  add(n: number, type: LineType, data: Record<string, unknown>): void {
    if (type === 'tenant') this.seenTenant = true;
    else if (type === 'settings') {
      if (this.out.settings) throw lineError(n, 'type', 'an export has one settings line');
      this.out.settings = { line: n, lifecycle: data.lifecycle as Record<string, unknown> };
    } else if (type === 'mind') this.addMind(n, data as MindLine);
    else if (type === 'memory') this.addMemory(n, data as MemoryLine);
    else this.addVersion(n, data as MemoryVersionLine);
  }

  /** A line's `created_at` and `updated_at`, when given, are not in the future. @throws AppError 400 naming the line and field */
  private checkDates(n: number, line: { created_at?: string; updated_at?: string }): void {
    for (const field of ['created_at', 'updated_at'] as const) {
      const at = line[field];
      if (at !== undefined && Date.parse(at) > this.latest) throw lineError(n, field, 'must not be in the future');
    }
  }

  private addMind(n: number, mind: MindLine): void {
    if (this.mindIds.has(mind.id)) throw lineError(n, 'id', 'this mind is already in the file');
    if (this.mindNames.has(mind.name)) throw lineError(n, 'name', 'a mind of this name is already in the file');
    this.checkDates(n, mind);
    if (mind.created_at !== undefined && mind.updated_at !== undefined && Date.parse(mind.updated_at) < Date.parse(mind.created_at)) throw lineError(n, 'updated_at', 'must not be before created_at');
    this.mindIds.add(mind.id);
    this.mindNames.add(mind.name);
    this.out.minds.push({ ...mind, line: n });
  }

  private addMemory(n: number, memory: MemoryLine): void {
    if (!this.mindIds.has(memory.mind_id)) throw lineError(n, 'mind_id', 'names no mind line above it');
    this.checkDates(n, memory);
    if (this.memoryIds.has(memory.id)) throw lineError(n, 'id', 'this memory is already in the file');
    const key = `${memory.mind_id}/${memory.category}/${memory.key}`;
    if (this.memoryKeys.has(key)) throw lineError(n, 'key', 'this (mind, category, key) is already in the file');
    this.memoryKeys.add(key);
    const entry = { ...memory, line: n };
    this.memoryIds.set(memory.id, entry);
    this.out.memories.push(entry);
  }

  private addVersion(n: number, version: MemoryVersionLine): void {
    const memory = this.memoryIds.get(version.memory_id);
    if (!memory) throw lineError(n, 'memory_id', 'names no memory line above it');
    const key = `${version.memory_id}/${version.version}`;
    if (this.versionKeys.has(key)) throw lineError(n, 'version', 'this version of the memory is already in the file');
    if (version.version > memory.version) throw lineError(n, 'version', `is later than its memory's version (${memory.version})`);
    this.versionKeys.add(key);
    const list = this.out.versions.get(version.memory_id) ?? [];
    list.push(version);
    this.out.versions.set(version.memory_id, list);
  }
}

/**
 * Parses and validates an export file: one JSON object a line, `type` naming its schema
 * (data-rights.dto LINE_SCHEMAS), ids and keys unique within the file, no memory stored after
 * `now`.
 * @throws AppError 400 naming the line and field of the first bad line
 */
export function parseImportFile(text: string, now: Date): ParsedImport {
  const contents = new ImportContents(now);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const { type, data } = readLine(i + 1, raw, contents.seenTenant);
    contents.add(i + 1, type, data);
  }
  if (!contents.seenTenant) throw AppError.badField('body', 'is empty: send the JSONL of GET /v1/tenant/export');
  return contents.out;
}
