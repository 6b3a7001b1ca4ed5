"""A tournament: the schedule of colour-swapped pairs, the executor that plays them (Dask or
threads), the results store, the PGN output, live progress and the SPRT stop.

The unit of work is one pair of games on one opening (`referee.play_pair`): a thread by
default, or a Dask task when a cluster is asked for (`-cluster local`: a `LocalCluster` in
this process; `-cluster tcp://HOST:8786`: a remote scheduler).  Before any pair is
scheduled every engine is started once, its options set and its rule set checked, so an
unusable engine is one error, not a failed task per pair.  The driver stores every finished
pair in SQLite before it counts it, appends its games to the PGN file, prints progress, and
cancels the rest when the SPRT is decided.  Nothing here knows the rules of chess: every
move was checked by the referee with `engine.Game`.
"""

from __future__ import annotations

import concurrent.futures
import logging
import random
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable, TextIO

from .engines import ConfigError, EngineConfig, check_engine
from .openings import OpeningsSpec, load, sequence
from .progress import progress_bar
from .referee import GameRecord, Opening, RefereeSettings, play_pair
from .report import Summary, format_progress, format_summary, summarize
from .stats import SprtSettings
from .store import Store, StoreError, append_pgn


@dataclass(frozen=True)
class TournamentConfig:
    """A whole tournament as the command line describes it."""

    engines: tuple[EngineConfig, ...]
    variant: str = "chess"
    games: int = 1
    rounds: int = 1
    kind: str = "round-robin"  # or gauntlet
    openings: OpeningsSpec | None = None
    sprt: SprtSettings | None = None
    referee: RefereeSettings = field(default_factory=RefereeSettings)
    srand: int | None = None
    recover: bool = False
    event: str = "?"
    site: str = "?"
    # how it is run (not part of the tournament's identity)
    concurrency: int = 1
    cluster: str | None = None  # None or "threads": threads; "local" or an address: Dask
    db: str | None = None
    pgnout: str | None = None

    @property
    def games_per_encounter(self) -> int:
        """Games each encounter plays: -games x -rounds."""
        return self.games * self.rounds

    def identity(self) -> dict:
        """What makes two runs the same tournament (compared on resume).  The number of
        games is not part of it: a stored tournament may be extended with more."""
        ref = self.referee
        return {
            "engines": [e.describe() for e in self.engines], "variant": self.variant,
            "kind": self.kind,
            "openings": self.openings.describe() if self.openings else None,
            "sprt": [self.sprt.elo0, self.sprt.elo1, self.sprt.alpha, self.sprt.beta] if self.sprt else None,
            "referee": {"maxmoves": ref.maxmoves, "repetition": ref.repetition,
                        "draw": [ref.draw.movenumber, ref.draw.movecount, ref.draw.score] if ref.draw else None,
                        "resign": [ref.resign.movecount, ref.resign.score, ref.resign.twosided] if ref.resign else None},
            "event": self.event,
        }

    def validate(self) -> None:
        """Raise ConfigError for settings no tournament can run with."""
        from engine import RuleError, get_rule_set

        try:
            get_rule_set(self.variant)
        except RuleError as error:
            raise ConfigError(str(error)) from None
        if len(self.engines) < 2:
            raise ConfigError("a tournament needs at least two engines")
        names = [e.name for e in self.engines]
        if len(set(names)) != len(names):
            raise ConfigError("engine names must be different (use name=)")
        if self.games < 1 or self.rounds < 1:
            raise ConfigError("-games and -rounds must be at least 1")
        if self.kind not in ("round-robin", "gauntlet"):
            raise ConfigError(f"-tournament must be round-robin or gauntlet, got {self.kind!r}")
        if self.concurrency < 1:
            raise ConfigError("-concurrency must be at least 1")
        if self.sprt is not None and len(self.engines) != 2:
            raise ConfigError("-sprt needs exactly two engines")


@dataclass(frozen=True)
class PairJob:
    """One scheduled pair: the two engines (configs[0] is White in slot 0), the opening,
    and the slots still to play.  Picklable, so a Dask worker can run it."""

    index: int
    round: int
    a: int
    b: int
    configs: tuple[EngineConfig, EngineConfig]
    variant: str
    opening: Opening
    referee: RefereeSettings
    slots: tuple[int, ...]
    event: str = "?"
    site: str = "?"


