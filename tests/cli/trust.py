"""What featc is handed beside the data is a claim to check (issue 43): index
files and GZIP member lists that are stale, short, empty, foreign or forged,
and split numbers at the 64-bit extremes, through `count`, `cat` and
`verify` with --split, --range, --records and -j.

The rule every case is held to: when all the parts of a file exit 0, they
hold exactly the file's records, each once, in order; a list that would
lose or repeat a record makes some part exit 2 with a message naming the
list.  The cases the issue reproduced (wrong counts with exit 0 before)
must fail.

usage: trust.py FEATC CORPUS TMPDIR; prints "trust: N passed, M failed".
"""
import gzip
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'oracle'))
import framing  # noqa: E402
import tally  # noqa: E402
from tally import check, finish  # noqa: E402

featc, corpus, tmp = sys.argv[1:4]


def run(*args):
    return tally.run([featc, *args])


def path(name):
    return os.path.join(tmp, name)


def write(name, data):
    with open(path(name), 'wb' if isinstance(data, bytes) else 'w') as f:
        f.write(data)
    return path(name)


def ld(field, data):
    return framing.varint(field << 3 | 2) + framing.varint(len(data)) + data


def example(i, pad):
    """tf.train.Example {i: int64 [i], s: bytes ['x' * pad]}"""
    num = ld(1, b'i') + ld(2, ld(3, ld(1, framing.varint(i))))
    text = ld(1, b's') + ld(2, ld(1, ld(1, b'x' * pad)))
    return ld(1, ld(1, num) + ld(1, text))


payloads = [example(i, i % 50) for i in range(1000)]
frames = [framing.frame(p) for p in payloads]
big = write('big.tfrecord', b''.join(frames))
offsets = []
at = 0
for fr in frames:
    offsets.append(at)
    at += len(fr)
index_lines = ['%d %d\n' % (o, len(fr)) for o, fr in zip(offsets, frames)]
write('big.tfrecord.idx', ''.join(index_lines))

# a seekable GZIP file: 10 members of 100 records, and its true member list
gz, members, coff, soff = b'', [], 0, 0
for k in range(10):
    chunk = b''.join(frames[k * 100:(k + 1) * 100])
    z = gzip.compress(chunk, mtime=0)
    members.append((coff, soff, k * 100))
    gz += z
    coff += len(z)
    soff += len(chunk)
seek = write('seek.tfrecord.gz', gz)


def members_text(ms):
    return ''.join('%d %d %d\n' % m for m in ms)


rc, out, err = run('index', '-o', path('scan.members'), seek)
check(rc == 0 and open(path('scan.members')).read() == members_text(members),
      'featc index writes the member list computed here: %d %s' % (rc, err))


def cat_lines(out):
    """cat's text output as one string per record, without its number."""
    recs, cur = [], None
    for line in out.splitlines():
        if line.startswith('# ') and ' record ' in line:
            cur = []
            recs.append(cur)
        elif cur is not None:
            cur.append(line)
    return ['\n'.join(r) for r in recs]


whole_rc, whole_out, _ = run('cat', big)
whole = cat_lines(whole_out)
check(whole_rc == 0 and len(whole) == 1000, 'cat of the whole file: %d %d' % (whole_rc, len(whole)))


def parts_hold(what, data_path, part_args, expect, must_fail=False, note=None):
    """Reads every part in part_args (lists of options) with cat; all exit 0
    means exactly the records expect (cat_lines), in order.  must_fail: some
    part exits 2, naming note."""
    got, rcs, errs = [], [], []
    for args in part_args:
        rc, out, err = run('cat', *(args + [data_path]))
        rcs.append(rc)
        errs.append(err)
        got.extend(cat_lines(out))
    ok = all(r == 0 for r in rcs)
    if ok:
        check(got == expect, '%s: every part exit 0, but %d records where the file has %d'
              % (what, len(got), len(expect)))
    else:
        check(all(r in (0, 2) for r in rcs), '%s: exit statuses %s' % (what, rcs))
    if must_fail:
        check(not ok, '%s: every part exit 0 (%d records of %d)' % (what, len(got), len(expect)))
        if not ok and note is not None:
            bad = [e for r, e in zip(rcs, errs) if r != 0]
            check(any(note in e for e in bad), '%s: no message has "%s": %s' % (what, note, bad))
    return ok


