#!/bin/sh
# featc breaking's goldens: for each NAME.old.feat beside NAME.new.feat,
# `featc breaking NAME.old.feat NAME.new.feat` must print NAME.expected on
# stderr, nothing on stdout, and exit 1 (no-change: print nothing, exit 0).
# Then --rules, --list-rules and specs at a git revision (git:REV:PATH).
#   sh tests/breaking/run.sh FEATC          compare
#   sh tests/breaking/run.sh FEATC update   rewrite the .expected files for review
featc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mode=${2:-compare}
cd "$(dirname "$0")" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for old in *.old.feat; do
    name=${old%.old.feat}
    out=$("$featc" breaking "$old" "$name.new.feat" 2>&1 >/dev/null)
    rc=$?
    if [ "$mode" = update ]; then
        printf '%s\n' "$out" > "$name.expected"
        continue
    fi
    want=1
    [ "$name" = no-change ] && want=0
    if [ $rc -ne $want ]; then
        bad "$name: exit status $rc, expected $want"
    elif [ "$(printf '%s\n' "$out")" != "$(cat "$name.expected" 2>/dev/null)" ]; then
        bad "$name: output differs from $name.expected:"
        printf '%s\n' "$out" | diff "$name.expected" - | head -20
    elif [ "$name" != no-change ] && ! printf '%s\n' "$out" | grep -q "\[$name\]\$"; then
        bad "$name: no finding of rule $name"
    else
        ok
    fi
done
[ "$mode" = update ] && { echo "breaking: goldens rewritten; review with git diff tests/breaking"; exit 0; }

# every rule has its golden, and --list-rules names each one
rules=$("$featc" breaking --list-rules | cut -d' ' -f1)
n=0
for r in $rules; do
    n=$((n + 1))
    [ -f "$r.old.feat" ] || bad "rule $r has no golden"
done
[ "$n" -ge 15 ] && ok || bad "--list-rules names $n rules"
# --rules keeps the rules named, and refuses a name it does not know
out=$("$featc" breaking --rules=type-changed,moved bound-lowered.old.feat bound-lowered.new.feat 2>&1)
[ $? -eq 0 ] && [ -z "$out" ] && ok || bad "--rules=type-changed,moved on bound-lowered: $out"
out=$("$featc" breaking --rules=bound-lowered bound-lowered.old.feat bound-lowered.new.feat 2>&1)
[ $? -eq 1 ] && ok || bad "--rules=bound-lowered on bound-lowered passed"
out=$("$featc" breaking --rules=no-such-rule type-changed.old.feat type-changed.new.feat 2>&1)
[ $? -eq 1 ] && printf '%s' "$out" | grep -q "no rule named 'no-such-rule'" && ok ||
    bad "an unknown rule: $out"
out=$("$featc" breaking type-changed.old.feat 2>&1)
[ $? -eq 64 ] && ok || bad "one spec only: not a usage error"
# a spec at a revision: the old one committed, the new one in the work tree
tmp=$(mktemp -d "${TMPDIR:-/tmp}/featc-breaking.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp type-changed.old.feat "$tmp/spec.feat"
(cd "$tmp" && git init -q && git add spec.feat &&
    git -c user.name=t -c user.email=t@t commit -qm old) || bad "git repository"
cp type-changed.new.feat "$tmp/spec.feat"
out=$(cd "$tmp" && "$featc" breaking git:HEAD:spec.feat spec.feat 2>&1)
rc=$?
[ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "^git:HEAD:spec.feat:4:7: note: in the old spec" &&
    printf '%s\n' "$out" | grep -q "^spec.feat:4:7: error: .*\[type-changed\]$" && ok ||
    bad "git:HEAD:spec.feat against the work tree (exit $rc): $out"
out=$(cd "$tmp" && "$featc" breaking git:HEAD:spec.feat git:HEAD:spec.feat 2>&1)
[ $? -eq 0 ] && [ -z "$out" ] && ok || bad "a revision against itself: $out"
out=$(cd "$tmp" && "$featc" breaking git:no-such-rev:spec.feat spec.feat 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "git show no-such-rev:spec.feat failed" && ok ||
    bad "a revision that does not exist: $out"
# an option-shaped revision is data, never an option of git's: with a folder
# named ':' in the repository, git show --output=:/../victim.txt would write
# ../victim.txt (git resolves the object ':/../victim.txt' against it)
mkdir -p "$tmp/repo/:" && cp type-changed.old.feat "$tmp/repo/spec.feat" &&
    (cd "$tmp/repo" && git init -q && git add spec.feat &&
        git -c user.name=t -c user.email=t@t commit -qm old) || bad "git repository with ':'"
echo kept > "$tmp/victim.txt"
out=$(cd "$tmp/repo" && "$featc" breaking 'git:--output=:/../../victim.txt' spec.feat 2>&1)
rc=$?
[ $rc -eq 64 ] && [ "$(cat "$tmp/victim.txt")" = kept ] &&
    printf '%s' "$out" | grep -q "a revision may not start with '-'" && ok ||
    bad "git:--output=...: exit $rc, victim.txt now '$(head -c 60 "$tmp/victim.txt")': $out"
echo "breaking: $pass passed, $fail failed"
[ $fail -eq 0 ]
