// Reads Arrow IPC files (FILE), streams (FILE ending in .arrows) and
// Parquet files (FILE ending in .parquet) with Polars (nodejs-polars, Polars' Rust engine) and prints one JSON line per
// file: {"file", "height", "columns": [[name, dtype, sum]...]}: the dtype
// as Polars prints it (its Node binding cannot name binary types, so the
// header of the printed frame is read), and the sum of every value of a
// numeric column, lists flattened (null for other columns).  The Arrow
// type of each column (from read.js) says how many list levels to
// flatten: argv gives them as NAME=LEVELS,... after each file.
//
// usage: node polars.js FILE LEVELS [FILE LEVELS...]
'use strict';
const fs = require('fs');
const pl = require('nodejs-polars');

// The dtype row of a one-column frame's printed header (wrapped lines
// joined, spaces dropped).
function dtypeOf(df, name) {
  const lines = df.select(name).head(0).toString().split('\n');
  const start = lines.findIndex(l => l.includes('---'));
  const out = [];
  for (let i = start + 1; i < lines.length; i++) {
    if (/^[╞└]/.test(lines[i])) break;
    out.push(lines[i].replace(/[│\s]/g, ''));
  }
  return out.join('');
}

const args = process.argv.slice(2);
for (let a = 0; a + 1 < args.length; a += 2) {
  const file = args[a];
  const levels = {};
  for (const item of args[a + 1].split(',').filter(Boolean)) {
    const eq = item.lastIndexOf('=');
    levels[item.slice(0, eq)] = item.slice(eq + 1);
  }
  const buf = fs.readFileSync(file);
  const df = file.endsWith('.arrows') ? pl.readIPCStream(buf)
    : file.endsWith('.parquet') ? pl.readParquet(buf) : pl.readIPC(buf);
  const columns = df.columns.map(name => {
    let sum = null;
    const lv = levels[name];
    if (lv !== undefined && lv !== 'x') {
      let s = df.getColumn(name);
      for (let k = 0; k < Number(lv); k++) s = s.explode();
      sum = s.len() > 0 ? String(s.sum()) : '0';
    }
    return [name, dtypeOf(df, name), sum];
  });
  process.stdout.write(JSON.stringify({ file, height: df.height, columns }) + '\n');
}
