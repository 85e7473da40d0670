"""A file that shrinks while featc reads it (issue 43, item 1): log rotation
and writers that re-create a file do this.  A command reads a regular file
whole by read(2) up to the size it had when opened (a read that ends sooner
is the error), and parts of files through a memory map, whose pages past
the file's new end raise SIGBUS; featc must end with exit 2 and "the file changed size during the
read" with the offset, never by a signal, and never exit 0 with a count
that is not the whole file's.

Each command is started on a fresh copy of a 2,000,000-record file; once
/proc/PID/maps shows the copy mapped, or /proc/PID/fdinfo its descriptor
read past 4 KB (the read is under way), the copy is
cut to about a third, at a page boundary and inside a page (a sync point,
not a timing: the read has begun and has some 20 MB to go).  A run that finished first must have read every record; at
least one run of each command must have met the cut (up to 6 tries).  Under
qemu-user (the cross suites) a mapped read is not cut (see emulated()): it
must read every record, and the cut is listed as not run.

usage: shrink.py FEATC TMPDIR, or shrink.py --python MODULE_DIR MODULE
TMPDIR for the Python module's read at threads 1 and 2 (MODULE a spec all of
whose features have defaults: tutorial); prints "shrink: N passed, M
failed" (or "shrink-python: ...").
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'oracle'))
import framing  # noqa: E402
from tally import check, finish  # noqa: E402

python = sys.argv[1] == '--python'
if python:
    pydir, pymod, tmp = sys.argv[2:5]
    featc = None
else:
    featc, tmp = sys.argv[1:3]
N = 2000000


def ld(field, data):
    return framing.varint(field << 3 | 2) + framing.varint(len(data)) + data


master = os.path.join(tmp, 'master.tfrecord')
# Example {"x": int64 [7]}, 26 bytes a record with its framing
with open(master, 'wb') as f:
    f.write(framing.frame(ld(1, ld(1, ld(1, b'x') + ld(2, ld(3, ld(1, b'\x07')))))) * N)
size = os.path.getsize(master)


def under_way(pid, path):
    """'map' or 'read' when the read is under way: the file mapped (a part,
    the pool), or open and read past its first 4 KB (a whole file is read(2)
    in order, and the descriptor's offset says how far; its size was taken
    before; the first 12 bytes tell the compression at open, which a command
    may do to sniff a file before the read that counts); else None."""
    path = os.path.realpath(path)  # (as /proc shows it: make test passes a relative TMPDIR)
    try:
        with open('/proc/%d/maps' % pid) as m:
            if path in m.read():
                return 'map'
        for fd in os.listdir('/proc/%d/fd' % pid):
            if os.readlink('/proc/%d/fd/%s' % (pid, fd)) == path:
                with open('/proc/%d/fdinfo/%s' % (pid, fd)) as info:
                    if int(info.readline().split()[1]) > 4096:
                        return 'read'
    except (OSError, ValueError, IndexError):
        pass
    return None


def emulated(pid):
    """The program runs under qemu-user (make test's i386, s390x and riscv64
    suites on a kernel without their native support).  There a SIGBUS in a
    map, which the read guard turns into the changed-size error, is raised
    again and again at the same instruction (qemu 7.2: count --range under
    qemu-i386 spun for 40 minutes), so a mapped read is not cut there: it
    runs whole and must count every record; the cut is named as not run."""
    try:
        return 'qemu' in os.path.basename(os.readlink('/proc/%d/exe' % pid))
    except OSError:
        return False


not_run = []


def attempt(argv, path, changed_text, cut_at, source=master):
    """One run: (met the cut, returncode, stdout, stderr)."""
    shutil.copyfile(source, path)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120  # (a loaded machine starts Python slowly)
    cut = False
    spared = False
    while p.poll() is None and time.time() < deadline:
        how = under_way(p.pid, path)
        if how == 'map' and emulated(p.pid):
            spared = True
            break
        if how is not None:
            os.truncate(path, cut_at)
            cut = True
            break
        time.sleep(0.0002)  # (a whole file is read in some 20-60 ms)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()  # (a hang is a failure, not a process left running)
        out, err = p.communicate()
        check(False, '%s: still running after 120 s (killed)' % ' '.join(argv))
    out = out.decode('utf-8', 'replace')
    err = err.decode('utf-8', 'replace')
    if spared:
        return 'spared', p.returncode, out, err
    return cut and changed_text in out + err, p.returncode, out, err


def command(name, argv_of, whole_ok, source=master):
    """argv_of(path) -> argv; whole_ok(out) -> the output of a whole read.
    Cut at a page boundary (the pages after it fault) and inside a page (its
    tail reads as zeros, no fault)."""
    third = os.path.getsize(source) // 3 // 65536 * 65536
    cut(name + ', cut at a page boundary', argv_of, whole_ok, third, source)
    cut(name + ', cut inside a page', argv_of, whole_ok, third + 1001, source)


def cut(name, argv_of, whole_ok, cut_at, source=master):
    path = os.path.join(tmp, 'shrinking.tfrecord')
    met = False
    for _ in range(6):
        hit, rc, out, err = attempt(argv_of(path), path, 'the file changed size during the read',
                                    cut_at, source)
        if hit == 'spared':
            check(rc == 0 and whole_ok(out), '%s: uncut under qemu-user, exit %d: %r'
                  % (name, rc, (out + err)[-300:]))
            not_run.append(name)
            return
        check(rc >= 0, '%s: killed by signal %s: %s' % (name, -rc if rc < 0 else '',
                                                        err[-300:]))
        if rc < 0:
            return
        if rc == 0:
            check(whole_ok(out), '%s: exit 0 with a partial result: %r' % (name, out[-200:]))
        else:
            said = out[-2000:] + err  # verify reports on standard output
            check(rc == 2 and 'the file changed size during the read' in said and
                  'were gone when the read reached them' in said,
                  '%s: exit %d without the message: %r' % (name, rc, err[-300:]))
        if hit:
            met = True
            break
    check(met, '%s: no run met the cut' % name)


def counted(out):
    return out.split()[:1] == [str(N)]


if not python:
    command('count', lambda p: [featc, 'count', p], counted)
    command('count -j 2', lambda p: [featc, 'count', '-j', '2', p], counted)
    command('cat --json', lambda p: [featc, 'cat', '--json', p],
            lambda out: out.count('\n') == N)
    command('verify', lambda p: [featc, 'verify', p], lambda out: str(N) in out)
    command('index', lambda p: [featc, 'index', '-o', p + '.idx', p], lambda out: True)
    command('stats', lambda p: [featc, 'stats', p], lambda out: str(N) in out)
    # Arrow back to TFRecords: the IPC file is the input that shrinks
    spec = os.path.join(tmp, 'x.feat')
    with open(spec, 'w') as f:
        f.write('package x;\nexample r {\n  x : int64;\n}\n')
    arrow = os.path.join(tmp, 'master.arrow')
    subprocess.run([featc, 'convert', master, '--spec', spec, '-o', arrow], check=True)
    back = os.path.join(tmp, 'back.tfrecord')
    command('convert back', lambda p: [featc, 'convert', p, '--spec', spec, '-o', back],
            lambda out: subprocess.run([featc, 'count', back], capture_output=True,
                                       text=True).stdout.split()[:1] == [str(N)],
            source=arrow)
    check(not any(f.startswith('back.tfrecord.') for f in os.listdir(tmp)),
          'convert back left a temporary file: %r' % os.listdir(tmp))
    # the index of a cut file was not written
    path = os.path.join(tmp, 'shrinking.tfrecord')
    check(not os.path.exists(path + '.idx') or
          sum(1 for _ in open(path + '.idx')) == N, 'index wrote a partial index')
else:
    for threads in (1, 2):
        code = ('import sys\n'
                'sys.path.insert(0, sys.argv[2])\n'
                'import %s as m\n'
                'n = 0\n'
                'try:\n'
                '    for b in m.read(sys.argv[1], batch_size=4096, threads=%d):\n'
                '        n += len(next(iter(b.values())))\n'
                'except Exception as e:\n'
                '    print(type(e).__name__, e, file=sys.stderr)\n'
                '    sys.exit(2)\n'
                'print(n)\n' % (pymod, threads))
        command('python threads=%d' % threads,
                lambda p, c=code: [sys.executable, '-c', c, p, pydir], counted)

for f in os.listdir(tmp):
    os.remove(os.path.join(tmp, f))
if not_run:
    print('shrink: not run under qemu-user (a SIGBUS in a map is raised again there): %d cuts '
          'of mapped reads: %s' % (len(not_run), '; '.join(not_run)))
sys.exit(finish('shrink-python' if python else 'shrink'))
