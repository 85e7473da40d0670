// A value of an Arrow column, as apache-arrow's vectors give it, turned
// into plain JavaScript: lists and fixed-size lists as arrays, a struct as
// an object, null as null, each leaf through leaf(value, type).  Shared by
// read.js and write.js.
'use strict';
const { Type } = require('apache-arrow');

function walk(v, t, leaf) {
  if (v === null || v === undefined) return null;
  switch (t.typeId) {
    case Type.List:
    case Type.FixedSizeList:
    case Type.LargeList: {
      const out = [];
      for (let i = 0; i < v.length; i++) out.push(walk(v.get(i), t.children[0].type, leaf));
      return out;
    }
    case Type.Struct: {
      const o = {};
      for (const f of t.children) o[f.name] = walk(v[f.name], f.type, leaf);
      return o;
    }
    default:
      return leaf(v, t);
  }
}

module.exports = { walk };
