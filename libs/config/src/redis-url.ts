/** One Redis node named by REDIS_URL. */
export interface RedisNode {
  host: string;
  /** TCP port (default 6379). */
  port: number;
}

/**
 * What REDIS_URL says: one URL for a single Redis, or (with REDIS_CLUSTER) one or more
 * comma-separated URLs of a Redis Cluster's nodes, the seeds from which the client learns every
 * other node (`CLUSTER SLOTS`). Every URL of a list must agree on the scheme and the credentials:
 * a cluster has one ACL and one TLS setting for all its nodes.
 */
export interface RedisTarget {
  nodes: RedisNode[];
  /** `rediss://`: TLS. */
  tls: boolean;
  username?: string;
  password?: string;
  /** The database number of the URL's path (`/2`); 0 when absent. A Redis Cluster has database 0 only. */
  db: number;
}

/**
 * Parses REDIS_URL (`redis://[user[:password]@]host[:port][/db]`, `rediss://` for TLS; several
 * comma-separated for a cluster's seed nodes).
 * @throws Error with a message for the operator (the config error names the variable) when a
 *   URL does not parse, has no host, has a path that is not a database number, or the URLs of a
 *   list disagree on scheme, user, password or database
 */
export function parseRedisUrl(value: string): RedisTarget {
  const parts = value.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  if (parts.length === 0) throw new Error('names no Redis node');
  const parsed = parts.map((part) => {
    let url: URL;
    try {
      url = new URL(part);
    } catch {
      throw new Error(`"${redact(part)}" is not a URL (expected redis://host:port or rediss://host:port)`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error(`"${redact(part)}" must be a redis:// or rediss:// URL`);
    if (!url.hostname) throw new Error(`"${redact(part)}" names no host`);
    const path = url.pathname.replace(/^\//, '');
    if (path !== '' && !/^\d{1,2}$/.test(path)) throw new Error(`"${redact(part)}": the path must be a database number (/0-/99), not /${path}`);
    return {
      node: { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : 6379 },
      tls: url.protocol === 'rediss:',
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      db: path === '' ? 0 : Number(path),
    };
  });
  const first = parsed[0] as (typeof parsed)[number];
  for (const p of parsed.slice(1)) {
    if (p.tls !== first.tls) throw new Error('mixes redis:// and rediss:// URLs: every node of a cluster takes the same TLS setting');
    if (p.username !== first.username || p.password !== first.password) throw new Error('names different users or passwords: every node of a cluster takes the same credentials');
    if (p.db !== first.db) throw new Error('names different databases');
  }
  return { nodes: parsed.map((p) => p.node), tls: first.tls, username: first.username, password: first.password, db: first.db };
}

/** `host:port,host:port`: where REDIS_URL points, for messages (never the credentials). */
export function redisWhere(value: string | undefined): string {
  if (!value) return '(REDIS_URL unset)';
  try {
    return parseRedisUrl(value).nodes.map((n) => `${n.host}:${n.port}`).join(',');
  } catch {
    return '(REDIS_URL unparsable)';
  }
}

// An error message must not echo a password.
function redact(part: string): string {
  return part.replace(/\/\/[^@/]*@/, '//***@');
}
