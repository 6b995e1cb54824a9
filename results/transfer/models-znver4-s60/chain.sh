#!/bin/bash
# after ResNet-18's timing set, stop the models script before VGG-16 (time) and run the LOO script alone
while ! grep -q "== tune vgg16" models/run.log; do sleep 5; done
kill 3929; pkill -f "tensortune.cli.main tune --model vgg16"; sleep 5
pgrep -af tensortune | grep -v chain.sh
echo "models stopped $(date -u +%T)"
/work/main/results/transfer/loo-znver4-s60/run.sh > /work/main/results/transfer/loo-znver4-s60/run.log 2>&1
echo "loo done $(date -u +%T)"
