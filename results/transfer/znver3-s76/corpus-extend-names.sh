#!/bin/bash
# Stop 76, after corpus-extend.sh: `Corpus.load` then left each record's task name empty (the file keeps it once,
# on its task), so the imported records named no task and the build wrote a corpus of 49 nameless tasks. Fixed in
# `Corpus.load` (with the fix, corpus-extend.sh's import carries the names). This one-off gives the database's
# nameless records their task's name from stop 70's file, then reruns the build on it: it resumes, measures
# nothing (the database's record count is printed before and after) and writes the file again.
set -u
P=/work/main/.venv/bin/python
W=/work/runs/s76/corpus
export TVM_NUM_THREADS=2
$P - <<'PY'
import sqlite3
from tensortune.transfer.corpus import Corpus
old = Corpus.load("/work/runs/s76/corpus/shipped-s70.json.gz")
db = sqlite3.connect("/work/runs/s76/corpus/corpus.db")
print("records before", db.execute("select count(*) from records").fetchone()[0])
n = 0
for t in old.tasks_:
    n += db.execute("update records set task_name=? where task_key=? and target_key=? and task_name=''",
                    (t.name, t.task_key, t.target_key)).rowcount
db.commit()
print("named", n, "records; still nameless:", db.execute("select count(*) from records where task_name=''").fetchone()[0])
PY
$P -m tensortune.cli.main corpus build --db $W/corpus.db --out $W/corpus-llvm-znver3.json.gz --no-progress
echo "   rc $?"
$P -c "import sqlite3; print('records after', sqlite3.connect('$W/corpus.db').execute('select count(*) from records').fetchone()[0])"
