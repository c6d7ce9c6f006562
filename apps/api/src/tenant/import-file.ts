import type { z } from 'zod';
import { AppError } from '../common/app-error';
import { inputProblem } from '../common/input-hygiene';
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

/**
 * Parses and validates an export file: one JSON object a line, `type` naming its schema
 * (data-rights.dto LINE_SCHEMAS), ids and keys unique within the file.
 * @throws AppError 400 naming the line and field of the first bad line
 */
export function parseImportFile(text: string): ParsedImport {
  const out: ParsedImport = { minds: [], memories: [], versions: new Map() };
  const mindIds = new Set<string>();
  const mindNames = new Set<string>();
  const memoryIds = new Map<string, MemoryLine & { line: number }>();
  const memoryKeys = new Set<string>();
  const versionKeys = new Set<string>();
  const lines = text.split('\n');
  let seenTenant = false;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = (lines[i] as string).replace(/\r$/, '');
    if (raw.trim() === '') continue;
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
    if (typeof type !== 'string' || !(type in LINE_SCHEMAS)) {
      throw lineError(n, 'type', `must be one of ${Object.keys(LINE_SCHEMAS).join(', ')}`);
    }
    if (!seenTenant && type !== 'tenant') throw lineError(n, 'type', 'the first line must be the tenant line of an Engram export');
    if (seenTenant && type === 'tenant') throw lineError(n, 'type', 'an export has one tenant line, the first');
    const result = (LINE_SCHEMAS[type as keyof typeof LINE_SCHEMAS] as z.ZodType).safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw lineError(n, issue?.path.join('.') || 'line', issue?.message ?? 'is invalid');
    }
    const data = result.data as Record<string, unknown>;
    switch (type) {
      case 'tenant':
        seenTenant = true;
        break;
      case 'settings':
        if (out.settings) throw lineError(n, 'type', 'an export has one settings line');
        out.settings = { line: n, lifecycle: data.lifecycle as Record<string, unknown> };
        break;
      case 'mind': {
        const mind = data as MindLine;
        if (mindIds.has(mind.id)) throw lineError(n, 'id', 'this mind is already in the file');
        if (mindNames.has(mind.name)) throw lineError(n, 'name', 'a mind of this name is already in the file');
        mindIds.add(mind.id);
        mindNames.add(mind.name);
        out.minds.push({ ...mind, line: n });
        break;
      }
      case 'memory': {
        const memory = data as MemoryLine;
        if (!mindIds.has(memory.mind_id)) throw lineError(n, 'mind_id', 'names no mind line above it');
        if (memoryIds.has(memory.id)) throw lineError(n, 'id', 'this memory is already in the file');
        const key = `${memory.mind_id}/${memory.category}/${memory.key}`;
        if (memoryKeys.has(key)) throw lineError(n, 'key', 'this (mind, category, key) is already in the file');
        memoryKeys.add(key);
        const entry = { ...memory, line: n };
        memoryIds.set(memory.id, entry);
        out.memories.push(entry);
        break;
      }
      case 'memory_version': {
        const version = data as MemoryVersionLine;
        const memory = memoryIds.get(version.memory_id);
        if (!memory) throw lineError(n, 'memory_id', 'names no memory line above it');
        const key = `${version.memory_id}/${version.version}`;
        if (versionKeys.has(key)) throw lineError(n, 'version', 'this version of the memory is already in the file');
        if (version.version > memory.version) throw lineError(n, 'version', `is later than its memory's version (${memory.version})`);
        versionKeys.add(key);
        const list = out.versions.get(version.memory_id) ?? [];
        list.push(version);
        out.versions.set(version.memory_id, list);
        break;
      }
    }
  }
  if (!seenTenant) throw AppError.badField('body', 'is empty: send the JSONL of GET /v1/tenant/export');
  return out;
}
