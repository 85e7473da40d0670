// Reads Parquet files with two independent readers and prints each file as
// one JSON line per reader, in read.js's form: {"file", "reader", "rows",
// "fields": [[name, type]...], "data": [row...]}, each leaf tagged (int64
// "i:N", bytes "x:HEX", float32 a number or "f:nan", "f:inf", "f:-inf",
// "f:-0"), lists as arrays, a struct as an object.
//
//   duckdb     DuckDB (@duckdb/node-api): read_parquet; types as DuckDB
//              names them (BIGINT, FLOAT, BLOB, X[], STRUCT(...));
//              "stats", parquet_metadata's [row group, path, min, max,
//              null count] of every column chunk; and "sizes", its [row
//              group, path, total_uncompressed_size, encodings]
//   hyparquet  hyparquet (pure JavaScript, with hyparquet-compressors for
//              ZSTD and GZIP); types are the Parquet schema's leaves;
//              "stats" as DuckDB's, from the footer as hyparquet decodes it;
//              "schema", the footer's SchemaElements as [name, type,
//              type_length, converted_type, logical_type]
//
// usage: node parquet.js [--duckdb] FILE...   (both readers, or DuckDB's
//        alone, every file)
'use strict';
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const duckdb = require('@duckdb/node-api');

function tag(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return 'i:' + v.toString();
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'f:nan';
    if (v === Infinity) return 'f:inf';
    if (v === -Infinity) return 'f:-inf';
    if (Object.is(v, -0)) return 'f:-0';
    return v;
  }
  if (v instanceof duckdb.DuckDBBlobValue) return 'x:' + Buffer.from(v.bytes).toString('hex');
  if (v instanceof Uint8Array) return 'x:' + Buffer.from(v).toString('hex');
  if (v instanceof duckdb.DuckDBListValue) return v.items.map(tag);
  if (v instanceof duckdb.DuckDBStructValue) {
    const o = {};
    for (const [k, x] of Object.entries(v.entries)) o[k] = tag(x);
    return o;
  }
  if (Array.isArray(v)) return v.map(tag);
  if (typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = tag(x);
    return o;
  }
  throw new Error('a value of type ' + typeof v + ': ' + String(v));
}

async function viaDuckdb(conn, file) {
  const q = "'" + file.replace(/'/g, "''") + "'";
  const r = await conn.runAndReadAll('SELECT * FROM read_parquet(' + q + ')');
  const names = r.columnNames();
  const types = r.columnTypes().map(String);
  const data = r.getRows().map(row => {
    const o = {};
    names.forEach((n, k) => { o[n] = tag(row[k]); });
    return o;
  });
  const m = await conn.runAndReadAll(
    'SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, stats_null_count ' +
    'FROM parquet_metadata(' + q + ') ORDER BY row_group_id, column_id');
  const z = await conn.runAndReadAll(
    'SELECT row_group_id, path_in_schema, total_uncompressed_size, encodings ' +
    'FROM parquet_metadata(' + q + ') ORDER BY row_group_id, column_id');
  return { file, reader: 'duckdb', rows: data.length, fields: names.map((n, k) => [n, types[k]]),
           data, stats: m.getRowsJson(), sizes: z.getRowsJson() };
}

async function viaHyparquet(hy, compressors, file) {
  const buf = fs.readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const meta = hy.parquetMetadata(ab);
  const rows = await hy.parquetReadObjects({ file: ab, compressors, utf8: false });
  const top = hy.parquetSchema(meta).children;
  const data = rows.map(row => {
    const o = {};
    for (const c of top) o[c.element.name] = tag(row[c.element.name]);
    return o;
  });
  const num = v => v === undefined || v === null ? null
    : typeof v === 'bigint' ? v.toString()
      : typeof v === 'number' ? (Object.is(v, -0) ? '-0.0' : v === Infinity ? 'inf'
        : v === -Infinity ? '-inf' : String(v))
        : 'x:' + Buffer.from(v).toString('hex');
  const stats = [];
  meta.row_groups.forEach((rg, g) => {
    for (const c of rg.columns) {
      const st = c.meta_data.statistics || {};
      stats.push([String(g), c.meta_data.path_in_schema.join(', '), num(st.min_value),
                  num(st.max_value), num(st.null_count)]);
    }
  });
  const schema = meta.schema.map(e => [e.name, e.type || null, e.type_length ?? null,
    e.converted_type ?? null, e.logical_type ?? null]);
  return { file, reader: 'hyparquet', rows: data.length, schema_rows: Number(meta.num_rows),
           fields: top.map(c => [c.element.name, c.element.type || 'group']), data, stats,
           schema };
}

(async () => {
  const mods = process.env.NODE_PATH;
  const hy = await import(pathToFileURL(path.join(mods, 'hyparquet', 'src', 'node.js')).href);
  const { compressors } = await import(
    pathToFileURL(path.join(mods, 'hyparquet-compressors', 'src', 'index.js')).href);
  const inst = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  let files = process.argv.slice(2);
  const only = files[0] === '--duckdb';
  if (only) files = files.slice(1);
  for (const file of files) {
    const t = [await viaDuckdb(conn, file)];
    if (!only) t.push(await viaHyparquet(hy, compressors, file));
    for (const x of t) process.stdout.write(JSON.stringify(x) + '\n');
  }
})().catch(e => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
