#!/usr/bin/env python3
"""Mutant schemata driver: one build of a test binary for every mutant of some files.

Run from the repository root (docs/testing/mutants.md, "Mutant schemata"). RUN is a directory
that holds one run's files: mutants.json, unviable.json, the copied test binary, results.

  schemata.py list RUN FILE...               the mutants cargo-mutants lists for the files, numbered
  schemata.py build RUN lib|integration      write them behind their switches, build the test
                                             binary (dropping mutants that do not compile), copy it
                                             to RUN/BINARY, restore the sources
  schemata.py run RUN BINARY all|IDS RESULTS [FILTER...]
                                             run RUN/BINARY once per mutant, append to RUN/RESULTS
  schemata.py summary RUN RESULTS...         counts per file, the later results winning
  schemata.py restore RUN                    put the mutated sources back (after an interruption)
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REWRITER = os.path.join(HERE, 'target', 'debug', 'mutant-schemata')
SWITCH_VARIABLE = 'KVLINT_MUTANT'
SWITCH = '''
#[doc(hidden)]
#[allow(dead_code, unreachable_pub, clippy::pedantic)]
pub fn __mutant_on(n: u32) -> bool {
    static ACTIVE: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ACTIVE.get_or_init(|| {
        std::env::var("%s").ok().and_then(|v| v.parse().ok()).unwrap_or(0)
    }) == n
}
''' % SWITCH_VARIABLE


def read_json(run, name, default=None):
    path = os.path.join(run, name)
    if not os.path.exists(path):
        return default
    with open(path) as fh:
        return json.load(fh)


def write_json(run, name, value):
    with open(os.path.join(run, name), 'w') as fh:
        json.dump(value, fh, indent=1)


def committed(path):
    return subprocess.run(['git', 'show', 'HEAD:' + path], check=True, capture_output=True,
                          text=True).stdout


def list_mutants(run, files):
    os.makedirs(run, exist_ok=True)
    mutants = []
    for path in files:
        listed = subprocess.run(['cargo', 'mutants', '--no-config', '--list', '--json', '--file', path],
                                check=True, capture_output=True, text=True).stdout
        for mutant in json.loads(listed):
            mutant.pop('diff', None)
            mutant['id'] = len(mutants) + 1
            mutants.append(mutant)
    write_json(run, 'mutants.json', mutants)
    write_json(run, 'unviable.json', {})
    print(len(mutants), 'mutants')


def write_schemata(run):
    """Rewrites every file from its committed text; returns each file's placement map."""
    subprocess.run(['cargo', 'build', '--offline', '--quiet', '--manifest-path',
                    os.path.join(HERE, 'Cargo.toml')], check=True)
    unviable = read_json(run, 'unviable.json', {})
    mutants = read_json(run, 'mutants.json')
    maps = {}
    for path in sorted({m['file'] for m in mutants}):
        viable = [m for m in mutants if m['file'] == path and str(m['id']) not in unviable]
        with open(os.path.join(run, 'source.rs'), 'w') as fh:
            fh.write(committed(path))
        write_json(run, 'file-mutants.json', viable)
        subprocess.run([REWRITER, os.path.join(run, 'source.rs'), os.path.join(run, 'file-mutants.json'),
                        path, os.path.join(run, 'map.json')], check=True)
        maps[path] = read_json(run, 'map.json')
        for entry in maps[path]:
            if entry['placed'] != 'placed':
                unviable[str(entry['id'])] = entry['placed']
    with open('src/lib.rs', 'w') as fh:
        fh.write(committed('src/lib.rs') + SWITCH)
    write_json(run, 'unviable.json', unviable)
    return maps


def restore(run):
    files = sorted({m['file'] for m in read_json(run, 'mutants.json')}) + ['src/lib.rs']
    subprocess.run(['git', 'checkout', '--'] + files, check=True)


def mutant_of_error(message, maps):
    """The mutant whose mutated code holds the error's first span in a rewritten file."""
    for span in message['spans']:
        regions = [(entry['region'][1] - entry['region'][0], entry['id'])
                   for entry in maps.get(span['file_name'], [])
                   if 'region' in entry and entry['region'][0] <= span['byte_start'] < entry['region'][1]]
        if regions:
            return min(regions)[1]
    return None


