"""Every history of Porcupine's corpus gets the verdict its README records.

The corpus lives in ../shared/corpora/porcupine (not in this repository); without it these
tests skip. Expected verdicts are read from the README's tables, not copied here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from campaign.formats.history import read_history
from checkers.linearizability import CAS_REGISTER, KV, check, pair, with_initial
from checkers.linearizability.kv_offsets import by_offsets
from checkers.linearizability.parts import partition
from checkers.linearizability.witness import witnessed
from tests.conftest import shared_path

_ROW = re.compile(r"^\|\s*`(?P<path>(?:jepsen|kv)/[^`]+)`\s*\|(?P<rest>.*)$")


def expected_verdicts(corpus: Path) -> dict[str, bool]:
    """{relative path: linearizable?} from the README's tables (files without a verdict omitted)."""
    verdicts: dict[str, bool] = {}
    for line in (corpus / "README.md").read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m is None:
            continue
        cells = [c.strip() for c in m.group("rest").split("|")]
        if "NOT linearizable" in cells:
            verdicts[m.group("path")] = False
        elif "linearizable" in cells:
            verdicts[m.group("path")] = True
    return verdicts


@pytest.fixture(scope="module")
def corpus() -> Path:
    return shared_path("corpora", "porcupine")


def test_the_readme_lists_every_history(corpus: Path) -> None:
    verdicts = expected_verdicts(corpus)
    assert len(verdicts) == 6 + 102  # etcd_095 is empty and has no verdict
    assert sum(verdicts.values()) == 23 + 3


def test_every_etcd_history_gets_the_expected_verdict(corpus: Path) -> None:
    verdicts = expected_verdicts(corpus)
    wrong = {}
    for path, expected in sorted(verdicts.items()):
        if not path.startswith("jepsen/"):
            continue
        history = read_history(corpus / path)
        assert history.format == "porcupine-etcd"
        verdict = check(CAS_REGISTER, history.ops, minimize=False)
        if verdict.valid is not expected:
            wrong[path] = verdict.valid
    assert wrong == {}


def test_the_empty_etcd_history_is_linearizable(corpus: Path) -> None:
    history = read_history(corpus / "jepsen" / "etcd_095.log")
    assert history.ops == () and check(CAS_REGISTER, history.ops).valid is True


@pytest.mark.parametrize("name", ["c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad"])
def test_every_kv_history_gets_the_expected_verdict(corpus: Path, name: str) -> None:
    path = f"kv/{name}.txt"
    history = read_history(corpus / path)
    assert history.format == "porcupine-kv"
    verdict = check(with_initial(KV, ""), history.ops, minimize=False)
    assert verdict.valid is expected_verdicts(corpus)[path]


@pytest.mark.parametrize("name", ["c10-ok", "c50-ok"])
def test_every_key_of_a_linearizable_kv_history_is_witnessed_without_a_search(corpus: Path, name: str) -> None:
    """Porcupine's kv values are unique but for a few repeats: the witness read off them
    (`kv_fast`) is a linearization of every key, so no key is searched (the figures of
    docs/check-history.md depend on it; c01's keys are too small to ask for one)."""
    verdict = check(with_initial(KV, ""), read_history(corpus / "kv" / f"{name}.txt").ops, minimize=False)
    assert verdict.valid is True
    assert [p.key for p in verdict.evidence.partitions if p.explored] == []


def test_every_key_of_c10_ok_is_witnessed_by_the_quick_guess(corpus: Path) -> None:
    """c10-ok's figure against Porcupine depends on the cheaper guess (`by_offsets`) being
    right for every key, its repeated suffixes included, without asking `propose`."""
    model = with_initial(KV, "")
    for key, ops in partition(model, pair(read_history(corpus / "kv" / "c10-ok.txt").ops)):
        order = by_offsets(ops, model.init)
        assert order is not None and witnessed(model, key, ops, order) is not None, key


@pytest.mark.slow
def test_every_etcd_violation_window_fails_on_its_own_and_is_minimal(corpus: Path) -> None:
    from checkers.linearizability.wgl import check_operations

    for path in sorted((corpus / "jepsen").glob("etcd_0*.log")):
        verdict = check(CAS_REGISTER, read_history(path).ops)
        if verdict.valid is False:
            again = check_operations(CAS_REGISTER, verdict.evidence.window, minimize=False)
            assert again.valid is False, path.name
            # and no op of it can be spared: each one explains part of the failure
            assert verdict.evidence.window_minimal, path.name
            assert verdict.evidence.failing_op in verdict.evidence.window, path.name