def splits(n, extra):
    return [['--split=%d/%d' % (k, n)] + extra for k in range(n)]


# ---- indexes: stale (the file grew, shrank), short, empty, foreign, forged
grown = write('grown.tfrecord', b''.join(frames) + b''.join(frames[:10]))
write('grown.tfrecord.idx', ''.join(index_lines))
grown_recs = whole + whole[:10]
rc, out, err = run('count', '--records=990:1000', grown)
check(rc == 0 and out.split()[0] == '10', 'grown file --records=990:1000: %d %s %s' % (rc, out, err))
rc, out, err = run('count', '--records=990:', grown)
check(rc == 0 and out.split()[0] == '20', 'grown file --records=990: reads on: %d %s' % (rc, out))
rc, out, err = run('count', '--records=990:1001', grown)
check(rc == 2 and '--records ends at record 1001, but the index' in err,
      'grown file --records=990:1001: %d %s' % (rc, err))
for n in (1, 2, 3, 7):
    ok = parts_hold('grown file, %d splits by its stale index' % n, grown,
                    splits(n, ['--index=' + path('grown.tfrecord.idx')]), grown_recs)
    check(ok, 'grown file, %d splits by a stale index: records past it are read on' % n)

two = write('two.idx', ''.join(index_lines[:2]))
rc, out, err = run('count', '--records=0:2', '--index=' + two, big)
check(rc == 0 and out.split()[0] == '2', 'two-line index --records=0:2: %d %s %s' % (rc, out, err))
rc, out, err = run('count', '--records=0:3', '--index=' + two, big)
check(rc == 2 and 'has 2' in err, 'two-line index --records=0:3: %d %s' % (rc, err))
empty = write('empty.idx', '')
rc, out, err = run('count', '--records=0:3', '--index=' + empty, big)
check(rc == 2 and out.split()[0] == '0', 'empty index --records=0:3: %d %s %s' % (rc, out, err))

other_frames = [framing.frame(example(i, i % 7 + 3)) for i in range(2000)]
other = write('other.tfrecord', b''.join(other_frames))
rc, _, err = run('index', other)
check(rc == 0, 'index of the other file: %s' % err)
rc, out, err = run('count', '--records=0:1000', '--index=' + other + '.idx', big)
check(rc == 2 and 'index entry 0 says offset 0 size 44; record 0 of the file is at offset 0 '
      'with size 41' in err and other + '.idx' in err, 'foreign index: %d %s %s' % (rc, out, err))
for n in (1, 2, 5):
    parts_hold('foreign index, %d splits' % n, big, splits(n, ['--index=' + other + '.idx']),
               whole, must_fail=True)

# an index with the sizes of two records swapped (offsets still back to back)
swapped = list(index_lines)
o5, s5 = map(int, swapped[5].split())
o6, s6 = map(int, swapped[6].split())
swapped[5] = '%d %d\n' % (o5, s6)
swapped[6] = '%d %d\n' % (o5 + s6, s5)
sw = write('swapped.idx', ''.join(swapped))
if s5 != s6:
    rc, out, err = run('count', '--records=0:10', '--index=' + sw, big)
    check(rc == 2 and 'index entry 5 says offset %d size %d' % (o5, s6) in err,
          'swapped sizes: %d %s' % (rc, err))
    for n in (2, 3, 500):
        parts_hold('swapped sizes, %d splits' % n, big, splits(n, ['--index=' + sw]), whole)

# the file shrank under its index
shrunk = write('shrunk.tfrecord', b''.join(frames[:600]) + frames[600][:7])
write('shrunk.tfrecord.idx', ''.join(index_lines))
for n in (1, 3, 4):
    parts_hold('shrunk file, %d splits by its old index' % n, shrunk,
               splits(n, ['--index=' + path('shrunk.tfrecord.idx')]), whole[:600],
               must_fail=True)
