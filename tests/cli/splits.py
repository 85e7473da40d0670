"""featc index and the part options (--split, --range, --records, --index,
--sync) of cat, count and verify, through the command line.

- `featc index` writes what DALI's tfrecord2idx writes: the index is
  compared with one computed here from the file's bytes, record by record;
  `index --check` passes it, and fails a stale one with exit 1;
- for corpus files and a file whose records hold TFRecord streams, every
  way of cutting the file into k = 1..17 splits by --split (walk and
  index) gives, concatenated, the full `cat` output: every record once, in
  order; --sync=checksum too on the corpus files; --range and --records
  likewise;
- on a damaged file, the first split that fails fails with the sequential
  read's message, and the splits before it hold the records before it;
- the usage errors, and files a part cannot be read from.

usage: splits.py FEATC CORPUS TMPDIR; prints "splits: N passed, M failed".
"""
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'oracle'))
import framing  # noqa: E402
import tally  # noqa: E402
from tally import check, finish  # noqa: E402

featc, corpus, tmp = sys.argv[1:4]


def run(*args):
    return tally.run([featc, *args])


def dali_index(data):
    """The index as tfrecord2idx writes it: "offset size" per record, the
    size from the length field plus 16 framing bytes."""
    lines, at = [], 0
    while at < len(data):
        (length,) = struct.unpack_from('<Q', data, at)
        lines.append('%d %d\n' % (at, length + 16))
        at += length + 16
    return ''.join(lines)


def cat_records(out):
    """The records of `featc cat` text output, without the record number
    (a checksum sync does not know it): one string per record."""
    recs = []
    for line in out.splitlines(keepends=True):
        if line.startswith('# ') and not line.startswith('# payload'):
            head, sep, rest = line.partition(' record ')
            rest = rest.split(' ', 1)[1]
            recs.append(head + sep + rest)
        elif recs:
            recs[-1] += line
    return recs


def full_cat(path):
    rc, out, err = run('cat', path)
    check(rc == 0, 'cat %s: %d %s' % (path, rc, err[:200]))
    return cat_records(out), out


# ---- index files
plain = [
    'tfx__mnist.tfrecord',
    'lingvo__wmt14_ende_wpm_32k_test.tfrecord',
    'deepmind-research__sketchy_example_data.tfrecords',
    'pytorch-data__sequence_example.tfrecord',
    'pwnall-tfrecord__singles.tfrecords',
]
for name in plain:
    src = os.path.join(corpus, name)
    path = os.path.join(tmp, name)
    with open(src, 'rb') as f:
        data = f.read()
    with open(path, 'wb') as f:
        f.write(data)
    rc, out, err = run('index', path)
    check(rc == 0 and out == '' and err == '', 'index %s: %d %s' % (name, rc, err))
    with open(path + '.idx') as f:
        mine = f.read()
    check(mine == dali_index(data), 'index of %s differs from the DALI index' % name)
    rc, out, err = run('index', '--check', path)
    check(rc == 0 and (': index %s.idx OK: %d record' % (path, mine.count('\n'))) in out,
          'index --check %s: %d %s' % (name, rc, out))
    rc, out, err = run('index', '-o', '-', path)
    check(rc == 0 and out == mine, 'index -o - %s' % name)

mnist = os.path.join(tmp, 'tfx__mnist.tfrecord')
with open(mnist + '.idx') as f:
    lines = f.read().splitlines()
stale = os.path.join(tmp, 'stale.idx')
with open(stale, 'w') as f:
    f.write('\n'.join(lines[:-1] + ['3199797 3204']) + '\n')
rc, out, err = run('index', '--check', '--index', stale, mnist)
check(rc == 1 and 'index entry 999 says offset 3199797 size 3204; record 999 of the file is '
      'at offset 3199797 with size 3203' in out, 'stale index: %d %s' % (rc, out))
with open(stale, 'w') as f:
    f.write('\n'.join(lines[:10]) + '\n')
