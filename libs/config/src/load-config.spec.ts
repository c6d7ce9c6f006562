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

  it('treats whitespace-only values as unset, not as 0 (a newcomer: a blank interval turned a job off)', () => {
    const config = loadConfig({ EMBEDDED_VACUUM_INTERVAL_MS: ' ', FORGETTING_INTERVAL_MS: '\t', PORT: '  ' });
    expect([config.EMBEDDED_VACUUM_INTERVAL_MS, config.FORGETTING_INTERVAL_MS, config.PORT]).toEqual([5_000, 900_000, 3000]);
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

describe('loadConfig: Redis and Redis Cluster', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (error) {
      return (error as ConfigError).problems;
    }
    return [];
  };

  it('takes one URL for a single Redis, REDIS_CLUSTER off by default', () => {
    expect(loadConfig({ REDIS_URL: 'redis://r:6379/2' })).toMatchObject({ REDIS_URL: 'redis://r:6379/2', REDIS_CLUSTER: false });
  });

  it('takes one or more seed URLs with REDIS_CLUSTER=true', () => {
    expect(loadConfig({ REDIS_CLUSTER: 'true', REDIS_URL: 'rediss://u:p@a:7000, rediss://u:p@b:7001' }).REDIS_CLUSTER).toBe(true);
    expect(loadConfig({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://cfg.example.cache.amazonaws.com:6379' }).REDIS_CLUSTER).toBe(true);
  });

  it('refuses a list of nodes without REDIS_CLUSTER, and says to set it', () => {
    expect(problems({ REDIS_URL: 'redis://a:7000,redis://b:7001' })).toEqual([expect.stringMatching(/^REDIS_URL: names 2 nodes: .*REDIS_CLUSTER=true/)]);
  });

  it('refuses REDIS_CLUSTER without REDIS_URL, a database other than 0 on a cluster, and mixed lists', () => {
    expect(problems({ REDIS_CLUSTER: 'true' })).toEqual([expect.stringMatching(/^REDIS_CLUSTER: needs REDIS_URL/)]);
    expect(problems({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://a:7000/3' })).toEqual([expect.stringMatching(/^REDIS_URL: names database 3: a Redis Cluster has database 0 only/)]);
    expect(problems({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://a:7000,rediss://b:7001' })).toEqual([expect.stringMatching(/mixes redis:\/\/ and rediss:\/\//)]);
    expect(problems({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://:one@a:7000,redis://:two@b:7001' })).toEqual([expect.stringMatching(/same credentials/)]);
    expect(problems({ REDIS_CLUSTER: 'yes', REDIS_URL: 'redis://a:7000' })).toEqual([expect.stringMatching(/^REDIS_CLUSTER: must be true or false/)]);
  });

  it('never repeats a password in a message', () => {
    const [message] = problems({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://:s3cret@a:7000,redis://:s3cret@b:x' });
    expect(message).toMatch(/^REDIS_URL: /);
    expect(message).not.toContain('s3cret');
  });
});