rc, out, err = run('count', '--records=0:1000', shrunk)
check(rc == 2, 'shrunk file --records=0:1000: %d %s' % (rc, out))
cut = write('cut.tfrecord', b''.join(frames[:600]))
write('cut.tfrecord.idx', ''.join(index_lines))
rc, out, err = run('count', '--records=590:610', cut)
check(rc == 2 and 'the file ends after 600 records, but the index has 1000 entries' in err,
      'file cut at a record under its old index: %d %s %s' % (rc, out, err))

# ---- GZIP member lists
members_path = seek + '.members'
for n in (1, 2, 3, 4, 7):
    write('seek.tfrecord.gz.members', members_text(members))
    check(parts_hold('true member list, %d splits' % n, seek, splits(n, []), whole),
          'true member list, %d splits: every part reads' % n)
forged = {
    'past the end': [(0, 0, 0), (99999999, 3100, 100)],
    'stream offsets shifted by 5': [members[0]] + [(c, s + 5, r) for c, s, r in members[1:]],
    'record numbers shifted by 1': members[:4] + [(c, s, r + 1) for c, s, r in members[4:]],
    'a compressed offset of the next member': members[:2] + [(members[3][0],) + members[2][1:]]
    + members[4:],
    'a member in the middle of another': members[:5] + [(members[5][0] + 7,) + members[5][1:]]
    + members[6:],
    'another file\'s list': [(0, 0, 0), (500, 2000, 110), (1500, 5000, 260)],
    'stream offset inside a record': members[:3] + [(members[3][0], members[3][1] - 3,
                                                     members[3][2])] + members[4:],
}
for name, ms in forged.items():
    write('seek.tfrecord.gz.members', members_text(ms))
    for n in (1, 2, 3, 5):
        parts_hold('member list with %s, %d splits' % (name, n), seek, splits(n, []), whole,
                   must_fail=n > 1 or name == 'past the end', note=members_path)
    rc, out, err = run('count', '-j', '2', seek)
    check(rc == 2 and members_path in err, 'member list with %s, count -j 2: %d %s %s'
          % (name, rc, out, err))
    rc, out, err = run('verify', '--split=0/2', seek)
    rc1, out1, err1 = run('verify', '--split=1/2', seek)
    check(rc == 2 or rc1 == 2, 'member list with %s, verify --split: %d %d' % (name, rc, rc1))
# harmless edits: a dropped line only makes a coarser split
for name, ms in {'line 4 dropped': members[:3] + members[4:],
                 'all but the first dropped': members[:1]}.items():
    write('seek.tfrecord.gz.members', members_text(ms))
    for n in (2, 3, 5):
        check(parts_hold('member list with %s, %d splits' % (name, n), seek, splits(n, []),
                         whole), 'member list with %s, %d splits: every part reads' % (name, n))
write('seek.tfrecord.gz.members', members_text(members[:3] + members[2:]))
rc, out, err = run('count', '--split=0/2', seek)
check(rc == 2 and 'members must be in file order' in err, 'a line twice: %d %s' % (rc, err))
os.remove(members_path)

# ---- --split=I/N at the 64-bit extremes: split I owns the records whose
# header starts in [floor(size*I/N), floor(size*(I+1)/N))
mnist = os.path.join(corpus, 'tfx__mnist.tfrecord')
with open(mnist, 'rb') as f:
    mdata = f.read()
mstarts, at = [], 0
while at < len(mdata):
    mstarts.append(at)
    at += int.from_bytes(mdata[at:at + 8], 'little') + 16
size = len(mdata)
cases = [(541365752693927, 562949953421312), (2**63, 2**64 - 1), (2**64 - 2, 2**64 - 1),
         (0, 2**64 - 1), (12345678901234567, 18446744073709551557), (1, 2), (3, 3203000)]
