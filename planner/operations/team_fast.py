"""The fast calendar-time computation of the next-free assignment, for large operations.

Under ``next-free`` a seat never waits for anyone: it starts its next task as soon as its own
calendar allows, and the queue decides only *which item* the task is for. So each seat's task
times are its own running sum of task durations, mapped through its calendar
(:class:`~planner.operations.calendar.Clock`), all at once, per seat; merged by start time
(ties to the first seat in the team's order) they give the order in which tasks are taken.
Only the choice of item is then stepped through, all runs of a block together, one item at a
time: each item takes the ``k`` seats whose next unused task starts first. That is the same
assignment as taking the tasks in start order, each to the first open item after its seat's
last one (the event model's rule), so without strata this is the event model's computation
in another order; stepping through items rather than tasks takes ``k`` times fewer steps.

A leaver (an ``end`` date, or ``without NAME@DATE``) who still holds overlap-block items they
could not label gives them back: after the pool, each given-back label goes to whoever, among
those who have not labelled the item, would finish it first after their last task (the event
model hands them out at the front of the queue instead; the totals agree, the order of the
work differs).

One simplification against the step-by-step event model
(:class:`planner.operations.team_schedule.Labelling`): a task's stratum (its mean time) is
drawn from the items' stratum mix rather than taken from the item it lands on, so with strata
the totals and dates agree in distribution, not draw by draw; an item's contested chance
follows its own stratum as there. Tests check the two against each other on small teams.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.operations.assignment import lists_by_annotator
from planner.operations.calendar import Clock, capacity
from planner.operations.team_schedule import (
    Labelled,
    People,
    TeamOperation,
    assigned_in_advance,
    attrition_mask,
    lognormal_factor,
)


def _task_seconds(
    ann: People, seat: int, count: int, seconds: np.ndarray, mean_label: float, rng
) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """``count`` task durations of one seat over item mean seconds ``seconds`` (one per task);
    and which tasks carried an attention check."""
    mean = seconds * ann.mean_seconds[seat]
    sigma = ann.sigma[seat]
    out = mean * lognormal_factor(rng.standard_normal(count), sigma) if sigma > 0 else mean.copy()
    checked = np.zeros(count, dtype=bool)
    if ann.check_share[seat] > 0:
        checked = rng.random(count) < ann.check_share[seat]
        check_time = (
            mean_label
            * ann.mean_seconds[seat]
            * lognormal_factor(rng.standard_normal(count), sigma)
        )
        failed = checked & (rng.random(count) < ann.fail_rate[seat])
        out += checked * check_time + failed * ann.requal_seconds[seat]
    return out, checked


class _FastRun:
    """One run of the fast computation (its seats' tasks drawn, merged and assigned)."""

    def __init__(self, op: TeamOperation, ann: People, clock: Clock, base: int, rng) -> None:  # type: ignore[no-untyped-def]
        self.op, self.ann, self.clock, self.base, self.rng = op, ann, clock, base, rng
        self.m, self.n, self.k = len(ann.people), op.n_items, op.labels_per_item
        strata = np.repeat(np.arange(len(op.items_per_stratum)), op.items_per_stratum)
        self.strata = rng.permutation(strata).astype(np.int16)
        self.stratum_seconds = np.asarray(op.seconds_per_item, dtype=float)
        self.mean_label = float(self.stratum_seconds[strata].mean())

    def fixed(self, advance: np.ndarray, left: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """Each seat's tasks assigned in advance: work, items, checks, last end, done times,
        and which seat gave back each block item it could not label (-1: none), since its
        person had left (``left``, per seat). None when the horizon ends first."""
        table, counts = lists_by_annotator(advance, self.m)
        work = np.zeros(self.m)
        checks = np.zeros(self.m, dtype=np.int64)
        last_end = np.zeros(self.m)
        done = np.zeros(self.n)
        given = np.full(len(advance), -1, dtype=np.int64)
        counts = counts.astype(np.int64)
        for seat in range(self.m):
            mine = table[seat, : counts[seat]]
            if not mine.size:
                continue
            seconds = self.stratum_seconds[self.strata[mine]]
            dur, checked = _task_seconds(
                self.ann, seat, mine.size, seconds, self.mean_label, self.rng
            )
            ends = self.clock.end_time(np.full(mine.size, self.base + seat), np.cumsum(dur))
            ok = np.isfinite(ends)
            if not ok.all():
                if not left[seat]:
                    return None
                given[mine[~ok]] = seat
                mine, dur, checked, ends = mine[ok], dur[ok], checked[ok], ends[ok]
                counts[seat] = mine.size
                if not mine.size:
                    continue
            np.maximum.at(done, mine, ends)
            work[seat], checks[seat], last_end[seat] = dur.sum(), checked.sum(), ends[-1]
        return work, counts, checks, last_end, done, given

    def seat_tasks(self, seat: int, after: float, count: int) -> tuple[np.ndarray, ...]:
        """``count`` more tasks of ``seat`` once it has worked ``after`` seconds: start, end,
        duration, checked."""
        seconds = self.stratum_seconds[self.strata][self.rng.integers(0, self.n, count)]
        dur, checked = _task_seconds(self.ann, seat, count, seconds, self.mean_label, self.rng)
        done = after + np.cumsum(dur)
        rows = np.full(count, self.base + seat)
        return (
            self.clock.start_time(rows, done - dur),
            self.clock.end_time(rows, done),
            dur,
            checked,
        )


def _budgets(op: TeamOperation, ann: People, labels: int) -> np.ndarray:
    """Tasks to draw per seat: its share of the labels by speed, with room to spare."""
    weekly = np.array([p.hours_per_day * len(p.days) for p in ann.people]) / ann.mean_seconds
    share = weekly / weekly.sum()
    return np.minimum(op.n_items, np.ceil(labels * share * 1.25 + 20)).astype(np.int64)


def fast_block(
    op: TeamOperation,
    ann: People,
    runs: int,
    horizon: int,
    rng: np.random.Generator,
    tick: Callable[[float], None] | None = None,
) -> Labelled | None:
    """A block of ``runs`` by the fast computation; None when the horizon is too short.

    ``tick(share)`` is called with the share of the block done (for a progress bar).
    """
    m, n, k = len(ann.people), op.n_items, op.labels_per_item
    day_seconds = ann.day_seconds(op.team, horizon)
    if op.team.attrition_weekly > 0:
        mask = attrition_mask(op.team, rng, (runs, m, horizon))
        clock = Clock(capacity((day_seconds[None] * mask).reshape(runs * m, horizon)))
        row_base = np.arange(runs) * m
    else:
        clock = Clock(capacity(day_seconds))
        row_base = np.zeros(runs, dtype=np.int64)
    advance = assigned_in_advance(op)
    left = _left_rows(op, clock, horizon)
    out: dict[str, np.ndarray] = {
        "done": np.zeros((runs, n)),
        "strata": np.zeros((runs, n), dtype=np.int16),
        "rec": np.full((runs, n, k), -1, dtype=np.int32),
        "work": np.zeros((runs, m)),
        "items": np.zeros((runs, m), dtype=np.int64),
        "checks": np.zeros((runs, m), dtype=np.int64),
        "last_end": np.zeros((runs, m)),
    }
    out["rec"][:, : len(advance)] = advance
    spare = max(m * k, n * k // 20)  # seats that find no open item waste tasks near the end
    while True:
        got = _labelled_runs(op, ann, (clock, row_base, left), advance, out, rng, spare, tick)
        if got is None:
            return None
        if not got or _assign_pool(got, out, len(advance), k, tick):
            break
        if spare >= n * k:
            return None
        spare *= 4  # seats that found no open item wasted their tasks: draw more
    if (out["rec"] < 0).any() and not _retake(op, ann, clock, row_base, out, rng):
        return None
    return Labelled(people=ann.people, k=k, capacity=clock.capacity, row_base=row_base, **out)


def _left_rows(op: TeamOperation, clock: Clock, horizon: int) -> np.ndarray:
    """Per clock row: its person has left within the horizon (an end date, and no working
    time in the horizon's last week)."""
    m = len(op.team.annotators)
    ended = np.array([p.end is not None for p in op.team.annotators])
    idle_week = clock.capacity[:, -1] == clock.capacity[:, max(0, horizon - 7)]
    return np.tile(ended, clock.capacity.shape[0] // m) & idle_week


def _retake(
    op: TeamOperation,
    ann: People,
    clock: Clock,
    row_base: np.ndarray,
    out: dict[str, np.ndarray],
    rng: np.random.Generator,
) -> bool:
    """Give the block labels a leaver gave back (``rec`` -1) to whoever, among those who have
    not labelled the item, would finish it first after their last task (all runs at once, one
    given-back label at a time). False when someone's is left for no one."""
    runs, m = out["work"].shape
    rec = out["rec"]
    holes = [np.argwhere(rec[i] < 0) for i in range(runs)]
    rows = row_base[:, None] + np.arange(m)[None]
    seconds = np.asarray(op.seconds_per_item, dtype=float)
    mean_label = float(np.dot(op.items_per_stratum, seconds)) / op.n_items
    r = np.arange(runs)
    for h in range(max(len(x) for x in holes)):
        valid = np.array([h < len(x) for x in holes])
        item = np.array([x[h, 0] if h < len(x) else 0 for x in holes])
        slot = np.array([x[h, 1] if h < len(x) else 0 for x in holes])
        item_seconds = seconds[out["strata"][r, item]]
        dur, checked = np.zeros((runs, m)), np.zeros((runs, m), dtype=bool)
        for seat in range(m):
            dur[:, seat], checked[:, seat] = _task_seconds(
                ann, seat, runs, item_seconds, mean_label, rng
            )
        end = clock.end_time(rows, out["work"] + dur)
        holder = (rec[r, item][:, :, None] == np.arange(m)[None, None]).any(axis=1)
        end = np.where(holder, np.inf, end)
        who = np.argmin(end, axis=1)
        best = end[r, who]
        if (valid & np.isinf(best)).any():
            return False
        v, w = r[valid], who[valid]
        out["work"][v, w] += dur[v, w]
        out["items"][v, w] += 1
        out["checks"][v, w] += checked[v, w]
        out["last_end"][v, w] = np.maximum(out["last_end"][v, w], best[valid])
        out["done"][v, item[valid]] = np.maximum(out["done"][v, item[valid]], best[valid])
        rec[v, item[valid], slot[valid]] = w
    return True


def _labelled_runs(
    op: TeamOperation,
    ann: People,
    calendar: tuple[Clock, np.ndarray, np.ndarray],
    advance: np.ndarray,
    out: dict[str, np.ndarray],
    rng: np.random.Generator,
    spare: int,
    tick: Callable[[float], None] | None = None,
) -> list[tuple[np.ndarray, ...]] | None:
    """Each run's tasks assigned in advance (into ``out``; a leaver's unlabelled block items
    get ``rec`` -1) and its pool tasks in start order. ``calendar``: the clock, each run's
    first row in it and which rows' people have left."""
    n, m = op.n_items, len(ann.people)
    clock, row_base, left = calendar
    sequences = []
    for i in range(row_base.size):
        run = _FastRun(op, ann, clock, int(row_base[i]), rng)
        fixed = run.fixed(advance, left[row_base[i] : row_base[i] + m])
        if fixed is None:
            return None
        keys = ("work", "items", "checks", "last_end", "done")
        for key, value in zip(keys, fixed[:5], strict=True):
            out[key][i] = value
        given = fixed[5]
        out["rec"][i, : len(advance)] = advance
        gave = np.flatnonzero(given >= 0)
        out["rec"][i, gave] = np.where(
            out["rec"][i, gave] == given[gave, None], -1, out["rec"][i, gave]
        )
        out["strata"][i] = run.strata
        if n > len(advance):
            got = _pool(run, op, ann, fixed[0], n - len(advance), spare)
            if got is None:
                return None
            sequences.append(got)
        if tick is not None:
            tick(0.5 * (i + 1) / row_base.size)
    return sequences


def _pool(
    run: _FastRun, op: TeamOperation, ann: People, first: np.ndarray, n_pool: int, spare: int
) -> tuple[np.ndarray, ...] | None:
    """The pool's tasks of one run in start order: seat, end, duration, checked (the first
    ``n k`` tasks and ``spare`` more for seats that find no open item); None when the
    horizon ends first."""
    labels = n_pool * op.labels_per_item
    budget = _budgets(op, ann, labels + spare)
    m = len(ann.people)
    parts = [list(run.seat_tasks(seat, first[seat], int(budget[seat]))) for seat in range(m)]
    while True:
        seats = np.repeat(np.arange(m), [part[0].size for part in parts])
        starts, ends, durs, checked = (np.concatenate([p[i] for p in parts]) for i in range(4))
        # a task that cannot end (its seat's person left, or the horizon ends, mid-task) is
        # never started: someone else labels that item, or the horizon grows
        starts = np.where(np.isinf(ends), np.inf, starts)
        order = np.argsort(starts, kind="stable")[: labels + spare]
        counts = np.bincount(seats[order], minlength=m)
        open_ended = np.array([np.isfinite(part[0][-1]) for part in parts])  # not past the horizon
        short = np.flatnonzero((counts >= budget) & (budget < op.n_items) & open_ended)
        if not short.size:
            if order.size < labels or np.isinf(starts[order[:labels]]).any():
                return None  # the horizon ends before the labels do
            break
        for seat in short:  # draw as many again, after the seat's last task so far
            extra = int(min(op.n_items, 2 * budget[seat]) - budget[seat])
            worked = first[seat] + float(parts[seat][2].sum())
            more = run.seat_tasks(int(seat), worked, extra)
            parts[seat] = [
                np.concatenate([old, new]) for old, new in zip(parts[seat], more, strict=True)
            ]
            budget[seat] += extra
    small = np.int16 if m < 2**15 else np.int32
    return seats[order].astype(small), ends[order], durs[order].astype(np.float32), checked[order]


def _successors(sequences: list[tuple[np.ndarray, ...]], m: int) -> tuple[np.ndarray, ...]:
    """Per run, each task's place in start order -> the place of its seat's next task
    (``runs x (longest + m)``; a seat's last task, or one that cannot end, leads to
    ``longest + seat``, which leads to itself), and each seat's first task's place."""
    runs = len(sequences)
    longest = max(seq[0].size for seq in sequences)
    succ = np.empty((runs, longest + m), dtype=np.int32)
    heads = np.empty((runs, m), dtype=np.int32)
    for i, (seats, ends, _, _) in enumerate(sequences):
        usable = np.flatnonzero(np.isfinite(ends))
        order = usable[np.argsort(seats[usable], kind="stable")]  # by seat, in start order
        by = seats[order].astype(np.int64)
        then_same = np.r_[by[1:] == by[:-1], False]
        succ[i, :longest] = longest  # padding and tasks that cannot end: never reached
        succ[i, order] = np.where(then_same, np.r_[order[1:], 0], longest + by)
        succ[i, longest:] = longest + np.arange(m)
        opens = np.r_[True, ~then_same[:-1]] if by.size else np.zeros(0, dtype=bool)
        heads[i] = longest + np.arange(m)
        heads[i, by[opens]] = order[opens]
    return succ, heads


def _assign_pool(
    sequences: list[tuple[np.ndarray, ...]],
    out: dict[str, np.ndarray],
    first: int,
    k: int,
    tick: Callable[[float], None] | None = None,
) -> bool:
    """Give each pool item, in queue order, the ``k`` seats whose next unused task starts
    first (ties to the first seat); fill ``out``. False when some run's tasks ran out.

    The same assignment as taking the tasks in start order, each to the first open item
    after its seat's last one: a seat's tasks go to increasing items, and an item's labels
    are the earliest tasks not taken by an earlier item, at most one per seat. Stepping
    through items (not tasks) takes ``n - first`` numpy steps over runs x seats, each a
    partial sort of the seats' next tasks and two gathers.
    """
    runs, n = out["done"].shape
    m = out["work"].shape[1]
    succ, heads = _successors(sequences, m)
    width = succ.shape[1]
    limit = width - m
    seat_of = np.tile(np.arange(m, dtype=np.int32), (runs, -(-width // m)))[:, :width].copy()
    for i, seq in enumerate(sequences):
        seat_of[i, : seq[0].size] = seq[0]
        seat_of[i, limit:] = np.arange(m)
    flat_succ, flat_seat = succ.reshape(-1), seat_of.reshape(-1)
    flat_heads = heads.reshape(-1)
    seat_row = (np.arange(runs, dtype=np.int32) * m)[:, None]
    task_row = (np.arange(runs, dtype=np.int64) * width)[:, None]
    used = np.zeros((n - first, runs, k), dtype=np.int32)
    for j in range(n - first):  # the k earliest next tasks (places are unique in a run)
        took = np.sort(heads, axis=1)[:, :k]
        used[j] = took
        task = task_row + took
        flat_heads[seat_row + flat_seat[task]] = flat_succ[task]
        if tick is not None and j % 8192 == 8191:
            tick(0.5 + 0.5 * j / (n - first))
    if used.max(initial=0) >= limit:
        return False  # a seat's tasks ran out before the labels did
    rec = out["rec"]
    it = np.repeat(np.arange(first, n), k)
    for i, (seats_i, ends, durs, checked) in enumerate(sequences):
        task = np.sort(used[:, i], axis=1).ravel()
        who = seats_i[task]
        np.maximum.at(out["done"][i], it, ends[task])
        out["items"][i] += np.bincount(who, minlength=m)
        out["work"][i] += np.bincount(who, weights=durs[task].astype(float), minlength=m)
        out["checks"][i] += np.bincount(who, weights=checked[task], minlength=m).astype(np.int64)
        np.maximum.at(out["last_end"][i], who, ends[task])
        rec[i, first:] = who.reshape(n - first, k)
    return True
