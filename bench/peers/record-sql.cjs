/**
 * bench:peers's statement recorder, preloaded into the Engram API child
 * (`node --require bench/peers/record-sql.cjs dist/apps/api/src/main.js`): it wraps
 * `pg.Client.prototype.query` (what Kysely's pool runs every statement through) and, while on,
 * keeps each statement's text, parameters and start time (epoch ms, sub-millisecond). SIGWINCH
 * turns it on; the next SIGWINCH turns it off and writes what it kept to `ENGRAM_RECORD_SQL` as
 * JSON (SIGWINCH: NestJS's shutdown hooks take SIGUSR2, and by default SIGWINCH is ignored). Off,
 * it costs one boolean test a statement. The bench replays the statements through
 * `pg` to measure the bare SQL of a search.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const pg = require('pg');

const file = process.env.ENGRAM_RECORD_SQL;
let on = false;
let kept = [];

/** Parameters as JSON can carry them: Dates as ISO text, Buffers tagged. */
function portable(v) {
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { __buffer: Buffer.from(v).toString('base64') };
  if (Array.isArray(v)) return v.map(portable);
  return v;
}

if (file) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function recorded(config, values, callback) {
    if (on) {
      const text = typeof config === 'string' ? config : config && config.text;
      const params = Array.isArray(values) ? values : config && typeof config === 'object' && Array.isArray(config.values) ? config.values : [];
      if (typeof text === 'string') kept.push({ at: performance.timeOrigin + performance.now(), pid: this.processID, text, values: params.map(portable) });
    }
    return query.call(this, config, values, callback);
  };
  process.on('SIGWINCH', () => {
    if (!on) {
      kept = [];
      on = true;
      return;
    }
    on = false;
    writeFileSync(file, JSON.stringify(kept));
    kept = [];
  });
}
