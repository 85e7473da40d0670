// Writes Arrow IPC files with Arrow's own JavaScript implementation: the
// rows of IN (an IPC file featc wrote) turned into plain JavaScript values
// (BigInt, number, Uint8Array, arrays, objects), built into new vectors of
// the same types by apache-arrow's builders (vectorFromArray), and written
// by its IPC writer: an Arrow file that featc did not write, with the
// mapped schema.  With a third argument "wrong-type", the first column that
// is not binary is written as utf8 text instead (a table whose types do
// not fit the spec; utf8 would fit a bytes feature).
//
// usage: node write.js IN OUT [wrong-type]
'use strict';
const fs = require('fs');
const { tableFromIPC, tableToIPC, vectorFromArray, Table, Type, Utf8 } = require('apache-arrow');
const { walk } = require('./values.js');

// (binary leaves copied out of the table's buffer; the rest as they are)
const plain = (v, t) => walk(v, t, (x, lt) =>
  lt.typeId === Type.Binary || lt.typeId === Type.LargeBinary ? Uint8Array.from(x) : x);

const [input, output, mode] = process.argv.slice(2);
const table = tableFromIPC(fs.readFileSync(input));
const columns = {};
let changed = false;
for (const f of table.schema.fields) {
  const col = table.getChild(f.name);
  const values = [];
  for (let i = 0; i < table.numRows; i++) values.push(plain(col.get(i), f.type));
  const binary = f.type.typeId === Type.Binary || f.type.typeId === Type.LargeBinary;
  if (mode === 'wrong-type' && !changed && !binary) {
    columns[f.name] = vectorFromArray(values.map(v => String(v)), new Utf8());
    changed = true;
  } else {
    columns[f.name] = vectorFromArray(values, f.type);
  }
}
fs.writeFileSync(output, tableToIPC(new Table(columns), 'file'));