rc, out, err = run('index', '--check', '--index', stale, mnist)
check(rc == 1 and 'the index ends after 10 entries, but the file has a record at offset '
      '32030' in out, 'short index: %d %s' % (rc, out))
with open(stale, 'w') as f:
    f.write('0 3203\n3203 x\n')
rc, out, err = run('index', '--check', '--index', stale, mnist)
check(rc == 2 and 'index line 2, column 6: expected a record size' in out,
      'malformed index: %d %s' % (rc, out))
shifted = os.path.join(tmp, 'shifted.idx')
with open(shifted, 'w') as f:
    f.write(''.join('%d %s\n' % (int(l.split()[0]) + 1, l.split()[1]) for l in lines))
rc, out, err = run('count', '--records', '4:6', '--index', shifted, mnist)
check(rc == 2 and 'index line 1, column 1: the record at offset 1 is the first, but a file\'s '
      'first record is at offset 0' in err, 'shifted index: %d %s' % (rc, err))
# back to back from 0, but record 3 one byte longer than it is: record 4 is
# placed one byte late; the read placed at entry 4 checks entry 3 first
with open(shifted, 'w') as f:
    f.write(''.join('%d %d\n' % (int(l.split()[0]) + (i >= 4), int(l.split()[1]) + (i == 3))
                    for i, l in enumerate(lines)))
rc, out, err = run('count', '--records', '4:6', '--index', shifted, mnist)
check(rc == 2 and 'index entry 3 says offset 9609 size 3204; record 3 of the file is at offset '
      '9609 with size 3203' in err, 'one record too long: %d %s' % (rc, err))
# entry 0 swallows record 1, the entries after it true (every later record
# numbered one too low): a part placed at entry 1, or any later one, fails
# before its first record instead of labelling record 2 as 1
with open(shifted, 'w') as f:
    f.write('0 %d\n' % (int(lines[0].split()[1]) + int(lines[1].split()[1])) +
            ''.join(l + '\n' for l in lines[2:]))
for part in (['--records', '1:'], ['--records', '1:2'], ['--records', '500:'],
             ['--split', '2/3']):
    rc, out, err = run('count', *part, '--index', shifted, mnist)
    check(rc == 2 and 'index entry 0 says offset 0 size 6406; record 0 of the file is at offset '
          '0 with size 3203' in err, 'entry 0 over two records, %s: %d %s' % (part, rc, err))

zl = os.path.join(corpus, 'tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz')
with open(zl, 'rb') as f:
    zlib_data = __import__('zlib').compress(__import__('gzip').decompress(f.read()))
zl = os.path.join(tmp, 'zlib.tfrecord')
with open(zl, 'wb') as f:
    f.write(zlib_data)
rc, out, err = run('index', '-o', os.path.join(tmp, 'z.idx'), zl)
check(rc == 2 and 'this file is ZLIB, one stream that can only be read from its first byte' in err
      and not os.path.exists(os.path.join(tmp, 'z.idx')), 'index of ZLIB: %d %s' % (rc, err))
damaged = os.path.join(tmp, 'damaged.tfrecord')
with open(os.path.join(corpus, 'tf-models-CRLF-DAMAGED__pets_examples.record'), 'rb') as f:
    pets = f.read()
with open(damaged, 'wb') as f:
    f.write(pets)
rc, out, err = run('index', damaged)
check(rc == 2 and 'no index written' in err and not os.path.exists(damaged + '.idx'),
      'index of a damaged file: %d %s' % (rc, err))
