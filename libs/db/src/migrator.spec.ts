import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitSqlStatements } from './migrator';
import { migrationsDir } from './project-paths';

describe('splitSqlStatements', () => {
  it('splits at the semicolons between statements, leaving out empty parts and comment-only ones', () => {
    expect(splitSqlStatements('create table a (x int);\n\n  ;select 1;\n-- the end; nothing after\n')).toEqual(['create table a (x int)', 'select 1']);
  });

  it('keeps the semicolons of quoted text, names and comments inside a statement', () => {
    const script = [
      `insert into t values ('a;b', 'it''s; fine', E'back\\'slash;', "odd;name")`,
      `select 1 /* a ; /* nested ; */ still ; */ + 2 -- trailing ; comment\n  as three`,
    ].join(';\n');
    expect(splitSqlStatements(script)).toEqual([
      `insert into t values ('a;b', 'it''s; fine', E'back\\'slash;', "odd;name")`,
      `select 1 /* a ; /* nested ; */ still ; */ + 2 -- trailing ; comment\n  as three`,
    ]);
  });

  it('keeps function bodies in dollar quotes whole, tagged or not; $1 is a parameter, not a quote', () => {
    const body = `create function f(p int) returns int language plpgsql as $fn$
begin
  perform $$ a; b $$;
  return $1;
end $fn$`;
    const doBlock = `do $$ begin if true then perform 1; end if; end $$`;
    expect(splitSqlStatements(`${body};\n${doBlock};\nselect $1, a$b from t`)).toEqual([body, doBlock, 'select $1, a$b from t']);
  });

  it('splits every migration into statements that each still parse as one (no part ends inside a quote)', () => {
    const dir = migrationsDir();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
      const statements = splitSqlStatements(readFileSync(join(dir, file), 'utf8'));
      expect([file, statements.length > 0]).toEqual([file, true]);
      for (const s of statements) {
        // Balanced dollar quotes: a split inside a body would leave an odd count in two parts.
        expect([file, (s.match(/\$\$/g) ?? []).length % 2]).toEqual([file, 0]);
        expect([file, s.endsWith(';')]).toEqual([file, false]);
      }
    }
  });
});
