// Prints the Fingerprint64 vectors of tests/unit/test_hash.c with Google's
// C++ FarmHash (the npm package `farmhash`, a binding of farmhash.cc).
// Not part of make test: `npm install farmhash && node farmhash_vectors.cjs`.
const fh = require('farmhash');
// strings of every length class, bytes 0..255 pattern: s[i] = (i*31 + n) & 255
const out = [];
for (const n of [0,1,3,4,7,8,15,16,17,24,31,32,33,48,63,64,65,96,127,128,129,200,255,256,257,300,1000]) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i*31 + n) & 255;
  out.push(`    {${n}, UINT64_C(${fh.fingerprint64(b)})},`);
}
console.log(out.join('\n'));
