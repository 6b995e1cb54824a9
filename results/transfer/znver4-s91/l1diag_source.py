from tensortune.transfer.corpus import default_corpus
c = default_corpus("znver4")
for t in c.tasks_:
    if t.name == "corpus:conv3x195-48k11s4":
        ok = sorted([r for r in t.records if r.ok], key=lambda r: min(r.costs) if hasattr(r, "costs") else r.cost)
        print(len(ok), t.task_key[:80])
        r = ok[0]
        print({k: v for k, v in vars(r).items() if k not in ("extra",)})
        for r in ok[:5]:
            print(getattr(r, "config", None) or getattr(r, "config_json", None))
