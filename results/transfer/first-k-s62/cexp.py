# Stop 62: chameleon with transfer, the adaptive plan opening with TT_KB of the model's best-scored candidates
# (tuners.recipes.TRANSFER_KEEP_BEST, set here by a monkeypatch in this process only); first design size TT_K.
import os, runpy, sys
from tensortune.tuners import recipes
recipes.TRANSFER_KEEP_BEST = int(os.environ.get('TT_KB', '0'))
sys.argv = [os.path.join(os.path.dirname(__file__), 'exp.py')] + sys.argv[1:]
runpy.run_path(sys.argv[0], run_name='__main__')