def encounters(n: int, kind: str) -> list[tuple[int, int]]:
    """Engine index pairs that meet: all pairs (round robin) or the first against the rest."""
    if kind == "gauntlet":
        return [(0, j) for j in range(1, n)]
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def schedule(config: TournamentConfig, openings: list[Opening], seed: int) -> list[PairJob]:
    """Every pair of the tournament, in the order they are handed out.

    Each encounter plays games x rounds games, in pairs on one opening with colours swapped
    (an odd total ends with a single game).  Pairs of different encounters alternate.
    """
    meet = encounters(len(config.engines), config.kind)
    total = config.games * config.rounds
    per_encounter = (total + 1) // 2
    plan = []
    for k in range(per_encounter):
        slots = (0, 1) if 2 * k + 1 < total else (0,)
        for a, b in meet:
            plan.append((k, a, b, slots))
    spec = config.openings
    chosen = sequence(openings, len(plan), spec.order if spec else "sequential",
                      spec.start if spec else 1, seed)
    jobs = []
    for index, ((k, a, b, slots), opening) in enumerate(zip(plan, chosen)):
        jobs.append(PairJob(index=index, round=k + 1, a=a, b=b,
                            configs=(config.engines[a], config.engines[b]),
                            variant=config.variant, opening=opening, referee=config.referee,
                            slots=slots, event=config.event, site=config.site))
    return jobs


def run_job(job: PairJob, should_stop: Callable[[], bool] | None = None) -> list[GameRecord]:
    """Play a PairJob and label its records (the function a worker runs)."""
    records = play_pair(job.configs, job.variant, job.opening, job.referee, job.slots,
                        {"Event": job.event, "Site": job.site, "Round": str(job.index + 1)},
                        should_stop)
    for record in records:
        record.pair = job.index
        record.round = job.round
        record.engine_a = job.configs[0].name
        record.engine_b = job.configs[1].name
    return records


# The stop flags of runs whose Dask workers live in this process (`-cluster local`), by the
# name of the run's Dask Event: a task running here reads the flag directly, so that a stop
# reaches it at once, even while the cluster is being closed.
_LOCAL_STOPS: dict[str, threading.Event] = {}


def _dask_task(job: PairJob, stop_name: str) -> list[GameRecord]:
    """run_job on a Dask worker, polling the run's stop Event at most once a second (or
    reading the flag of a run in the same process)."""
    local = _LOCAL_STOPS.get(stop_name)
    if local is not None:
        return run_job(job, local.is_set)
    from distributed import Event

    event = Event(stop_name)
    state = {"checked": 0.0, "stop": False}

    def should_stop() -> bool:
        now = time.monotonic()
        if now - state["checked"] >= 1.0:
            state["checked"] = now
            try:
                state["stop"] = event.is_set()
            except Exception:  # the scheduler went away: finish the pair
                state["stop"] = False
        return state["stop"]

    return run_job(job, should_stop)


def check_engines(engines: tuple[EngineConfig, ...], variant: str) -> None:
    """Start every engine once (at the same time), complete its handshake, set its options
    and check that it plays `variant`; ConfigError naming the first one that cannot be used.
    Ctrl-C here stops the engines being checked at once."""
    stop = threading.Event()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(len(engines), 4),
                                                 thread_name_prefix="check")
    try:
        problems = list(pool.map(lambda config: check_engine(config, variant, stop.is_set), engines))
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    for problem in problems:
        if problem is not None:
            raise ConfigError(problem)


def _dask_check(engines: tuple[EngineConfig, ...], variant: str) -> list[str | None]:
    """check_engine for every engine, on a Dask worker (where the engines are); the reasons
    come back as values, so a worker logs no failed task."""
    return [check_engine(config, variant) for config in engines]


