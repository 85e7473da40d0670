// make bench's DuckDB side of the Parquet rows (parquet_bench.py): loads
// the table of a Parquet file into DuckDB's memory once, then for each
// line read on standard input ("write" or "read") writes the table to
// Parquet with the codec given, or reads that file back into a new table,
// and prints "done" when finished, so that the caller times each pass
// beside featc's own in turns (no start-up or load in the pass).
//
// usage: node duckdb_copy.js IN.parquet OUT.parquet CODEC
'use strict';
const readline = require('readline');
const { DuckDBInstance } = require('@duckdb/node-api');

const [input, output, codec] = process.argv.slice(2);
const q = s => "'" + s.replace(/'/g, "''") + "'";

(async () => {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  await conn.run('CREATE TABLE t AS SELECT * FROM read_parquet(' + q(input) + ')');
  const threads = (await conn.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
  process.stdout.write('ready threads=' + threads + '\n');
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line === 'write') {
      await conn.run('COPY t TO ' + q(output) + ' (FORMAT parquet, COMPRESSION ' + codec + ')');
    } else if (line === 'read') {
      await conn.run('CREATE OR REPLACE TABLE r AS SELECT * FROM read_parquet(' + q(output) + ')');
    } else {
      break;
    }
    process.stdout.write('done\n');
  }
  process.exit(0);
})().catch(e => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
