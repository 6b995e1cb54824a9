# Shared by the benchmark run scripts under results/transfer/ (from stop 65 on; stops 63-64's scripts carry their
# own copy). Source it after setting P (python), W (work directory for databases and libraries) and HERE (the
# results directory the reports are copied to).
#   one MODEL TRIALS SEED with|without: tune from an empty database ("with": the shipped corpus + within-run
#   transfer; "without": --no-transfer), then build; prints start/end times, the tuning summary, the machine's
#   sgemm and the transfer line, and copies the reports to $HERE/models/.
#   one MODEL TRIALS SEED with FILE TAG: "with" from the corpus FILE (--corpus FILE), named MODEL-TRIALS-with-TAGcorpus-sSEED.
one() {
  local N=$1-$2-$4-s$3 X=""
  [ "$4" = without ] && X=--no-transfer
  [ $# -ge 6 ] && N=$1-$2-$4-$6corpus-s$3 X="--corpus $5"
  mkdir -p "$W/models" "$HERE/models"
  ( cd "$W/models" && rm -f "$N".db* "lib-$N".*
    echo "== tune $N start $(date -u +%T)"
    $P -m tensortune.cli.main tune --model "$1" --trials "$2" $X --seed "$3" --db "$N.db" --out "$N.json" --no-progress > "$N.txt" 2>&1
    echo "   rc $?  end $(date -u +%T)"
    grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' "$N.txt"; grep -o "machine sgemm.*" "$N.txt"; grep "transfer:" "$N.txt" | head -3
    $P -m tensortune.cli.main build --model "$1" $X --seed "$3" --db "$N.db" --out "lib-$N.so" > "lib-$N.txt" 2>&1
    echo "   build rc $?  end $(date -u +%T)"
    cp "$N.json" "$N.txt" "lib-$N.json" "lib-$N.txt" "$HERE/models/" )
}

#   sg: the machine's PyTorch sgemm now (2048^3, 2 threads, GFLOP/s) and the time, a line between a script's steps
#   (from stop 109; stops 91-108's scripts define their own).
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
