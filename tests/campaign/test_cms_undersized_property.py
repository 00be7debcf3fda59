"""The "CMS undersized" rule's core (campaign/judge/checks/cms.py `undersized`) against generated
sizing histories: Hypothesis draws a cluster whose nodes stay up, are dead for good, never run, or
crash near the decisive point; a few sizing points with random metadata (JOINED nodes, nodes in
a sequence, Simple's member to replace, the CMS's size), each committed at its own epoch and
submitted at a random time (so the last submitted is often not the last executed: fresh seeds
71707 and 27113); and the CMS a Cassandra cluster would end with, computed here the way
`CMSPlacementStrategy.reconfigure` does (trunk 6bbe85ef): every peer of the metadata the last
executed reconfiguration saw passes `DefaultNodeFilter` (JOINED, in no sequence) and the
transformation's predicate (not `toReplace`, not in `downNodes`, the deciding node's failure
detector), and the CMS is min(size, those) of them.

- Sound: that CMS, whichever of the candidates it took and whatever the deciding node's detector
  said about a node that crashed near the point, is never called undersized — nor one stalled
  on an addition that went down after the point (ReconfigureCMS waits for it).
- Complete: a CMS short of what certainly-up candidates allow is called undersized, whether a
  member left with nobody in its place (CASSANDRA-18416) or a point's reconfiguration never ran
  (CASSANDRA-19705: the CMS an earlier point placed).
- The verdict does not depend on the order the points are listed in or on their submission times
  (only on the metadata each executed on), and a point whose deciding node or network was in
  doubt is not judged.
"""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen
from hypothesis import given
from hypothesis import strategies as st

from campaign.judge.checks.cms import Down, FinalCMS, Liveness, SizingPoint, undersized

M = 1_000
"""The rule's margin (about a conviction time)."""
FATES = ("up", "up", "up", "dead", "ghost", "flaky")
"""up: runs throughout; dead: crashed at 0 for good; ghost: no process (scripted REGISTER);
flaky: crashes within half a margin of the decisive point (restarts soon after, or never)."""


@frozen(kw_only=True)
class History:
    points: tuple[SizingPoint, ...]
    commit: tuple[int, ...]
    """Each point's commit epoch (distinct): a PREPARE's is the epoch after the one it executed on."""
    fate: dict[str, str]
    life: Liveness
    partitioned: bool

    @property
    def last(self) -> int:
        """The index of the point executed last."""
        return max(range(len(self.points)), key=lambda i: self.commit[i])

    def filtered(self, i: int) -> list[str]:
        """DefaultNodeFilter and Simple's `toReplace` over point i's metadata."""
        p = self.points[i]
        return sorted(n for n in p.joined if n not in p.busy and n != p.without)

    def certain(self, i: int) -> list[str]:
        """The filtered nodes that were up throughout (any deciding node saw them up)."""
        return [n for n in self.filtered(i) if self.fate[n] == "up"]

    def judgeable(self) -> bool:
        return not self.partitioned and self.fate[self.points[self.last].decider] == "up"


def _pick(nodes: list[str], mask: int) -> list[str]:
    return [n for i, n in enumerate(nodes) if mask >> i & 1]