class _ThreadExecutor:
    """Pairs on local threads (no Dask)."""

    def __init__(self, workers: int):
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pair")
        self.stop_event = threading.Event()
        self.workers = workers

    def submit(self, job: PairJob):
        return self.pool.submit(run_job, job, self.stop_event.is_set)

    def wait_any(self, futures: set, timeout: float):
        done, _ = concurrent.futures.wait(futures, timeout=timeout,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        return done

    def result(self, future):
        return future.result()

    def stop(self, futures) -> None:
        """Stop the running pairs (they end within INTERRUPT_POLL, unstored) and the queued."""
        self.stop_event.set()
        for future in futures:
            future.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _QuietDistributed:
    """Dask's own log lines off while an in-process cluster runs: its workers would print a
    task dump for a failed pair and a warning for every pair cancelled by a stop, and the
    tournament reports both itself."""

    def __init__(self):
        self.saved: dict[str, int] = {}
        names = ["distributed"] + [name for name in logging.root.manager.loggerDict
                                   if name.startswith("distributed.")]
        for name in names:
            logger = logging.getLogger(name)
            self.saved[name] = logger.level
            logger.setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        for name, level in self.saved.items():
            logging.getLogger(name).setLevel(level)


class _DaskExecutor:
    """Pairs as Dask tasks on an in-process LocalCluster (address None) or a remote scheduler."""

    def __init__(self, address: str | None, workers: int):
        try:
            from distributed import Client, Event, LocalCluster
        except ImportError:
            raise ConfigError("-cluster needs Dask: pip install 'antichess-engine[tournaments]' "
                              "(or leave -cluster out to play on local threads)") from None
        self.cluster = None
        self.quiet = None
        if address is None:
            self.quiet = _QuietDistributed()
            try:
                # no dashboard; its HTTP server on a free loopback port (8787 may be taken)
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=False,
                                            dashboard_address="127.0.0.1:0")
                self.client = Client(self.cluster)
            except BaseException:
                self._close_cluster()
                raise
        else:
            try:
                self.client = Client(address, timeout=30)
            except (OSError, TimeoutError) as error:
                raise ConfigError(f"cannot reach the Dask scheduler {address}: {error}") from None
        self.stop_name = f"tournament-stop-{uuid.uuid4().hex}"
        self.event = Event(self.stop_name, client=self.client)
        self.local_stop = None
        if address is None:
            self.local_stop = _LOCAL_STOPS[self.stop_name] = threading.Event()
        self.workers = max(1, sum(self.client.nthreads().values())) if address else workers

    def check_engines(self, engines: tuple[EngineConfig, ...], variant: str) -> None:
        """check_engines on a worker of the cluster (where the pairs will be played)."""
        future = self.client.submit(_dask_check, engines, variant, pure=False,
                                    key=f"check-engines-{uuid.uuid4().hex[:8]}")
        for problem in future.result():
            if problem is not None:
                raise ConfigError(problem)

    def submit(self, job: PairJob):
        return self.client.submit(_dask_task, job, self.stop_name, pure=False,
                                  key=f"pair-{job.index}-{uuid.uuid4().hex[:8]}")

    def wait_any(self, futures: set, timeout: float):
        from distributed import wait

        try:
            result = wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        except concurrent.futures.CancelledError:
            # Dask's wait() raises when a task is cancelled: count those as finished (their
            # result() raises CancelledError, which the caller skips).
            return {f for f in futures if f.cancelled() or f.done()}
        return set(result.done)

    def result(self, future):
        return future.result()

    def stop(self, futures) -> None:
        if self.local_stop is not None:
            self.local_stop.set()
        try:
            self.event.set()
            pending = [f for f in futures if not f.done()]
            if pending:
                self.client.cancel(pending)
        except Exception:  # the scheduler has gone: nothing is left to stop
            pass

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            self._close_cluster()

    def _close_cluster(self) -> None:
        try:
            if self.cluster is not None:
                self.cluster.close()
        finally:
            _LOCAL_STOPS.pop(getattr(self, "stop_name", ""), None)
            if self.quiet is not None:
                self.quiet.restore()


def make_executor(cluster: str | None, concurrency: int):
    """The executor for `-cluster`: threads (no -cluster, or `threads`), a Dask LocalCluster
    in this process (`local`), or a Dask scheduler's address."""
    if cluster in (None, "threads"):
        return _ThreadExecutor(concurrency)
    if cluster == "local":
        return _DaskExecutor(None, concurrency)
    return _DaskExecutor(cluster, concurrency)


