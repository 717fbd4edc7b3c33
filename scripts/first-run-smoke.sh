#!/usr/bin/env bash
# The README's first run, from a clone in a private folder (mode 700, as `mktemp -d` makes it):
# npm ci, `npm run dev` in the background, wait for /readyz, one request with the printed token,
# then Ctrl-C (SIGINT to the launcher's process group) and a clean exit with nothing left running;
# a second start must find the same demo organization (the data was kept). Used by .ci/run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && git rev-parse --show-toplevel)"
api="http://127.0.0.1:${PORT:-3000}"
ready_timeout=${SMOKE_READY_TIMEOUT:-240} # seconds for a start (the first one runs initdb and the migrations)
stop_timeout=${SMOKE_STOP_TIMEOUT:-60}     # seconds for Ctrl-C to stop everything

work=$(mktemp -d)
app="$work/app"
log="$work/dev.log"
dev_pid=
cluster=

fail() {
  echo "first-run smoke FAILED: $*" >&2
  if [ -f "$log" ]; then echo "--- last lines of npm run dev:" >&2; tail -n 60 "$log" >&2; fi
  exit 1
}

# Processes of this clone: those whose working folder is inside it (the launcher's children run
# there), plus the cluster's postmaster (it runs in its data folder).
leftovers() {
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    case "$cwd/" in "$app/"*) echo "${p#/proc/}" ;; esac
  done
  if [ -n "$cluster" ] && [ -f "$cluster/postmaster.pid" ]; then head -n 1 "$cluster/postmaster.pid"; fi
}

cleanup() {
  local pids
  if [ -n "$dev_pid" ] && kill -0 "$dev_pid" 2>/dev/null; then kill -KILL -- "-$dev_pid" 2>/dev/null || true; fi
  pids=$(leftovers | sort -u)
  if [ -n "$pids" ]; then kill -KILL $pids 2>/dev/null || true; fi
  # As root the cluster may live outside the clone (/var/lib/outreach-signal/postgres/<hash>/data).
  case "$cluster" in /var/lib/outreach-signal/postgres/*/data) rm -rf "$(dirname "$cluster")" ;; esac
  rm -rf "$work"
}
trap cleanup EXIT

# One `npm run dev` in its own process group; waits for /readyz; sets $token and $org.
start_dev() {
  : >"$log"
  (cd "$app" && exec setsid npm run dev) >"$log" 2>&1 </dev/null &
  dev_pid=$!
  [ "$(ps -o pgid= -p "$dev_pid" | tr -d ' ')" = "$dev_pid" ] || fail "npm run dev did not get a process group of its own"
  local deadline=$((SECONDS + ready_timeout))
  until curl -fsS -o /dev/null "$api/readyz" 2>/dev/null && grep -q 'Bearer token for the demo owner' "$log" && grep -q '"worker started"' "$log"; do
    kill -0 "$dev_pid" 2>/dev/null || fail "npm run dev exited before the API was ready"
    [ $SECONDS -lt $deadline ] || fail "the API did not answer $api/readyz within ${ready_timeout}s"
    sleep 1
  done
  token=$(grep -A1 'Bearer token for the demo owner' "$log" | grep -oE 'eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+' | head -n 1)
  org=$(grep -oE 'Demo organization +[0-9a-f-]{36}' "$log" | grep -oE '[0-9a-f-]{36}')
  cluster=$(grep -oE 'embedded PostgreSQL started \(data in [^)]+\)' "$log" | sed -E 's/.*data in ([^)]+)\)/\1/')
  [ -n "$token" ] || fail "npm run dev printed no token"
  [ -n "$org" ] || fail "npm run dev printed no demo organization"
  [ -n "$cluster" ] || fail "npm run dev did not say where the embedded PostgreSQL keeps its data"
}

# Ctrl-C as a terminal sends it: SIGINT to the launcher's process group. Clean means: in time, npm's
# status 0 or 130 (npm reports every Ctrl-C as 130, whatever its script returns), the worker and the
# API exited 0, the launcher's cleanups all ran, and nothing of the stack is left running.
stop_dev() {
  local deadline=$((SECONDS + stop_timeout)) status=0
  kill -INT -- "-$dev_pid"
  while kill -0 "$dev_pid" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "npm run dev did not stop within ${stop_timeout}s of Ctrl-C"
    sleep 1
  done
  wait "$dev_pid" || status=$?
  dev_pid=
  [ "$status" -eq 0 ] || [ "$status" -eq 130 ] || fail "npm run dev exited with status $status after Ctrl-C"
  grep -q '^\[dev\] stopped' "$log" || fail "the launcher did not report a complete stop"
  grep -q '^\[dev\] worker exited (0)' "$log" || fail "the worker did not exit cleanly"
  grep -q '^\[dev\] api exited (0)' "$log" || fail "the API did not exit cleanly"
  grep -q '^\[dev\] cleanup:' "$log" && fail "a cleanup step of the launcher failed"
  local left
  left=$(leftovers | sort -u)
  [ -z "$left" ] || fail "processes still running after Ctrl-C: $(ps -o pid=,args= -p ${left//$'\n'/,} 2>/dev/null || echo "$left")"
}

started=$SECONDS
echo "first-run smoke: cloning $(git -C "$repo" rev-parse --short HEAD) into $work (mode $(stat -c %a "$work"))"
git clone -q "$repo" "$app"
(cd "$app" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci failed in the clone"
echo "first-run smoke: npm ci took $((SECONDS - started))s"

curl -s -o /dev/null "$api/readyz" && fail "something already answers on $api; stop it first"
t=$SECONDS
start_dev
echo "first-run smoke: API ready $((SECONDS - t))s after npm run dev (PostgreSQL data in $cluster)"
if [ "$(id -u)" = 0 ] && [ "$cluster" = "$app/.data/postgres" ]; then
  fail "as root the cluster cannot live in the private clone ($cluster)"
fi
code=$(curl -s -o /dev/null -w '%{http_code}' "$api/organizations")
[ "$code" = 401 ] || fail "GET /organizations without a token answered $code, not 401"
body=$(curl -fsS -H "Authorization: Bearer $token" "$api/organizations") || fail "GET /organizations with the printed token failed"
case "$body" in *"$org"*) ;; *) fail "GET /organizations with the printed token does not list the demo organization $org: $body" ;; esac
(cd "$app" && npm run -s token >/dev/null) || fail "npm run token failed"
stop_dev
first_org=$org

t=$SECONDS
start_dev
echo "first-run smoke: second start ready in $((SECONDS - t))s"
[ "$org" = "$first_org" ] || fail "the second start made a new demo organization ($org, was $first_org): data was not kept"
grep -q 'initialising embedded PostgreSQL' "$log" && fail "the second start initialised PostgreSQL again"
stop_dev

echo "first-run smoke: passed in $((SECONDS - started))s"