@st.composite
def histories(draw: Any) -> History:
    nodes = [f"n{i:02}" for i in range(draw(st.integers(3, 12)))]
    fate = {n: draw(st.sampled_from(FATES)) for n in nodes}
    k = draw(st.integers(1, 4))
    commit = tuple(draw(st.lists(st.integers(1, 40), min_size=k, max_size=k, unique=True)))
    up = [n for n in nodes if fate[n] == "up"] or nodes
    points = []
    for c in commit:
        # (bit masks: far cheaper to draw than sets)
        joined = _pick(nodes, draw(st.integers(1, 2 ** len(nodes) - 1)))
        prepare = draw(st.booleans())
        points.append(SizingPoint(
            epoch=c - 1 if prepare else c, prepare=prepare,
            time=draw(st.integers(20 * M, 200 * M)),  # submission: unrelated to the epoch
            decider=draw(st.sampled_from(up) | st.sampled_from(nodes)),  # (mostly judgeable)
            size=draw(st.integers(1, 7)),
            joined=frozenset(joined), busy=frozenset(_pick(joined, draw(st.integers(0, 2 ** len(joined) - 1)))),
            without=draw(st.none() | st.sampled_from(sorted(joined)))))
    t = points[max(range(k), key=lambda i: commit[i])].time
    downs = [Down(node=n, start=0) for n in nodes if fate[n] == "dead"]
    for n in nodes:
        if fate[n] == "flaky":
            start = t + draw(st.integers(-M // 2, M // 2))
            downs.append(Down(node=n, start=start, end=draw(st.none() | st.integers(start, start + M // 2))))
    partitioned = draw(st.integers(0, 9)) == 0
    life = Liveness(processes=frozenset(n for n in nodes if fate[n] != "ghost"), downs=tuple(downs),
                    partitions=((t - M // 2, t + M // 2),) if partitioned else (), margin=M)
    return History(points=tuple(points), commit=commit, fate=fate, life=life, partitioned=partitioned)


def cassandra_cms(draw: Any, h: History, i: int) -> list[str]:
    """The CMS CMSPlacementStrategy places at point i: the deciding node's detector sees the
    dead and the processless down, the up nodes up, and a flaky node either way; any
    min(size, candidates) of the candidates (NetworkTopologyStrategy's walk picks which)."""
    seen_down = {n for n, f in h.fate.items() if f in ("dead", "ghost") or f == "flaky" and draw(st.booleans())}
    candidates = [n for n in h.filtered(i) if n not in seen_down]
    return sorted(draw(st.permutations(candidates))[: min(h.points[i].size, len(candidates))])


@given(h=histories(), data=st.data())
def test_the_cms_cassandra_places_is_never_undersized(h: History, data: st.DataObject) -> None:
    cms = cassandra_cms(data.draw, h, h.last)
    assert undersized(h.points, FinalCMS(members=frozenset(cms)), h.life) is None


@given(h=histories(), data=st.data())
def test_a_reconfiguration_stalled_on_an_addition_that_went_down_is_not_judged(h: History, data: st.DataObject) -> None:
    cms = cassandra_cms(data.draw, h, h.last)
    stalled = [n for n in cms if h.fate[n] == "flaky" and all(d.end is None for d in h.life.downs if d.node == n)]
    if not stalled:
        return
    blocker = data.draw(st.sampled_from(stalled))
    added = cms[: cms.index(blocker)]  # the additions before it went through
    assert undersized(h.points, FinalCMS(members=frozenset(added), adding=frozenset({blocker})), h.life) is None


@given(h=histories(), data=st.data())
def test_a_member_gone_with_nobody_in_its_place_is_undersized(h: History, data: st.DataObject) -> None:
    # CASSANDRA-18416: the Simple reconfiguration shrank the CMS instead of keeping its size
    cms = cassandra_cms(data.draw, h, h.last)
    if not cms:
        return
    short = set(cms) - {data.draw(st.sampled_from(cms))}
    wanted = min(h.points[h.last].size, len(h.certain(h.last)))
    verdict = undersized(h.points, FinalCMS(members=frozenset(short)), h.life)
    if h.judgeable() and len(short) < wanted:
        assert verdict is not None and verdict.startswith(f"{len(short)} members in the ring, ")
    if not h.judgeable():
        assert verdict is None


@given(h=histories(), data=st.data())
def test_a_point_whose_reconfiguration_never_ran_is_caught(h: History, data: st.DataObject) -> None:
    # CASSANDRA-19705: the CMS stayed as an earlier point placed it
    if len(h.points) < 2:
        return
    earlier = data.draw(st.sampled_from([i for i in range(len(h.points)) if i != h.last]))
    cms = cassandra_cms(data.draw, h, earlier)
    wanted = min(h.points[h.last].size, len(h.certain(h.last)))
    verdict = undersized(h.points, FinalCMS(members=frozenset(cms)), h.life)
    if h.judgeable() and len(cms) < wanted:
        assert verdict is not None
    elif len(cms) >= min(h.points[h.last].size, len(h.filtered(h.last))):
        assert verdict is None  # as many as the last point could place at all: enough


@given(h=histories(), data=st.data())
def test_the_verdict_depends_on_execution_order_only(h: History, data: st.DataObject) -> None:
    nodes = sorted(h.fate)
    members = frozenset(_pick(nodes, data.draw(st.integers(0, 2 ** len(nodes) - 1))))
    final = FinalCMS(members=members)
    verdict = undersized(h.points, final, h.life)
    shuffled = data.draw(st.permutations(h.points))
    assert undersized(shuffled, final, h.life) == verdict
    # the same submission time for every point: the order is still the epochs'
    t = h.points[h.last].time
    retimed = [evolve(p, time=t) for p in h.points]
    assert undersized(retimed, final, h.life) == verdict


def test_a_prepare_executed_on_a_finish_epoch_comes_after_it() -> None:
    # ensureCMSPlacement after a FINISH at epoch 7 decides on epoch 7; a Simple committed at
    # epoch 8 executed on epoch 7 too, after the FINISH: it decides
    finish = SizingPoint(epoch=7, prepare=False, time=50 * M, decider="a", size=3, joined=frozenset("abcd"))
    simple = SizingPoint(epoch=7, prepare=True, time=10 * M, decider="b", size=3, joined=frozenset("abcd"),
                         busy=frozenset("cd"))
    life = Liveness(processes=frozenset("abcd"), margin=M)
    two = FinalCMS(members=frozenset("ab"))
    assert undersized([finish, simple], two, life) is None
    assert undersized([simple, evolve(simple, epoch=6)], two, life) is None
    assert undersized([evolve(simple, epoch=6), finish], two, life) is not None
