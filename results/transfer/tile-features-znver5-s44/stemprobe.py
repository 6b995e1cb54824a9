import sys
import tensortune.models.corpus as mc
orig = mc.corpus_ops
mc.corpus_ops = lambda: [x for x in orig() if x[0] == "corpus:conv3x195-48k11s4"]
from tensortune.cli.main import main
sys.exit(main(["corpus", "build", "--db", "probe.db", "--trials", sys.argv[1], "--out", sys.argv[2], "--no-progress"]))
