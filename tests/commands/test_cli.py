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
