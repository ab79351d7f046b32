"""The labelling operation person by person, in calendar time (vectorised over runs).

Each annotator works their own calendar (:mod:`planner.operations.calendar`); the item queue
is shared. Whoever can start a task first (model time, :class:`~planner.operations.calendar.Clock`;
ties to the first in the team's order) takes their next task: an item of the overlap block
assigned to them in advance, else (policy ``next-free``) the first item of the queue that still
needs a label and that they have not labelled, which is the first open item after the last one
they took (every earlier item was full, or theirs, when they took it). Under ``balanced`` every
item is assigned in advance (round robin). A label takes the item's stratum time scaled by the
person's ratio to the budget's seconds per item, times a lognormal factor of mean 1 (their
``time_spread``); an attention check (their share, per label) adds one label time, and failing
it (their fail rate) adds their requalification hours. Contested items go, once their last
label is in, to whichever adjudicator can start first, in order of arrival.

Runs are simulated :data:`BATCH_RUNS` at a time, all runs of a block one task step at a time,
so memory is O(block x items + runs) and time O(labels) numpy steps per block. With weekly
attrition a seat's person leaves (on a random day of the week) and the seat is empty for
``replacement_days`` calendar days; the replacement takes the seat's place in the queue (they
inherit its labelled items, so an item never gets two labels from one seat).

The SimPy model (:mod:`planner.operations.workload`) stays the reference: a uniform team under
``balanced`` assignment gives its calendar days (tests check it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from planner.errors import InvalidInput
from planner.operations.assignment import (
    lists_by_annotator,
    overlap_block,
    round_robin,
    shared_items,
)
from planner.operations.calendar import Clock, capacity, day_of, finish_day, shift_seconds
from planner.operations.team import Person, Team, person_rate

BATCH_RUNS = 50
"""Runs simulated together (one block of the vectorised simulation)."""
MAX_HORIZON_DAYS = 36_525
"""Longest operation simulated, in calendar days (100 years)."""
_CHUNK = 2048  # task steps whose random draws are made at once


@dataclass(frozen=True)
class TeamOperation:
    """The work and the team: items, per-stratum seconds and contested shares, k per item.

    ``budget_seconds`` is ``[budget].seconds_per_item``: a person's own ``seconds_per_item``
    scales every stratum's time by their ratio to it. ``hourly_rate`` prices the hours of a
    person who gives no rate (None: no cost for them).
    """

    items_per_stratum: tuple[int, ...]
    seconds_per_item: tuple[float, ...]
    contested_rate: tuple[float, ...]
    labels_per_item: int
    team: Team
    budget_seconds: float = 90.0
    adjudication_seconds: float = 0.0
    hourly_rate: float | None = None

    def __post_init__(self) -> None:
        k, m = self.labels_per_item, len(self.team.annotators)
        if k > m:
            raise InvalidInput(
                f"annotators_per_item must be at most the team's {m} annotator(s) (each item "
                f"needs {k} distinct annotators), got {k}",
                parameter="annotators_per_item",
            )
        contested = any(rate > 0 for rate in self.contested_rate)
        if contested and self.adjudication_seconds > 0 and not self.team.adjudicators:
            raise InvalidInput(
                "adjudicators must be at least 1 when contested items take "
                f"{self.adjudication_seconds:g} s each to adjudicate, got 0",
                parameter="adjudicators",
            )

    @property
    def n_items(self) -> int:
        return int(sum(self.items_per_stratum))

    @property
    def adjudicated(self) -> bool:
        contested = any(rate > 0 for rate in self.contested_rate)
        return contested and self.adjudication_seconds > 0 and bool(self.team.adjudicators)


@dataclass
class People:
    """Per-person arrays of one role (annotators or adjudicators)."""

    people: tuple[Person, ...]
    mean_seconds: np.ndarray  # annotators: ratio to the budget's; adjudicators: seconds
    sigma: np.ndarray
    check_share: np.ndarray
    fail_rate: np.ndarray
    requal_seconds: np.ndarray

    @classmethod
    def of(cls, people: tuple[Person, ...], base: float, scale: float) -> People:
        def arr(key: str) -> np.ndarray:
            return np.array([float(getattr(p, key)) for p in people])

        seconds = [base if p.seconds_per_item is None else p.seconds_per_item for p in people]
        return cls(
            people=people,
            mean_seconds=np.array(seconds) / scale,
            sigma=arr("time_spread"),
            check_share=arr("attention_check_share"),
            fail_rate=arr("attention_fail_rate"),
            requal_seconds=arr("requalification_hours") * 3600.0,
        )

    def day_seconds(self, team: Team, horizon: int) -> np.ndarray:
        return np.array(
            [
                shift_seconds(
                    p.hours_per_day,
                    p.days,
                    horizon,
                    start=team.start,
                    holidays=team.holidays,
                    absent=p.absent,
                    first=p.start,
                    last=p.end,
                )
                for p in self.people
            ]
        ).reshape(len(self.people), horizon)


@dataclass
class Labelled:
    """A block's labelling: per item (runs x items) and per seat (runs x seats) numbers."""

    people: tuple[Person, ...]
    k: int
    done: np.ndarray  # model time of each item's last label
    strata: np.ndarray  # each item's stratum
    rec: np.ndarray  # runs x items x k: who labelled it
    work: np.ndarray  # busy seconds per seat
    items: np.ndarray
    checks: np.ndarray
    last_end: np.ndarray  # model time of each seat's last label
    capacity: np.ndarray  # the clock's rows (seats, or runs x seats with attrition)
    row_base: np.ndarray  # each run's first row in ``capacity``

    @property
    def m(self) -> int:
        return len(self.people)


