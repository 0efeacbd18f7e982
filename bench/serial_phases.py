#!/usr/bin/env python3
"""Where a check's threads wait on one another (issue 14: 1 -> 2 threads).

Reads `perf script` of a system-wide sched recording of one dslint run and
follows each of its threads: running, runnable (waiting for a CPU) or
asleep. For each phase it prints the wall time, the main thread's and the
pool's running time, and the time only one thread had work ("1 has work":
what a second core cannot shorten). Phases are named by the main thread
renaming itself `m:NAME` (prctl PR_SET_NAME; a temporary marker, not in
the code); without markers the whole run is one phase, named after the
first rename, so give the binary one marker at least, or name the
binary's command (its first 15 bytes, as `comm` holds it) as the
argument: then the run is followed from its exec, one phase (`start`).
Usage:

  RAYON_NUM_THREADS=2 perf record -a -e sched:sched_switch,sched:sched_waking,\
    sched:sched_wakeup_new,sched:sched_process_fork,task:task_rename -o X.data \
    -- chrt -f 10 BIN check TREE >/dev/null
  perf script -i X.data | python3 bench/serial_phases.py [COMM]

`chrt -f 10` keeps the shared machine's other builds off the run's CPUs.
A rayon worker spinning before it sleeps counts as having work, so the
serial time is a lower bound.
"""
import re, sys, collections
rx = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s+(.*)$')
ev = []
for line in sys.stdin:
    m = rx.match(line)
    if m:
        comm, tid, cpu, t, e, rest = m.groups(); ev.append((float(t), int(tid), e, rest))
main = None
comm = sys.argv[1][:15] if len(sys.argv) > 1 else None
for t, tid, e, rest in ev:
    if e == 'task:task_rename' and ('newcomm=m:' in rest or (comm and f'newcomm={comm} ' in rest)):
        main = int(re.search(r'(?:^|\s)pid=(\d+)', rest).group(1)); break
tids = {main}
for t, tid, e, rest in ev:
    if e == 'sched:sched_process_fork' and int(re.search(r'(?:^|\s)pid=(\d+)', rest).group(1)) in tids:
        tids.add(int(re.search(r'child_pid=(\d+)', rest).group(1)))
state = {main: 'run'}
phase = 'start'; last = None; order = []
acc = collections.defaultdict(lambda: collections.Counter())
def adv(t):
    global last
    if last is not None and t > last:
        dt = t - last
        a = acc[phase]; a['wall'] += dt
        nwork = sum(1 for s in state.values() if s in ('run', 'R'))
        for k, s in state.items():
            role = 'main' if k == main else 'w'
            a[f'{role}-{s}'] += dt
            if s == 'run' and nwork == 1: a['alone-run'] += dt
        if nwork == 1: a['one-has-work'] += dt
    last = t
for t, tid, e, rest in ev:
    if e == 'task:task_rename' and tid in tids and 'newcomm=m:' in rest:
        adv(t)
        name = re.search(r'newcomm=m:(\S+)', rest).group(1)
        # group repeated chunk markers
        phase = name
        if phase not in order: order.append(phase)
        acc[phase]['n'] += 1
    elif e == 'sched:sched_switch':
        pp = int(re.search(r'prev_pid=(\d+)', rest).group(1)); np_ = int(re.search(r'next_pid=(\d+)', rest).group(1))
        ps = re.search(r'prev_state=(\S+)', rest).group(1)
        if pp in tids or np_ in tids: adv(t)
        if pp in tids: state[pp] = 'R' if ps.startswith('R') else ('X' if ps[0] in 'XZ' else 'S')
        if np_ in tids: state[np_] = 'run'
    elif e in ('sched:sched_waking', 'sched:sched_wakeup_new'):
        p = int(re.search(r'(?:^|\s)pid=(\d+)', rest).group(1))
        if p in tids:
            adv(t)
            if state.get(p) != 'run': state[p] = 'R'
tot = collections.Counter()
print(f"{'phase (from marker)':22} {'n':>3} {'wall':>7} {'main-run':>8} {'w-run':>7} {'w-R':>6} {'w-sleep':>7} {'1 has work':>10} {'alone-run':>9}")
for p in order + [x for x in acc if x not in order]:
    a = acc[p]
    for k in a: tot[k] += a[k]
    ms = lambda k: a.get(k, 0) * 1e3
    print(f"{p:22} {a['n']:3d} {ms('wall'):7.1f} {ms('main-run'):8.1f} {ms('w-run'):7.1f} {ms('w-R'):6.1f} {ms('w-S'):7.1f} {ms('one-has-work'):10.1f} {ms('alone-run'):9.1f}")
ms = lambda k: tot.get(k, 0) * 1e3
print(f"{'TOTAL':22} {'':3} {ms('wall'):7.1f} {ms('main-run'):8.1f} {ms('w-run'):7.1f} {ms('w-R'):6.1f} {ms('w-S'):7.1f} {ms('one-has-work'):10.1f} {ms('alone-run'):9.1f}")