def _planned_size(jobs: list[PairJob], encounters_count: int, done: dict[int, set[int]]) -> int | None:
    """None if every stored game is in the schedule `jobs`, else how many games per
    encounter the store already holds (a run asked for fewer)."""
    planned = {(job.index, slot) for job in jobs for slot in job.slots}
    stored = [(pair, slot) for pair, slots in done.items() for slot in slots]
    if all(key in planned for key in stored):
        return None
    return max(2 * (pair // encounters_count) + slot + 1 for pair, slot in stored)


def run(config: TournamentConfig, out: TextIO | None = None, progress: bool | None = None) -> Summary:
    """Run (or resume, or extend) the tournament; returns the final summary.

    With a database (`config.db`) the tournament can be killed at any moment and run again
    with the same arguments: the stored pairs are kept and only the missing ones are played.
    Run again with more games (-games, -rounds) it is extended: the stored games count, and
    only the new ones are played, on the openings they would have had from the start.
    Before a pair is scheduled, every engine is checked (`check_engines`): an engine that
    cannot be used is a ConfigError, and no game is played.
    `progress`: draw a progress bar on stderr (tournaments.progress); by default when stderr
    is a terminal and no engine traces its protocol lines there (`-debug`).  The lines
    written to `out` are the same either way.
    """
    out = sys.stdout if out is None else out
    config.validate()
    openings = load(config.openings, config.variant) if config.openings else []
    seed = config.srand if config.srand is not None else random.SystemRandom().randrange(1, 2**31)
    store = Store(config.db) if config.db else Store(":memory:")
    try:
        seed = store.bind(config.identity(), seed, config.games_per_encounter)
        jobs = schedule(config, openings, seed)
        done = store.done_slots()
        held = _planned_size(jobs, len(encounters(len(config.engines), config.kind)), done)
        if held is not None:
            raise StoreError(f"{config.db} holds {held} games per encounter, more than this run's "
                             f"{config.games_per_encounter} (-games x -rounds); ask for at least {held}")
        todo = []
        for job in jobs:
            missing = tuple(s for s in job.slots if s not in done.get(job.index, set()))
            if missing:
                todo.append(PairJob(**{**job.__dict__, "slots": missing}))
        names = [e.name for e in config.engines]
        total_games = sum(len(j.slots) for j in jobs)
        if config.pgnout:
            append_pgn(store, config.pgnout)
        stored = store.games()
        if stored:
            print(f"Resuming: {len(stored)} of {total_games} games already played", file=out)
        summary = summarize(stored, names, config.sprt)
        if summary.sprt_decision is not None or not todo:
            if summary.sprt_decision is not None and todo:
                print("SPRT already decided; nothing left to play", file=out)
        else:
            remote = config.cluster not in (None, "threads", "local")
            if not remote:
                check_engines(config.engines, config.variant)
            executor = make_executor(config.cluster, config.concurrency)
            try:
                if remote:
                    executor.check_engines(config.engines, config.variant)
                if progress is None and any(e.debug for e in config.engines):
                    progress = False  # -debug writes protocol lines on stderr, through any bar
                bar = progress_bar(total_games, len(stored), summary, out, progress)
                try:
                    _play(config, executor, store, todo, names, total_games, out, bar)
                finally:
                    bar.close()
            finally:
                executor.close()
        summary = summarize(store.games(), names, config.sprt)
        print(format_summary(summary, config.kind), file=out)
        return summary
    finally:
        store.close()


def _play(config, executor, store, todo, names, total_games, out, bar) -> None:
    window = max(1, executor.workers) * 2
    queue = list(todo)
    queue.reverse()
    running: dict = {}
    stop_reason = None
    try:
        while queue or running:
            while queue and len(running) < window and stop_reason is None:
                job = queue.pop()
                running[executor.submit(job)] = job
            if not running:
                break
            finished = executor.wait_any(set(running), timeout=1.0)
            bar.tick()
            for future in finished:
                job = running.pop(future)
                try:
                    records = executor.result(future)
                except ConfigError:
                    executor.stop(list(running))
                    raise
                except concurrent.futures.CancelledError:  # Dask's cancellation errors too
                    continue
                except Exception as error:  # a worker failed: the pair is not counted
                    if type(error).__name__ == "CancelledError":  # asyncio's, from a worker
                        continue
                    with bar.lines():
                        print(f"Warning: pair {job.index + 1} failed ({type(error).__name__}: {error}); "
                              "it will be played on resume", file=out)
                    continue
                if stop_reason is not None and len(records) < len(job.slots):
                    continue
                if len(records) != len(job.slots):
                    continue  # abandoned by a stop: not stored, not counted
                store.add_games(records)
                if config.pgnout:
                    append_pgn(store, config.pgnout)
                games = store.games()
                summary = summarize(games, names, config.sprt)
                with bar.lines():
                    for record in records:
                        print(f"Finished game {job.index + 1}.{record.slot + 1} ({record.white} vs "
                              f"{record.black}): {record.result} {{{record.reason}}}", file=out)
                    print(format_progress(summary, len(games), total_games), file=out)
                    out.flush()
                bar.update(len(games), summary)
                if stop_reason is None and summary.sprt_decision is not None:
                    stop_reason = "sprt"
                    with bar.lines():
                        print(f"SPRT: {summary.sprt_decision} accepted; cancelling the remaining games",
                              file=out)
                    executor.stop(list(running))
                    queue.clear()
                crashed = [r for r in records if r.forfeit in ("crash", "stall")]
                if stop_reason is None and crashed and not config.recover:
                    stop_reason = "crash"
                    with bar.lines():
                        print("An engine crashed or stalled and -recover is off: stopping "
                              "(run again to resume)", file=out)
                    executor.stop(list(running))
                    queue.clear()
    except BaseException:
        executor.stop(list(running))  # Ctrl-C or an error: abandon running pairs, store nothing more
        raise
