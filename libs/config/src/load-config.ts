import { configSchema, type AppConfig } from './config.schema';

/** Thrown when the environment does not describe a valid configuration; lists every bad key. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment into the typed config. Empty strings count as unset, so a blank
 * `DATABASE_URL=` in a .env file means embedded mode rather than an error.
 *
 * @throws ConfigError naming each variable whose value breaks its rule.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const cleaned: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') cleaned[name] = value;
  }
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}