@dataclass
class BatchRuns:
    """A block of runs reduced to per-run numbers (arrays over runs, and runs x people)."""

    finish: np.ndarray
    busy: np.ndarray
    items: np.ndarray
    checks: np.ndarray
    available: np.ndarray
    adjudicator_busy: np.ndarray
    adjudicator_items: np.ndarray
    adjudicator_available: np.ndarray
    min_shared: np.ndarray
    pair_min: np.ndarray  # seats x seats: the fewest items each pair shares over the runs
    last_person: list[str]
    finished_days: list[np.ndarray] = field(repr=False)


def horizon_guess(op: TeamOperation, ann: People) -> int:
    """Calendar days that should hold the operation: twice the fluid estimate, plus slack."""
    mean_stratum = float(np.dot(op.items_per_stratum, op.seconds_per_item)) / op.n_items
    label = mean_stratum * float(ann.mean_seconds.mean()) * (1 + float(ann.check_share.mean()))
    weekly = sum(p.hours_per_day * 3600 * len(p.days) for p in ann.people)
    days = op.n_items * op.labels_per_item * label / max(weekly / 7, 1e-9)
    dates = [d for p in ann.people for d in (p.start, p.end) if d is not None]
    dates += [b for p in ann.people for _, b in p.absent] + [b for _, b in op.team.holidays]
    offset = max((day_of(op.team.start, d) for d in dates), default=0) if op.team.start else 0
    return int(min(MAX_HORIZON_DAYS, 2 * days + 60 + max(offset, 0)))


def assigned_in_advance(op: TeamOperation) -> np.ndarray:
    """The items assigned before the run (overlap block, or every item when balanced)."""
    m, k, n = len(op.team.annotators), op.labels_per_item, op.n_items
    block = overlap_block(m, k, op.team.min_shared_items, n)
    if op.team.assignment == "balanced":
        rest = round_robin(n - len(block), k, m, first=len(block))
        return np.concatenate([block, rest]) if len(block) else rest
    return block