def compile_once(kind, maps):
    """Builds the test binary; returns (binaries, {id: reason} of failing mutants, other errors)."""
    command = ['nice', '-n', '10', 'cargo', 'test', '--locked', '--no-run', '--message-format=json']
    command += ['--lib'] if kind == 'lib' else ['--test', kind]
    build = subprocess.run(command, capture_output=True, text=True)
    binaries, failing, stray = [], {}, []
    for line in build.stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get('reason') == 'compiler-artifact' and record.get('executable') and record['profile'].get('test'):
            binaries.append(record['executable'])
        if record.get('reason') != 'compiler-message' or record['message']['level'] != 'error':
            continue
        message = record['message']
        mutant = mutant_of_error(message, maps)
        if mutant is None:
            stray.append(message['rendered'])
        else:
            const = (message.get('code') or {}).get('code') == 'E0015'
            failing[str(mutant)] = ('in a const: ' if const else 'unviable: ') + message['message']
    if build.returncode != 0 and not failing and not stray:
        stray.append(build.stderr[-3000:])
    return binaries, failing, stray


def build(run, kind):
    try:
        for round_number in range(30):
            binaries, failing, stray = compile_once(kind, write_schemata(run))
            if not failing:
                if stray:
                    sys.exit('errors outside any mutant:\n' + '\n'.join(stray[:5]))
                for binary in binaries:
                    shutil.copy(binary, os.path.join(run, kind + '-bin'))
                print('built', os.path.join(run, kind + '-bin'), '; unviable:', len(read_json(run, 'unviable.json')))
                return
            unviable = read_json(run, 'unviable.json')
            unviable.update(failing)
            write_json(run, 'unviable.json', unviable)
            print('round', round_number, 'unviable', sorted(failing, key=int))
        sys.exit('still failing after 30 rounds')
    finally:
        restore(run)


def run_mutants(run, binary, ids, results, filters):
    mutants = {m['id']: m for m in read_json(run, 'mutants.json')}
    unviable = read_json(run, 'unviable.json', {})
    if ids == 'all':
        chosen = [i for i in sorted(mutants) if str(i) not in unviable]
    else:
        with open(ids) as fh:
            chosen = [int(word) for word in fh.read().split()]
    results = os.path.join(run, results)
    done = set()
    if os.path.exists(results):
        with open(results) as fh:
            done = {json.loads(line)['id'] for line in fh}
    timeout = os.environ.get('MUTANT_TIMEOUT', '180')
    # The memory bound makes a mutant that allocates without end abort instead of taking the machine.
    command = 'ulimit -d 4000000; exec nice -n 10 timeout %s %s --quiet --test-threads 2 %s' % (
        timeout, os.path.join(run, binary), ' '.join(filters))
    for mutant in (i for i in chosen if i not in done):
        started = time.time()
        test = subprocess.run(['bash', '-c', command], capture_output=True, text=True,
                              env=dict(os.environ, **{SWITCH_VARIABLE: str(mutant), 'INSTA_UPDATE': 'no'}))
        status = {0: 'missed', 124: 'timeout'}.get(test.returncode, 'caught')
        failed = [line.split()[0] for line in test.stdout.splitlines() if line.startswith('    ') and '::' in line]
        record = dict(id=mutant, name=mutants[mutant]['name'], status=status,
                      secs=round(time.time() - started, 1), failed=failed[:8])
        with open(results, 'a') as fh:
            fh.write(json.dumps(record) + '\n')
        print(status, record['secs'], record['name'], flush=True)


def summary(run, result_files):
    unviable = read_json(run, 'unviable.json', {})
    status = {}
    for name in result_files:
        with open(os.path.join(run, name)) as fh:
            status.update({r['id']: r['status'] for r in map(json.loads, fh)})
    counts = collections.defaultdict(collections.Counter)
    for mutant in read_json(run, 'mutants.json'):
        reason = unviable.get(str(mutant['id']))
        outcome = 'unviable' if reason and not reason.startswith('in a const') else status.get(mutant['id'], 'not run')
        counts[mutant['file']][outcome] += 1
        counts[mutant['file']]['total'] += 1
    print('| file | mutants | unviable | caught | missed | timeout | not run |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for path in sorted(counts):
        c = counts[path]
        print(f"| {path} | {c['total']} | {c['unviable']} | {c['caught']} | {c['missed']} | {c['timeout']} | {c['not run']} |")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    command, run, rest = argv[1], argv[2], argv[3:]
    if command == 'list':
        list_mutants(run, rest)
    elif command == 'build':
        build(run, rest[0] if rest else 'lib')
    elif command == 'run':
        run_mutants(run, rest[0], rest[1], rest[2], rest[3:])
    elif command == 'summary':
        summary(run, rest)
    elif command == 'restore':
        restore(run)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