for args, text in [
        (['index', '-o', 'x.idx', mnist, mnist], '--output takes one FILE'),
        (['index', '--check', '-o', 'x.idx', mnist], '--output does not go with --check'),
        (['index', '--index', 'x.idx', mnist], '--index goes with --check'),
        (['index'], 'no input file'),
        (['index', '-'], 'standard input has no FILE.idx: give --output'),
        (['count', '--split', '3/3', mnist], "bad split '3/3'"),
        (['count', '--split', '1/0', mnist], "bad split '1/0'"),
        (['count', '--range', '5:2', mnist], "bad range '5:2'"),
        (['count', '--records', 'a:2', mnist], "bad records 'a:2'"),
        (['count', '--split', '0/2', '--range', '0:5', mnist], 'exclude each other'),
        (['count', '--split', '0/2', '--sync', 'guess', mnist], "unknown sync method 'guess'"),
        (['count', '--index', 'x.idx', mnist], '--index goes with --split, --range or --records'),
        (['count', '--sync', 'walk', mnist], '--sync goes with --split, --range or --records'),
        (['count', '--split', '0/2', '--sync', 'walk', '--index', 'x', mnist],
         '--sync and --index exclude each other'),
        (['count', '--records', '0:2', '--sync', 'walk', mnist], '--sync goes with --split or'),
        (['count', '--split', '0/2', '--sync', 'checksum', '--crc', 'none', mnist],
         'cannot go with --crc=none')]:
    rc, out, err = run(*args)
    check(rc == 64 and text in err, '%s: %d %s' % (' '.join(args), rc, err))
rc, out, err = run('count', '--split', '0/2', zl)
check(rc == 2 and 'needs an uncompressed or GZIP file; this one is ZLIB' in err,
      'split of ZLIB: %s' % err)
