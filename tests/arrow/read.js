// Reads Arrow IPC files (FILE) and streams (FILE ending in .arrows) with
// Arrow's own JavaScript implementation (apache-arrow) and prints each as
// one JSON line: {"file", "rows", "batches", "fields": [[name, type]...],
// "data": [row...]}, a row an object of column values, nested lists as
// arrays, a struct as an object, and each leaf tagged with its type, so
// that tests/arrow/run.py can compare it with the JSON driver's values
// without guessing: int64 "i:N", bytes "x:HEX", float32 a number or
// "f:nan", "f:inf", "f:-inf", "f:-0"; a null is null.
//
// usage: node read.js FILE...
'use strict';
const fs = require('fs');
const { tableFromIPC, Type } = require('apache-arrow');
const { walk } = require('./values.js');

function leaf(v, t) {
  switch (t.typeId) {
    case Type.Int:
      return 'i:' + v.toString();
    case Type.Float:
      if (Number.isNaN(v)) return 'f:nan';
      if (v === Infinity) return 'f:inf';
      if (v === -Infinity) return 'f:-inf';
      if (Object.is(v, -0)) return 'f:-0';
      return v;
    case Type.Binary:
    case Type.LargeBinary:
      return 'x:' + Buffer.from(v).toString('hex');
    case Type.Utf8:
    case Type.LargeUtf8:
      return 'x:' + Buffer.from(v, 'utf8').toString('hex');
    default:
      throw new Error('a leaf of type ' + t);
  }
}

const value = (v, t) => walk(v, t, leaf);

// READ_MAX_ROWS=N: a table of more rows is described, not walked ("data":
// null): a hostile file may claim 2^48 of them.
const maxRows = Number(process.env.READ_MAX_ROWS || Infinity);

for (const file of process.argv.slice(2)) {
  const table = tableFromIPC(fs.readFileSync(file));
  const fields = table.schema.fields;
  if (table.numRows > maxRows) {
    process.stdout.write(JSON.stringify({
      file, rows: table.numRows, batches: table.batches.length,
      fields: fields.map(f => [f.name, String(f.type)]), data: null,
    }) + '\n');
    continue;
  }
  const data = [];
  for (const batch of table.batches) {
    const cols = fields.map((f, k) => batch.getChildAt(k));
    for (let r = 0; r < batch.numRows; r++) {
      const row = {};
      fields.forEach((f, k) => { row[f.name] = value(cols[k].get(r), f.type); });
      data.push(row);
    }
  }
  process.stdout.write(JSON.stringify({
    file, rows: table.numRows, batches: table.batches.length,
    fields: fields.map(f => [f.name, String(f.type)]), data,
  }) + '\n');
}
