// Runs SQL statements in one in-memory DuckDB (@duckdb/node-api), for
// run.py's Parquet files written by DuckDB: COPY ... TO 'x.parquet'
// (FORMAT parquet, COMPRESSION c, PARQUET_VERSION V1|V2, ...), and tables
// with NULLs made in SQL.
//
// usage: node duckdb_write.js SQL...   (each argument one statement)
'use strict';
const duckdb = require('@duckdb/node-api');

(async () => {
  const inst = await duckdb.DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await inst.connect();
  for (const sql of process.argv.slice(2)) await conn.run(sql);
})().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
