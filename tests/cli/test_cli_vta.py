"""The CLI on the VTA model target."""



from tensortune.core.values import ErrorKind
from tensortune.storage import SQLiteStorage

VTA = {"kind": "vta-sim"}


def test_cli_vta_sim(tmp_path, capsys):
    from tensortune.cli.main import main

    db = str(tmp_path / "v.db")
    assert main(["tune", "--target", "vta-sim", "--layer", "resnet18:11", "--tuner", "autotvm", "--trials", "24",
                 "--plan-size", "8", "--db", db, "--no-progress"]) == 0
    assert main(["tune", "--target", "vta-sim", "--codesign", "model", "--model", "alexnet", "--tuner", "random",
                 "--trials", "16", "--db", db, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "conv2d_nchw.vta-sim" in out and "model_codesign.vta-sim" in out
    recs = SQLiteStorage(db).records()
    assert any(r.error == ErrorKind.COMPILE_DEVICE and r.message.split(":")[0].endswith(("buffer", "hazard"))
               for r in recs)
    # bad input: one line, exit 2
    assert main(["tune", "--codesign", "layer", "--layer", "L6", "--db", db]) == 2
    assert main(["tune", "--target", "vta-sim", "--codesign", "model", "--layer", "L6", "--db", db]) == 2
    assert main(["tune", "--target", '{"kind": "vta-sim", "hw": {"BLOCK_IN": 12}}', "--layer", "L6", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "--codesign needs --target vta-sim" in err and "power of two" in err
