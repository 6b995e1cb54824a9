#!/bin/bash
# stop 54: when all.sh reaches VGG-16 1,000 with, stop it there (no time for it this stop), time the VGG-16
# builds interleaved, test the sibling change, and run siblings.sh if the tests pass.
cd /work/runs/s54
while ! grep -q "== vgg16 1000 with" all.log; do sleep 5; done
pkill -f "models-rocketlake-s54/all.sh"; pkill -f "trials 1000 --compare onnxruntime,eager --rounds 15 --db vgg16-1000-with"
sleep 5; pkill -9 -f "vgg16-1000-with" ; sleep 2
echo "stopped all.sh at VGG-16 1,000 with $(date -u +%T)"; pgrep -af tensortune | head
cd models; rm -f vgg16-1000-with.*
export TVM_NUM_THREADS=2
R=/work/main/results/transfer
echo "== vgg16 interleaved start $(date -u +%T)"
/work/main/.venv/bin/python $R/models-znver3-s39/multi.py vgg16 21 200-with=lib-vgg16-200-with.so \
  200-without=lib-vgg16-200-without.so 500-with=lib-vgg16-500-with.so 500-without=lib-vgg16-500-without.so \
  1000-without-s51=/work/runs/s51/models/lib-vgg16-1000-without.so 2>&1 | grep -v "Scope Loaded"
echo "   end $(date -u +%T)"
cd /work/wt-sib
echo "== tests start $(date -u +%T)"
PYTHONPATH=/work/wt-sib/src /work/main/.venv/bin/python -m pytest -x -q -p no:cacheprovider \
  "tests/models/test_models.py::test_sibling_tasks_try_each_others_best_config" \
  "tests/transfer/test_transfer.py::test_sibling_groups_are_tasks_of_one_shape_template_and_space" 2>&1 | tail -15
RC=${PIPESTATUS[0]}
echo "   tests rc $RC end $(date -u +%T)"
[ "$RC" = 0 ] && /work/main/results/transfer/models-rocketlake-s54/siblings.sh > /work/runs/s54/sib.log 2>&1
echo "== chain done $(date -u +%T)"
