import { configSchema, type AppConfig } from './config.schema';

/** Thrown when the environment does not describe a valid configuration; lists every bad key. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment into the typed config. Empty and whitespace-only strings count as
 * unset, so a blank `DATABASE_URL=` in a .env file means embedded mode rather than an error, and
 * `FORGETTING_INTERVAL_MS=" "` is the default, not 0 (off).
 *
 * @param options.issuesTokens false for a process that signs no JWTs (the worker): JWT_SECRET is
 *   then not required in production
 * @throws ConfigError naming each variable whose value breaks its rule.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: { issuesTokens?: boolean } = {}): AppConfig {
  const cleaned: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(env)) {
    // Blank counts as unset: a number read from " " would be 0, which turns a job off silently.
    if (value !== undefined && value.trim() !== '' && name !== 'ENGRAM_ISSUES_TOKENS') cleaned[name] = value;
  }
  cleaned['ENGRAM_ISSUES_TOKENS'] = options.issuesTokens ?? true;
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}

/**
 * The environment that turns every periodic job off (each `*_INTERVAL_MS` = 0): for processes
 * that run background work themselves or not at all (tests, benchmarks, client generation).
 */
export const NO_SCHEDULES = {
  SLEEP_CYCLE_INTERVAL_MS: '0',
  FORGETTING_INTERVAL_MS: '0',
  TIERING_INTERVAL_MS: '0',
  ASSOCIATIONS_INTERVAL_MS: '0',
  SYSTEMS_CONSOLIDATION_INTERVAL_MS: '0',
  EMBEDDINGS_BACKFILL_INTERVAL_MS: '0',
  WEBHOOK_DISPATCH_INTERVAL_MS: '0',
} as const;