p = subprocess.run([featc, 'count', '--split', '0/2', '-'], input=open(mnist, 'rb').read(),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
check(p.returncode == 2 and b'needs a regular file, not a stream' in p.stderr,
      'split of a stream: %s' % p.stderr)
rc, out, err = run('count', '--records', '0:2', damaged)
check(rc == 2 and 'there is no %s.idx' % damaged in err, '--records without an index: %s' % err)
rc, out, err = run('count', '--records', '1001:1002', mnist)
check(rc == 2 and '--records starts at record 1001, but the index' in err, '--records past: %s' % err)

# ---- splits cover every record once, in order
random.seed(24)


def example_of(blob):
    """An Example with one bytes feature, "blob"."""
    feature = b'\x0a' + framing.varint(len(blob)) + blob                # BytesList.value
    feature = b'\x0a' + framing.varint(len(feature)) + feature          # Feature.bytes_list
    entry = b'\x0a\x04blob\x12' + framing.varint(len(feature)) + feature
    features = b'\x0a' + framing.varint(len(entry)) + entry
    return b'\x0a' + framing.varint(len(features)) + features


def embedded_file(path):
    """Examples whose bytes feature holds a whole TFRecord file, one large."""
    out = bytearray()
    for i in range(12):
        inner = b''.join(framing.frame(bytes(random.randrange(256) for _ in range(random.randrange(80))))
                         for _ in range(random.randrange(1, 40 if i == 5 else 6)))
        out += framing.frame(example_of(inner))
    with open(path, 'wb') as f:
        f.write(out)


emb = os.path.join(tmp, 'embedded.tfrecord')
embedded_file(emb)
check(run('index', emb)[0] == 0, 'index of the embedded-stream file')
def verify_parts(paths, *args):
    """{path: (first record's offset, records, where the last one ends)} of
    the same part of each file, from one `featc verify` of them all (one
    process for all the files: the same parts, far fewer process starts,
    which cost most under qemu and the sanitizers)."""
    rc, out, err = run('verify', *args, *paths)
    check(rc == 0, 'verify %s %s: %d %s' % (' '.join(args), ' '.join(paths), rc, err))
    got = {}
    for line in out.splitlines():
        for path in paths:
            if line.startswith(path + ': OK: '):
                words = line[len(path) + 2:].split()
                n, nbytes, start = int(words[1]), int(words[4]), int(words[10])
                got[path] = (start, n, start + nbytes)
    check(len(got) == len(paths), 'verify %s: %d lines for %d files: %s'
          % (' '.join(args), len(got), len(paths), out[:300]))
    return {p: got.get(p, (0, 0, 0)) for p in paths}


def verify_part(path, *args):
    """(first record's offset, records, where the last one ends) of a part."""
    return verify_parts([path], *args)[path]


small = [os.path.join(tmp, 'lingvo__wmt14_ende_wpm_32k_test.tfrecord'),
         os.path.join(tmp, 'pwnall-tfrecord__singles.tfrecords'), emb]
cut_files = [mnist, os.path.join(tmp, 'deepmind-research__sketchy_example_data.tfrecords'),
             os.path.join(tmp, 'pytorch-data__sequence_example.tfrecord')] + small
# (the checksum sync alone can take a stream inside a record for records
# (docs/record-tools.md, "Splits"); exactness there is the walk's: not emb)
by_method = [('walk', ['--sync=walk'], cut_files),
             ('checksum', ['--sync=checksum'], [p for p in cut_files if p != emb])]
by_method += [('index', ['--index', p + '.idx'], [p]) for p in cut_files]
totals = {p: (dali_index(open(p, 'rb').read()).count('\n'), os.path.getsize(p)) for p in cut_files}
for k in range(1, 18):
    for mname, margs, paths in by_method:
        # each split starts where the records before it end, and the
        # splits hold every record: the chain of records is covered once
        end, n, ok = dict.fromkeys(paths, 0), dict.fromkeys(paths, 0), dict.fromkeys(paths, True)
        for i in range(k):
            parts = verify_parts(paths, '--split', '%d/%d' % (i, k), *margs)
            for p, (start, count, stop) in parts.items():
                if count > 0:
                    ok[p] = ok[p] and start == end[p]
                    end[p] = stop
                n[p] += count
        for p in paths:
            total, size = totals[p]
            check(ok[p] and n[p] == total and end[p] == size, '%s: %d splits by %s: %d records, '
                  'want %d' % (os.path.basename(p), k, mname, n[p], total))
for path in small:
    methods = [('walk', ['--sync=walk']), ('index', ['--index', path + '.idx'])]
    if path != emb:
        methods.append(('checksum', ['--sync=checksum']))
    whole, whole_text = full_cat(path)
    for k in [2, 3, 17]:
        for mname, margs in methods:
            got, texts = [], []
            for i in range(k):
                rc, out, err = run('cat', '--split', '%d/%d' % (i, k), *margs, path)
                check(rc == 0, 'cat --split %d/%d %s %s: %d %s' % (i, k, mname, path, rc, err))
                got += cat_records(out)
                texts.append(out)
            check(got == whole, '%s: %d splits by %s: %d records, want %d' %
                  (os.path.basename(path), k, mname, len(got), len(whole)))
            if mname != 'checksum':
                check(''.join(texts) == whole_text, '%s: %d splits by %s: record numbers' %
                      (os.path.basename(path), k, mname))
    size = os.path.getsize(path)
    cut = sorted(random.sample(range(1, size), min(5, size - 1)))
    bounds = [0] + cut + [size]
    got = []
    for a, b in zip(bounds, bounds[1:]):
        got += cat_records(run('cat', '--range', '%d:%d' % (a, b), path)[1])
    check(got == whole, '%s: --range at %s' % (os.path.basename(path), cut))
    n = len(whole)
    got = []
    for a, b in [(0, n // 3), (n // 3, n // 2), (n // 2, None)]:
        got += cat_records(run('cat', '--records', '%d:%s' % (a, '' if b is None else b), path)[1])
    check(got == whole, '%s: --records in three' % os.path.basename(path))

rc, out, err = run('cat', '--json', '--split', '1/2', '--sync=checksum', mnist)
check(rc == 0 and out.startswith('{"record":null,"offset":1601500,'),
      'cat --json after a checksum sync: %s' % out[:80])
rc, out, err = run('cat', '--json', '--split', '1/2', mnist)
check(rc == 0 and out.startswith('{"record":500,"offset":1601500,'),
      'cat --json after a walk: %s' % out[:80])
rc, out, err = run('verify', '--split', '1/2', mnist)
check(rc == 0 and out == '%s: OK: 500 records, NONE, 1601500 bytes of records from offset '
      '1601500 (the records starting in [1601500, 3203000))\n' % mnist, 'verify --split: %s' % out)

# ---- seekable GZIP: members written by Python's gzip module, 37 records each
import gzip  # noqa: E402
recs = [framing.frame(example_of(bytes(random.randrange(4) for _ in range(random.randrange(300)))))
        for _ in range(1000)]
groups = [b''.join(recs[i:i + 37]) for i in range(0, 1000, 37)]
members = [gzip.compress(g, mtime=0) for g in groups]
seekable = os.path.join(tmp, 'seekable.tfrecord.gz')
with open(seekable, 'wb') as f:
    f.write(b''.join(members))
want, off, stream = '', 0, 0
for i, (m, g) in enumerate(zip(members, groups)):
    want += '%d %d %d\n' % (off, stream, 37 * i)
    off += len(m)
    stream += len(g)
rc, out, err = run('index', seekable)
check(rc == 0, 'index of a seekable GZIP file: %d %s' % (rc, err))
with open(seekable + '.members') as f:
    got_members = f.read()
check(got_members == want, 'member index differs from the members Python wrote')
rc, out, err = run('index', '--check', seekable)
check(rc == 0 and 'member index %s.members OK: 28 members' % seekable in out, out + err)
lines = want.splitlines()
second = lines[1].split()
lines[1] = '%s %s 38' % (second[0], second[1])
with open(os.path.join(tmp, 'stale.members'), 'w') as f:
    f.write('\n'.join(lines) + '\n')
rc, out, err = run('index', '--check', '--index', os.path.join(tmp, 'stale.members'), seekable)
check(rc == 1 and ('line 2 says %s %s 38; the file\'s member 1 is %s %s 37' %
                   (second[0], second[1], second[0], second[1])) in out,
      'stale member index: %d %s' % (rc, out))
# by its member index, and by a scan (the same bytes under a name with no
# FILE.members beside it), in one process per split; then by a named index
unlisted = os.path.join(tmp, 'unlisted.tfrecord.gz')
with open(unlisted, 'wb') as f:
    f.write(b''.join(members))
for labels, paths, extra in [({seekable: 'member index', unlisted: 'scan'}, [seekable, unlisted], []),
                             ({seekable: 'named'}, [seekable], ['--index', seekable + '.members'])]:
    for k in range(1, 18):
        end, n, ok = dict.fromkeys(paths, 0), dict.fromkeys(paths, 0), dict.fromkeys(paths, True)
        for i in range(k):
            for p, (start, count, stop) in verify_parts(paths, '--split', '%d/%d' % (i, k),
                                                        *extra).items():
                if count > 0:
                    ok[p] = ok[p] and start == end[p]
                    end[p] = stop
                n[p] += count
        for p in paths:
            check(ok[p] and n[p] == 1000 and end[p] == sum(len(g) for g in groups),
                  'seekable GZIP by %s, %d splits: %d records' % (labels[p], k, n[p]))
check(not os.path.exists(unlisted + '.members'), 'a scan wrote a member index')
got = []
for i in range(4):
    got += cat_records(run('cat', '--split', '%d/4' % i, seekable)[1])
check(got == full_cat(seekable)[0], 'seekable GZIP: cat of 4 splits')
rc, out, err = run('count', '--records', '0:5', seekable)
check(rc == 2 and '--records needs an uncompressed file' in err, '--records of GZIP: %s' % err)
# a one-member file (as TensorFlow writes): the first split reads it all
penguin = os.path.join(corpus, 'tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz')
counts = [run('count', '--split', '%d/3' % i, '--index', os.devnull, penguin) for i in range(3)]
check([c[0] for c in counts] == [2, 2, 2], 'an empty member index is no index')
counts = [run('count', '--split', '%d/3' % i, penguin)[1].split()[0] for i in range(3)]
check(counts[1:] == ['0', '0'] and int(counts[0]) > 0, 'one member: %s' % counts)

# ---- a damaged file: the first failing split says what the sequential read says
rc, seq_out, seq_err = run('count', damaged)
check(rc == 2, 'count of the damaged file fails')
seq_msg = seq_err.strip()
rc, whole_out, _ = run('cat', '--crc=none', damaged)
for k in [1, 2, 3, 5, 8, 13, 17]:
    total, first_failure = 0, None
    for i in range(k):
        rc, out, err = run('count', '--split', '%d/%d' % (i, k), damaged)
        if rc == 0:
            if first_failure is None:
                total += int(out.split()[0])
        elif first_failure is None:
            first_failure = err.strip()
    check(first_failure == seq_msg, 'damaged, %d splits: first failure %r, sequential %r' %
          (k, first_failure, seq_msg))
    before = int(seq_msg.split(': record ')[1].split(':')[0].split()[0])
    check(total == before, 'damaged, %d splits: %d records before the failure, want %d' %
          (k, total, before))

# ---- -j: the same lines as one thread, for every file of the corpus and
# the files made here (seekable GZIP with and without its member index,
# records holding TFRecord streams, a damaged file)
every = sorted(os.path.join(corpus, f) for f in os.listdir(corpus)
               if not f.startswith(('MANIFEST', 'NOTICE')))
every += [seekable, emb, damaged, mnist]
for args in [['count'], ['count', '--crc=skip'], ['verify'], ['verify', '--examples']]:
    want = run(*(args + every))
    for jobs in ['2', '3', '7']:
        got = run(*(args + ['-j', jobs] + every))
        check(got == want, '%s -j %s differs from one thread:\n%s\n%s' %
              (' '.join(args), jobs, got[1][-300:] + got[2][-300:], want[1][-300:] + want[2][-300:]))
os.rename(seekable + '.members', seekable + '.keep')
check(run('count', '-j', '2', seekable) == run('count', seekable), 'count -j of GZIP, no members')
os.rename(seekable + '.keep', seekable + '.members')
jdir = os.path.join(tmp, 'jobs')
os.mkdir(jdir)
names = []
for f in [mnist, emb, damaged, seekable, os.path.join(tmp, 'lingvo__wmt14_ende_wpm_32k_test.tfrecord')]:
    dst = os.path.join(jdir, os.path.basename(f))
    with open(f, 'rb') as a, open(dst, 'wb') as b:
        b.write(a.read())
    names.append(dst)
rc1, out1, err1 = run('index', *names)
one = {n: open(n + '.idx').read() for n in names if os.path.exists(n + '.idx')}
for n in names:
    for suffix in ('.idx', '.members'):
        if os.path.exists(n + suffix):
            os.remove(n + suffix)
rc2, out2, err2 = run('index', '-j', '3', *names)
two = {n: open(n + '.idx').read() for n in names if os.path.exists(n + '.idx')}
check(rc1 == rc2 == 2 and err1 == err2 and one == two and len(one) == 3,
      'index -j 3: %d %s / %d %s, %d indexes' % (rc1, err1, rc2, err2, len(two)))
check(os.path.exists(os.path.join(jdir, os.path.basename(seekable)) + '.members'),
      'index -j of GZIP writes FILE.members')
# -j 0: one thread per CPU, the lines of one thread
check(run('count', '-j', '0', mnist) == run('count', mnist), 'count -j 0 differs from one thread')
for args, text in [(['count', '-j', '1025', mnist], "bad number of jobs '1025'"),
                   (['count', '-j', 'x', mnist], "bad number of jobs 'x'"),
                   (['verify', '-j', '2', '--split', '0/2', mnist], '-j reads whole files')]:
    rc, out, err = run(*args)
    check(rc == 64 and text in err, '%s: %d %s' % (' '.join(args), rc, err))

sys.exit(finish("splits"))
