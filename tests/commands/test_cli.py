"""The command line as a table of commands: each module declares its options and runs them, and
every command ends an interruption or an error in one line."""

import importlib

import pytest

import privmetrics.__main__ as cli


@pytest.mark.parametrize("name, module", sorted(cli.COMMANDS.items()))
def test_every_command_module_declares_its_help_options_and_run(name, module):
    command = importlib.import_module(f"privmetrics.commands.{module}")
    assert command.HELP and callable(command.add_arguments) and callable(command.run)


def test_each_commands_options_reach_its_run(monkeypatch):
    seen = {}
    verify = importlib.import_module("privmetrics.commands.verify_cells")
    monkeypatch.setattr(verify, "run", lambda args: seen.setdefault("args", args) and 7)
    assert cli.main(["verify", "--sample", "3", "--cells", "a/b/0, c/d/1"]) == 7
    args = seen["args"]
    assert (args.sample, args.cells, args.profile.name) == (3, ["a/b/0", "c/d/1"], "paper")


def test_ctrl_c_ends_in_one_line(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(
        importlib.import_module("privmetrics.commands.list_metrics"), "run", interrupted
    )
    assert cli.main(["list"]) == 130
    assert capsys.readouterr().err == "privmetrics list: interrupted\n"


def test_a_usage_error_is_one_line_with_exit_code_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["run", "--jobs", "many"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "invalid int value: 'many'" in err and err.endswith("(see --help)")


def test_run_with_utility_measures_it_where_the_profile_does_not(monkeypatch, tmp_path):
    """``privmetrics run --utility``: the cells it computes carry their utility rows even for a
    profile that leaves utility out (a refresh of techniques whose shipped cells lack it)."""
    from dataclasses import replace

    from privmetrics.experiments.grid.store import ResultsStore
    from privmetrics.experiments.profiles import PROFILES

    monkeypatch.setitem(PROFILES, "smoke", replace(PROFILES["smoke"], grid_utility=False))
    common = ["run", "--profile", "smoke", "--datasets", "flchain", "--techniques", "real",
              "--rows", "150", "--jobs", "1", "--cache", str(tmp_path / "c")]  # fmt: skip
    assert cli.main([*common, "--store", str(tmp_path / "without.sqlite")]) == 0
    assert cli.main([*common, "--store", str(tmp_path / "with.sqlite"), "--utility"]) == 0
    without, with_ = (
        ResultsStore(tmp_path / "without.sqlite"),
        ResultsStore(tmp_path / "with.sqlite"),
    )
    assert without.count("cells") == with_.count("cells") == 2
    assert without.count("utility") == 0 and with_.count("utility") > 0