for i, n in cases:
    lo, hi = size * i // n, size * (i + 1) // n
    want = sum(1 for s in mstarts if lo <= s < hi)
    rc, out, err = run('count', '--split=%d/%d' % (i, n), mnist)
    check(rc == 0 and out.split()[0] == str(want),
          '--split=%d/%d: [%d, %d) holds %d records; count says %s %s' % (i, n, lo, hi, want,
                                                                          out.strip(), err))
rc, out, err = run('cat', '--json', '--split=541365752693927/562949953421312', mnist)
check(rc == 0 and out == '', 'cat --json of an empty split at the extremes: %d %r' % (rc, out[:80]))

# ---- the checksum sync never skips a record silently (item 5): damage at
# the first record of a split (which that split's sync passes over), and
# elsewhere; and records that hold TFRecord streams (false starts)
base = b''.join(frames)
size = len(base)
for n in (2, 3, 5):
    for at_boundary in (True, False):
        for kind, where in (('a data byte', 14), ('a length byte', 2), ('a length CRC byte', 9)):
            for k in range(1, n):
                b = size * k // n
                i = next(j for j, o in enumerate(offsets) if o >= b)
                if not at_boundary:
                    i = max(0, i - 3)
                data = bytearray(base)
                data[offsets[i] + where] ^= 0x40
                dmg = write('dmg.tfrecord', bytes(data))
                seq_rc, seq_out, _ = run('cat', dmg)
                parts_hold('%s of record %d damaged, %d splits by checksum' % (kind, i, n), dmg,
                           splits(n, ['--sync=checksum']), cat_lines(seq_out),
                           must_fail=True)
inner = b''.join(framing.frame(example(i, 3)) for i in range(40))
nested_frames = [framing.frame(ld(1, ld(1, ld(1, b'n') + ld(2, ld(1, ld(1, inner))))))
                 if i % 3 else framing.frame(example(i, 9)) for i in range(300)]
nested = write('nested.tfrecord', b''.join(nested_frames))
rc, out, err = run('cat', nested)
nested_recs = cat_lines(out)
check(rc == 0 and len(nested_recs) == 300, 'cat of the nested file: %d %s' % (rc, err[-200:]))
for n in range(2, 12):
    parts_hold('records holding TFRecord streams, %d splits by checksum' % n, nested,
               splits(n, ['--sync=checksum']), nested_recs)

# ---- messages (item 9): an index that is a directory, a device or a FIFO
# (no wait for a writer); -j and one thread alike for unreadable inputs
os.makedirs(path('dir'), exist_ok=True)
fifo = path('fifo')
if not os.path.exists(fifo):
    os.mkfifo(fifo)
for idx, words in ((path('dir'), 'is a directory'), ('/dev/zero', 'is not a regular file'),
                   (fifo, 'is not a regular file')):
    try:
        p = subprocess.run([featc, 'count', '--records=0:1', '--index=' + idx, big],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    except subprocess.TimeoutExpired:
        check(False, '--index=%s: still waiting after 20 s' % idx)
        continue
    err = p.stderr.decode()
    check(p.returncode == 2 and 'index %s: %s' % (idx, words) in err,
          '--index=%s: %d %s' % (idx, p.returncode, err))
for cmd in (['count'], ['verify'], ['stats']):
    operands = [big, path('dir'), path('nofile'), big]
    one = subprocess.run([featc] + cmd + operands, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    two = subprocess.run([featc] + cmd + ['-j', '2'] + operands, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    check(one.returncode == two.returncode == 2 and one.stdout == two.stdout and
          one.stderr == two.stderr and b'is a directory' in one.stdout + one.stderr and
          b'cannot open: No such file or directory' in one.stdout + one.stderr,
          '%s -j 2 differs from one thread on unreadable inputs: %r %r / %r %r'
          % (cmd[0], one.stdout[-200:], one.stderr[-200:], two.stdout[-200:], two.stderr[-200:]))
p = subprocess.run([featc, 'stats', '-j', '2', '-'], stdin=subprocess.DEVNULL,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
check(p.returncode == 2 and b'standard input is read in order' in p.stderr,
      'stats -j 2 -: %d %r' % (p.returncode, p.stderr))

sys.exit(finish("trust"))