def attrition_mask(team: Team, rng: np.random.Generator, shape: tuple[int, int, int]) -> np.ndarray:
    """Days each seat works (True) given weekly departures and the replacement delay."""
    runs, seats, horizon = shape
    weeks = -(-horizon // 7)
    leaves = rng.random((runs, seats, weeks)) < team.attrition_weekly
    day = np.arange(weeks) * 7 + rng.integers(0, 7, size=(runs, seats, weeks))
    change = np.zeros((runs, seats, horizon + team.replacement_days + 8), dtype=np.int32)
    r, s, w = np.nonzero(leaves)
    np.add.at(change, (r, s, day[r, s, w]), 1)
    np.add.at(change, (r, s, day[r, s, w] + team.replacement_days), -1)
    return np.cumsum(change, axis=-1)[..., :horizon] == 0


def lognormal_factor(rng_z: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Lognormal factors of mean 1: ``exp(sigma z - sigma^2 / 2)``."""
    return np.exp(sigma * rng_z - sigma**2 / 2)


class Labelling:
    """One block's label steps: the state of every run and seat, advanced one task at a time."""

    def __init__(self, op: TeamOperation, ann: People, runs: int, horizon: int, rng) -> None:  # type: ignore[no-untyped-def]
        m, n, k = len(ann.people), op.n_items, op.labels_per_item
        self.op, self.ann, self.rng, self.m, self.n, self.k = op, ann, rng, m, n, k
        self.r = np.arange(runs)
        day_seconds = ann.day_seconds(op.team, horizon)
        if op.team.attrition_weekly > 0:
            mask = attrition_mask(op.team, rng, (runs, m, horizon))
            self.clock = Clock(capacity((day_seconds[None] * mask).reshape(runs * m, horizon)))
            self.row_base = self.r * m
        else:
            self.clock = Clock(capacity(day_seconds))
            self.row_base = np.zeros(runs, dtype=np.int64)
        strata = np.repeat(np.arange(len(op.items_per_stratum)), op.items_per_stratum)
        stratum_seconds = np.asarray(op.seconds_per_item, dtype=float)
        self.strata = np.stack([rng.permutation(strata) for _ in self.r]).astype(np.int16)
        self.item_seconds = stratum_seconds[self.strata]
        self.mean_label = float(stratum_seconds[strata].mean())
        advance = assigned_in_advance(op)
        self.fixed, self.n_fixed = lists_by_annotator(advance, m)
        self.first_pool = len(advance)
        self.rec = np.full((runs, n, k), -1, dtype=np.int16 if m < 2**15 else np.int32)
        self.rec[:, : len(advance)] = advance
        self.filled = np.zeros((runs, n), dtype=np.int16)
        self.done = np.zeros((runs, n))
        self.work = np.zeros((runs, m))
        rows = self.row_base[:, None] + np.arange(m)[None]
        self.next = self.clock.start_time(rows.ravel(), np.zeros(rows.size)).reshape(runs, m)
        self.ptr = np.zeros((runs, m), dtype=np.int64)
        self.last = np.full((runs, m), self.first_pool - 1, dtype=np.int64)
        self.head = np.full(runs, self.first_pool, dtype=np.int64)
        self.items = np.zeros((runs, m), dtype=np.int64)
        self.checks = np.zeros((runs, m), dtype=np.int64)
        self.last_end = np.zeros((runs, m))
        self.remaining = np.full(runs, n * k, dtype=np.int64)
        self.overflow = False
        # seats whose person has left within the horizon (an end date, no work in its last
        # week): a label they cannot finish is not theirs, and they take no more tasks
        idle_week = self.clock.capacity[:, -1] == self.clock.capacity[:, max(0, horizon - 7)]
        ended = np.array([p.end is not None for p in ann.people])
        self.left = ended[None] & idle_week.reshape(-1, m)  # (1 or runs) x seats
        self.idle = np.zeros((runs, m), dtype=bool)  # found no item to take (for now)
        self.let_go = np.zeros((runs, m), dtype=bool)  # a leaver's block items went back
        self.reopened = np.zeros(runs, dtype=np.int64)  # block labels given back, not retaken

    def _reopened_item(self, p: np.ndarray, want: np.ndarray) -> np.ndarray:
        """The first item given back by a leaver that seat ``p`` has not labelled (-1: none),
        for the runs in ``want``."""
        out = np.full(self.r.size, -1, dtype=np.int64)
        if not want.any():
            return out
        q = self.r[want]
        block = self.rec[q, : self.first_pool]
        free = (block == -1).any(axis=2) & ~(block == p[want][:, None, None]).any(axis=2)
        has = free.any(axis=1)
        out[q[has]] = free.argmax(axis=1)[has]
        return out

    def _release_leavers(self) -> None:
        """A seat whose person has left with block items still to label gives them back: their
        slot opens (``rec`` -1) for whoever is free next, and idle seats look again."""
        runs_left = np.broadcast_to(self.left, self.next.shape)
        todo = self.ptr < self.n_fixed[None]
        gone = np.isinf(self.next) & runs_left & todo & ~self.let_go
        for q, seat in zip(*np.nonzero(gone), strict=True):
            items = self.fixed[seat, self.ptr[q, seat] : self.n_fixed[seat]]
            slots = self.rec[q, items] == seat
            self.rec[q, items] = np.where(slots, -1, self.rec[q, items])
            self.reopened[q] += int(slots.sum())
            self.let_go[q, seat] = True
            woken = np.flatnonzero(self.idle[q])
            rows = self.row_base[q] + woken
            self.next[q, woken] = self.clock.start_time(rows, self.work[q, woken])
            self.idle[q, woken] = False

    def _pool_item(self, p: np.ndarray) -> np.ndarray:
        """The first open item after the seat's last (``n`` when there is none)."""
        r, n = self.r, self.n
        j = np.maximum(self.last[r, p] + 1, self.head)
        while True:
            full = (j < n) & (self.filled[r, np.minimum(j, n - 1)] >= self.k)
            if not full.any():
                return j
            j = j + full

    def _durations(self, p: np.ndarray, item: np.ndarray, draws: dict[str, np.ndarray]):  # type: ignore[no-untyped-def]
        ann = self.ann
        mean = self.item_seconds[self.r, item] * ann.mean_seconds[p]
        seconds = mean * lognormal_factor(draws["z"], ann.sigma[p]) if "z" in draws else mean
        checked = np.zeros(p.size, dtype=bool)
        if "check" in draws:
            checked = draws["check"] < ann.check_share[p]
            check_time = (
                self.mean_label * ann.mean_seconds[p] * lognormal_factor(draws["z2"], ann.sigma[p])
            )
            failed = checked & (draws["fail"] < ann.fail_rate[p])
            seconds = seconds + checked * check_time + failed * ann.requal_seconds[p]
        return seconds, checked

    def step(self, draws: dict[str, np.ndarray]) -> None:
        r = self.r
        p = np.argmin(self.next, axis=1)
        active = self.remaining > 0
        if (active & np.isinf(self.next[r, p])).any():  # no one can take the next task
            self.overflow = True
            return
        fixed_left = self.ptr[r, p] < self.n_fixed[p]
        fixed_item = self.fixed[p, np.minimum(self.ptr[r, p], self.fixed.shape[1] - 1)]
        back = self._reopened_item(p, active & ~fixed_left & (self.reopened > 0))
        pool = self._pool_item(p)
        take = active & (fixed_left | (back >= 0) | (pool < self.n))
        idle = active & ~take
        self.next[r[idle], p[idle]] = np.inf
        self.idle[r[idle], p[idle]] = True
        item = np.where(back >= 0, back, np.minimum(pool, self.n - 1))
        item = np.where(fixed_left, fixed_item, item)
        seconds, checked = self._durations(p, item, draws)
        work = self.work[r, p] + seconds
        rows = self.row_base + p
        end = self.clock.end_time(rows, work)
        gone = take & np.isinf(end) & self.left[np.minimum(r, self.left.shape[0] - 1), p]
        if gone.any():  # they left before finishing it: someone else takes the task
            self.next[r[gone], p[gone]] = np.inf
            take = take & ~gone
        if (take & np.isinf(end)).any():
            self.overflow = True
            return
        t, pt, it = r[take], p[take], item[take]
        self.work[t, pt] = work[take]
        self.next[t, pt] = self.clock.start_time(rows[take], work[take])
        self.items[t, pt] += 1
        self.checks[t, pt] += checked[take]
        self.last_end[t, pt] = end[take]
        self.done[t, it] = np.maximum(self.done[t, it], end[take])
        self.remaining[take] -= 1
        self.ptr[t, pt] += fixed_left[take]
        retaken = take & ~fixed_left & (back >= 0)
        if retaken.any():
            q, pq, bq = r[retaken], p[retaken], back[retaken]
            slot = np.argmax(self.rec[q, bq] == -1, axis=1)
            self.rec[q, bq, slot] = pq
            self.reopened[q] -= 1
        from_pool = take & ~fixed_left & (back < 0)
        if from_pool.any():
            q, pq, jq = r[from_pool], p[from_pool], pool[from_pool]
            self.last[q, pq] = jq
            self.rec[q, jq, self.filled[q, jq]] = pq
            self.filled[q, jq] += 1
            while True:
                head = np.minimum(self.head, self.n - 1)
                moves = (self.head < self.n) & (self.filled[r, head] >= self.k)
                if not moves.any():
                    break
                self.head += moves
        self._release_leavers()

    def labelled(self) -> Labelled:
        """The state after :meth:`run`, as the block's :class:`Labelled`."""
        return Labelled(
            people=self.ann.people,
            k=self.k,
            done=self.done,
            strata=self.strata,
            rec=self.rec,
            work=self.work,
            items=self.items,
            checks=self.checks,
            last_end=self.last_end,
            capacity=self.clock.capacity,
            row_base=self.row_base,
        )

    def run(self, progress: Callable[[float], None] | None) -> bool:
        """All label steps; False when the horizon was too short (or a run is stuck)."""
        runs = self.r.size
        ann = self.ann
        names = ["z"] if ann.sigma.any() else []
        if ann.check_share.any():
            names += ["check", "fail", "z2"]
        total = self.n * self.k
        steps = 0
        while self.remaining.any():
            block = {
                name: (
                    self.rng.standard_normal((_CHUNK, runs))
                    if name.startswith("z")
                    else self.rng.random((_CHUNK, runs))
                )
                for name in names
            }
            for s in range(_CHUNK):
                self.step({name: values[s] for name, values in block.items()})
                if self.overflow:
                    return False
                if not self.remaining.any():
                    break
            steps += _CHUNK
            if progress is not None:
                progress(min(steps / total, 1.0))
        return True


def _adjudicate(
    op: TeamOperation, adj: People, arrivals: np.ndarray, horizon: int, rng: np.random.Generator
) -> tuple[np.ndarray, ...] | None:
    """Contested items arriving at ``arrivals`` (runs x C, sorted, padded with inf) to the
    adjudicator who can start first. Returns end times (inf where padded), who adjudicated
    each, busy seconds and items per adjudicator, and their capacities; None when the
    horizon is too short."""
    runs, count = arrivals.shape
    a = len(adj.people)
    clock = Clock(capacity(adj.day_seconds(op.team, horizon)))
    rows = np.broadcast_to(np.arange(a), (runs, a))
    work = np.zeros((runs, a))
    busy = np.zeros((runs, a))
    items = np.zeros((runs, a), dtype=np.int64)
    ends = np.full((runs, count), np.inf)
    who_did = np.zeros((runs, count), dtype=np.int64)
    r = np.arange(runs)
    z = rng.standard_normal((count, runs)) if adj.sigma.any() else None
    for c in range(count):
        arrival = arrivals[:, c]
        valid = np.isfinite(arrival)
        if not valid.any():
            break
        at = np.where(valid, arrival, 0.0)
        begin = np.maximum(work, clock.work_at(rows, np.broadcast_to(at[:, None], (runs, a))))
        start = clock.start_time(rows, begin)
        who = np.argmin(start, axis=1)
        seconds = adj.mean_seconds[who]
        if z is not None:
            seconds = seconds * lognormal_factor(z[c], adj.sigma[who])
        done = begin[r, who] + seconds
        end = clock.end_time(who, done)
        if (valid & np.isinf(end)).any():
            return None
        v, w = r[valid], who[valid]
        work[v, w] = done[valid]
        busy[v, w] += seconds[valid]
        items[v, w] += 1
        ends[valid, c] = end[valid]
        who_did[valid, c] = w
    return ends, who_did, busy, items, clock.capacity


def _pairs_shared(rec: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Each run's fewest items shared by any pair of annotators (0 with one annotator), and
    each pair's fewest over the runs (``rec``: runs x items x k)."""
    shared = np.stack([shared_items(rec[i], m) for i in range(rec.shape[0])])
    if m < 2:
        return np.zeros(rec.shape[0], dtype=np.int64), shared.min(axis=0)
    off = ~np.eye(m, dtype=bool)
    return shared[:, off].min(axis=1), shared.min(axis=0)


def reduce_block(
    lab: Labelled, op: TeamOperation, adj: People, horizon: int, rng: np.random.Generator
) -> BatchRuns | None:
    """A labelled block with its adjudication, reduced to per-run numbers."""
    runs, n = lab.done.shape
    rates = np.asarray(op.contested_rate, dtype=float)
    contested = rng.random((runs, n)) < rates[lab.strata] if op.adjudicated else None
    a = len(adj.people)
    adj_busy = np.zeros((runs, a))
    adj_items = np.zeros((runs, a), dtype=np.int64)
    adj_capacity = np.zeros((a, horizon + 1))
    finish = lab.done.max(axis=1)
    last = [lab.people[int(i)].name for i in np.argmax(lab.last_end, axis=1)]
    ends = None
    if contested is not None and contested.any():
        counts = contested.sum(axis=1)
        arrivals = np.full((runs, max(int(counts.max()), 1)), np.inf)
        for i in range(runs):
            arrivals[i, : counts[i]] = np.sort(lab.done[i, contested[i]])
        out = _adjudicate(op, adj, arrivals, horizon, rng)
        if out is None:
            return None
        ends, who, adj_busy, adj_items, adj_capacity = out
        for i in range(runs):
            if counts[i] and ends[i, : counts[i]].max() > finish[i]:
                latest = int(np.argmax(ends[i, : counts[i]]))
                finish[i] = ends[i, latest]
                last[i] = adj.people[int(who[i, latest])].name
    finished = []
    for i in range(runs):
        times = lab.done[i]
        if ends is not None and contested is not None:
            times = np.concatenate([times[~contested[i]], ends[i, : int(contested[i].sum())]])
        finished.append(np.sort(finish_day(times)) + 1)
    through = np.minimum(finish_day(finish) + 1, horizon)
    rows = lab.row_base[:, None] + np.arange(lab.m)[None]
    min_shared, pair_min = _pairs_shared(lab.rec, lab.m)
    return BatchRuns(
        finish=finish,
        busy=lab.work.copy(),
        items=lab.items.copy(),
        checks=lab.checks.copy(),
        available=lab.capacity[rows, through[:, None]],
        adjudicator_busy=adj_busy,
        adjudicator_items=adj_items,
        adjudicator_available=adj_capacity[:, through].T,
        min_shared=min_shared,
        pair_min=pair_min,
        last_person=last,
        finished_days=finished,
    )


def rate_of(person: Person, op: TeamOperation) -> float | None:
    """A person's hourly rate: their own, else the budget's (None: no cost)."""
    return person_rate(person, op.hourly_rate)


def expected_label_seconds(op: TeamOperation) -> float:
    """Mean stratum seconds per label at the budget's speed (items-weighted)."""
    return float(np.dot(op.items_per_stratum, op.seconds_per_item)) / op.n_items
