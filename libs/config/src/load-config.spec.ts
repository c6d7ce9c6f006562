import { ConfigError, loadConfig } from './load-config';

describe('loadConfig', () => {
  it('runs embedded with nothing set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 3000, ENGRAM_DATA_DIR: './data' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).PORT).toBe(3000);
  });

  it('lists every bad variable by name', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short', LOG_LEVEL: 'loud' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const names = (error as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(names.sort()).toEqual(['DATABASE_URL', 'JWT_SECRET', 'LOG_LEVEL', 'PORT']);
    }
  });

  it('requires JWT_SECRET in production with an external database', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/engram' })).toThrow(/JWT_SECRET/);
  });

  it('does not require JWT_SECRET of a process that signs no tokens (the worker)', () => {
    const config = loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/engram', REDIS_URL: 'redis://r:6379' }, { issuesTokens: false });
    expect(config.JWT_SECRET).toBeUndefined();
    // The environment cannot switch the rule off for the API.
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/engram', ENGRAM_ISSUES_TOKENS: 'false' })).toThrow(/JWT_SECRET/);
  });
});
