"""Docs that stay true: the commands README.md and docs/*.md show are checked against the
command line, and the output shapes they document against what the commands print.

- every `tcmcheck CMD ...` in a code span or block names a command, and each of its options is
  one `tcmcheck CMD --help` shows;
- README's signatures (and each plain ``` signature block of docs/) list every option --help
  shows, and every command has a signature in README;
- the quick documented commands run and print the documented keys, first lines and exit
  statuses; the default campaign's summary (docs/fuzz.md) is checked under `-m slow`.

The issue: "docs/fuzz.md's example summary (49 failures of one kind) no longer matches (63 in
four kinds); the README's command signatures omit options `--help` shows."
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from attrs import frozen

from campaign.cli import COMMANDS, main
from campaign.commands.progress import CampaignProgress
from campaign.store import COLUMNS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


@frozen
class Snippet:
    """Code in a markdown file: an inline span, or one (joined) line of a fenced block."""

    path: Path
    line: int
    text: str
    block: int | None  # which fenced block (None: inline)
    lang: str = ""

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def snippets(path: Path) -> list[Snippet]:
    out: list[Snippet] = []
    lines = path.read_text().splitlines()
    prose: list[tuple[int, str]] = []
    fence: tuple[int, str] | None = None
    for n, line in enumerate(lines, start=1):
        if line.startswith("```"):
            fence = None if fence is not None else (n, line[3:].strip())
            continue
        if fence is None:
            prose.append((n, line))
        elif out and out[-1].block == fence[0] and out[-1].text.endswith("\\"):
            out[-1] = Snippet(path, out[-1].line, out[-1].text[:-1] + " " + line.strip(), fence[0], fence[1])
        elif line[:1].isspace() and out and out[-1].block == fence[0] and not line.strip().startswith("#"):
            out[-1] = Snippet(path, out[-1].line, out[-1].text + " " + line.strip(), fence[0], fence[1])
        else:
            out.append(Snippet(path, n, line.strip(), fence[0], fence[1]))
    # inline spans may be cut across lines: read the prose as one text, keeping line numbers
    text = "\n".join(line for _, line in prose)
    starts = [0]
    for _, line in prose:
        starts.append(starts[-1] + len(line) + 1)
    for m in re.finditer(r"`([^`]+)`", text):
        index = next(i for i, s in enumerate(starts) if s > m.start()) - 1
        out.append(Snippet(path, prose[index][0], " ".join(m.group(1).split()), None))
    return out


def commands(snippet: Snippet) -> Iterator[tuple[str, str]]:
    """(command name, the command's text) for each `tcmcheck CMD ...` in a snippet; shell
    comments, prompts and other commands joined by &&, ;, | are left out."""
    text = snippet.text.split(" # ")[0].split("  #")[0]
    for segment in re.split(r"&&|;| \| ", text):  # a bare | is a signature's alternatives
        words = segment.strip().removeprefix("$ ").split()
        if len(words) >= 2 and words[0] == "tcmcheck" and not words[1].startswith("-"):
            yield words[1], " ".join(words)


def all_commands() -> list[tuple[Snippet, str, str]]:
    return [(s, name, text) for path in DOCS for s in snippets(path) for name, text in commands(s)]


@cache
def help_options(name: str) -> frozenset[str]:
    """The options `tcmcheck NAME --help` shows."""
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([name, "--help"]) == 0
    return frozenset(OPTION.findall(buffer.getvalue())) - {"--help"}


def test_every_documented_command_and_option_exists() -> None:
    found = all_commands()
    assert len(found) > 40  # the parser reads the docs at all
    wrong = []
    for snippet, name, text in found:
        if name not in COMMANDS:
            wrong.append(f"{snippet.where()}: no command {name!r} in `{text}`")
            continue
        for option in OPTION.findall(text):
            if option not in help_options(name):
                wrong.append(f"{snippet.where()}: `tcmcheck {name}` has no option {option} (in `{text}`)")
    assert wrong == []


def _missing(texts: list[str], name: str) -> list[str]:
    shown = set().union(*(OPTION.findall(t) for t in texts))
    return sorted(help_options(name) - shown)


def test_readme_signatures_list_every_option_and_every_command_has_one() -> None:
    signatures = [(s, name, text) for s, name, text in all_commands()
                  if s.path == README and s.block is None and "[--" in text]
    wrong = [f"{s.where()}: `tcmcheck {name}` signature lacks {_missing([text], name)}"
             for s, name, text in signatures if _missing([text], name)]
    assert wrong == []
    assert {name for _, name, _ in signatures} == set(COMMANDS)


def test_signature_blocks_of_the_docs_list_every_option() -> None:
    """A plain ``` block that starts with `tcmcheck` is a signature block: for each command it
    gives with optional arguments (`[--...`), all its lines together list every option."""
    blocks: dict[tuple[Path, int], list[tuple[Snippet, str, str]]] = {}
    for s, name, text in all_commands():
        if s.block is not None and s.lang == "":
            blocks.setdefault((s.path, s.block), []).append((s, name, text))
    wrong = []
    for (path, line), found in blocks.items():
        for name in {name for _, name, text in found if "[--" in text}:
            missing = _missing([text for _, n, text in found if n == name], name)
            if missing:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: `tcmcheck {name}` lacks {missing}")
    assert blocks and wrong == []


# ---------------------------------------------------------------- documented outputs


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def doc_text(name: str) -> str:
    return (ROOT / name).read_text()


def test_readme_exit_statuses_are_those_the_commands_use() -> None:
    text = " ".join(doc_text("README.md").split())
    assert ("Exit statuses: 0 valid / proved / written, 1 a finding (counterexample, not linearizable, a "
            "failing run), 2 bad input, 3 unknown (a limit ran out), 4 an I/O error") in text


def test_the_readme_prove_example_exits_as_documented(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    text = doc_text("README.md")
    block = text.split("why the progress barrier exists (exit 1, with the disjoint quorums):")[1]
    lines = [line for line in block.split("```")[1].splitlines() if line.startswith("tcmcheck")]
    assert "(exit 0)" in text.split("why the progress barrier")[0][-200:]
    monkeypatch.chdir(ROOT)
    assert [run(capsys, *shlex.split(line)[1:])[0] for line in lines] == [0, 1]


def test_placements_prints_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(doc_text("README.md").split())
    shape = text.split("`tcmcheck placements TOPOLOGY.json")[1].split("meaning `(left, right]`")[0]
    documented = set(re.findall(r'"(\w+)"', shape))
    status, out, _ = run(capsys, "placements", str(ROOT / "examples" / "cep21-rf3-ring.json"),
                         "--ops", str(ROOT / "examples" / "join-x.json"))
    doc = json.loads(out)
    epoch = doc["epochs"][1]
    group = next(iter(epoch["placements"].values()))
    seen = set(doc) | set(epoch) | set(group) | set(group["reads"][0])
    assert status == 0 and documented == seen


def test_simulate_prints_the_documented_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    block = doc_text("docs/simulate.md").split("## The summary")[1].split("```json")[1].split("```")[0]
    documented = set(re.findall(r'^  "(\w+)":', block, re.MULTILINE))
    readme = doc_text("README.md").split("## Running one simulation")[1].split("```sh")[1].split("```")[0]
    monkeypatch.chdir(ROOT)
    args = shlex.split(readme.strip())[1:]
    for option in ("--trace", "--history"):  # write where the test may
        args[args.index(option) + 1] = str(tmp_path / args[args.index(option) + 1])
    status, out, _ = run(capsys, *args)
    summary = json.loads(out)
    assert status == 0 and documented <= set(summary) and "judgement" in summary
    assert documented | {"judgement"} == set(summary)


STALE_READ = "".join(json.dumps(e) + "\n" for e in [
    {"process": 0, "type": "invoke", "f": "write", "value": 1}, {"process": 0, "type": "ok", "f": "write", "value": 1},
    {"process": 1, "type": "invoke", "f": "read", "value": None}, {"process": 1, "type": "ok", "f": "read", "value": 2}])


def test_check_history_prints_the_documented_json_and_edn_keys(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(doc_text("docs/check-history.md").split())
    json_part = text.split("`--output json` (or `--json`) prints the verdict as one JSON object (")[1]
    json_part = json_part.split(", and `refutation`")[0]
    documented = set(re.findall(r"`(\w+)`", json_part)) | {"refutation"}
    path = tmp_path / "h.jsonl"
    path.write_text(STALE_READ)
    status, out, _ = run(capsys, "check-history", str(path), "--output", "json")
    assert status == 1 and documented <= set(json.loads(out))
    edn_part = text.split("`--output edn` prints")[1].split("Keys:")[1].split(".")[0]
    status, out, _ = run(capsys, "check-history", str(path), "--output", "edn")
    assert status == 1
    assert set(re.findall(r"`(:[\w?-]+)`", edn_part)) == set(re.findall(r"^[{ ](:[\w?-]+) ", out, re.MULTILINE))


def test_fuzz_and_report_print_the_documented_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(doc_text("docs/fuzz.md").split())
    status, out, _ = run(capsys, "fuzz", "--runs", "8", "--workers", "1", "--mutant", "reject-create-table",
                         "--out", str(tmp_path))
    # the summary line as docs/fuzz.md shows it, numbers and folder aside
    example = text.split("Output: one summary line (`")[1].split("`)")[0]
    pattern = re.escape(example).replace("fuzz\\-out", ".+")
    pattern = re.sub(r"\d+", r"\\d+", pattern)
    assert re.fullmatch(pattern, out.splitlines()[0]), (example, out.splitlines()[0])
    # the progress line without a terminal
    line = text.split("without a terminal, one line every 10 s on stderr (`")[1].split("`)")[0]
    shown = CampaignProgress(3000, 0, tty=False, max_seconds=None)
    shown.done, shown.failed = 340, 12
    got = shown.line(10.3)
    assert re.fullmatch(re.sub(r"\d+(\\\.\d+)?", r"\\d+(\\.\\d+)?", re.escape(line)), got), (line, got)
    # runs.parquet's columns, as the table lists them
    table = text.split("one row per run, in run order:")[1].split("`duration_s` and `finished_at` are")[0]
    assert re.findall(r"\| `(\w+)` \|", table) == list(COLUMNS)
    assert pq.read_table(tmp_path / "runs.parquet").column_names == list(COLUMNS)
    # report --json's keys, and those of each failure
    shape = "{" + text.split("`--json` prints `{")[1].split("}`.")[0] + "}"
    status, out, _ = run(capsys, "report", str(tmp_path), "--json")
    report = json.loads(out)
    assert status == 0 and top_keys(shape) == set(report)
    failure = shape.split('"failures": [')[1]
    assert set(re.findall(r'"(\w+)"', failure)) <= set(report["failures"][0])


def top_keys(shape: str) -> set[str]:
    """The keys at the first level of a documented `{"a", "b": {...}, ...}` shape."""
    depth, keys = 0, set()
    for m in re.finditer(r'[{}\[\]]|"(\w+)"', shape):
        if m.group() in "{[":
            depth += 1
        elif m.group() in "}]":
            depth -= 1
        elif depth == 1:
            keys.add(m.group(1))
    return keys


def test_documented_transcripts_are_what_the_commands_print(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A code block of `$ tcmcheck ...` lines shows what each command does (run from the
    checkout's root): the exit status a `# exit N` comment gives, and the output lines that
    follow, to the character unless they elide with `...`. A command naming an input file that
    is not here (a placeholder such as `ring.json`, or ../shared/) is left out."""
    monkeypatch.chdir(ROOT)
    checked = 0
    for path in DOCS:
        for block in path.read_text().split("```")[1::2]:
            lines = block.splitlines()
            starts = [i for i, line in enumerate(lines) if line.startswith("$ tcmcheck ")]
            for i, j in zip(starts, [*starts[1:], len(lines)][: len(starts)], strict=True):
                command, _, comment = lines[i][2:].partition("  #")
                args = shlex.split(command)[1:]
                if any(a.endswith((".json", ".edn", ".jsonl", ".log")) and not Path(a).exists() for a in args):
                    continue
                status, out, _ = run(capsys, *args)
                shown = [line.split("  #")[0].rstrip() for line in lines[i + 1:j]]
                notes = comment + " ".join(line.partition("  #")[2] for line in lines[i + 1:j])
                exit_status = re.search(r"exit (\d)", notes)
                if exit_status:
                    assert status == int(exit_status.group(1)), (path.name, lines[i])
                if shown and not any("..." in line for line in shown):
                    assert out.splitlines() == shown, (path.name, lines[i])
                checked += 1
    assert checked >= 1  # (prove.md's examples read ../shared/, absent from a user's clone)


@pytest.mark.slow
def test_the_default_campaign_prints_what_docs_fuzz_md_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tcmcheck fuzz` itself (1,000 runs, about a minute on 2 cores): docs/fuzz.md's example
    summary and its account of what the default campaign finds must be what it prints."""
    status, out, _ = run(capsys, "fuzz", "--out", str(tmp_path / "fuzz-out"))
    text = " ".join(doc_text("docs/fuzz.md").split())
    example = text.split("Output: one summary line (`")[1].split("`)")[0]
    first = out.splitlines()[0]
    assert first == example.replace("fuzz-out/", f"{tmp_path}/fuzz-out/"), (first, example)
    finds = text.split("## What the default campaign finds")[1]
    for line in out.splitlines()[1:]:
        if line.startswith(("KNOWN ", "FAIL: ")):
            assert line.split(" (first:")[0] in finds, line
    assert status == 0
