"""Keeps a ``RepoIndex`` equal to the filesystem, on top of ``watchfiles.awatch``.

Events are reduced to a set of relative paths, re-read off the loop when the batch
is large (``asyncio.to_thread``) and applied to the index on the loop, so readers on
the loop never see a half-applied change. A ``.gitignore`` change re-lists the tree.

``awatch`` is run with ``yield_on_timeout``: an empty yield means the notifier saw
no event for ``rust_timeout`` ms. Two such ticks after a call to ``settle()`` prove
that everything written before the call has been applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import stat
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from watchfiles import awatch

from agentls.indexer.builder import RepoIndexer, apply_scans
from agentls.indexer.ignore import GITIGNORE
from agentls.indexer.index import RepoIndex
from agentls.indexer.walker import KEPT_AS_OTHER, Scanned, walk_candidates

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChangeBatch:
    """What one applied batch changed, as workspace-relative paths (sorted).

    Paths cover every existing file the index knows, text or not (binary, too large).
    """

    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    generation: int = 0

    def __bool__(self) -> bool:
        return bool(self.added or self.modified or self.deleted)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(sorted((*self.added, *self.modified, *self.deleted)))


Subscriber = Callable[[ChangeBatch], Awaitable[None] | None]


@dataclass
class _Plan:
    """Filesystem facts for a set of paths, gathered off the loop."""

    scans: list[Scanned] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)  # paths (files or dirs) no longer present
    # A directory that appeared (or was moved in): its candidate files were scanned;
    # anything known below it but not listed now must go.
    dirs: list[tuple[str, set[str]]] = field(default_factory=list)
    relist: set[str] | None = None  # all candidates after a .gitignore change


class _Accumulator:
    def __init__(self, index: RepoIndex) -> None:
        self.index = index
        self.added: set[str] = set()
        self.modified: set[str] = set()
        self.deleted: set[str] = set()

    def before(self, path: str) -> bool:
        return self.index.known(path)

    def after(self, path: str, was: bool) -> None:
        now = self.index.known(path)
        if was and now:
            self.modified.add(path)
        elif now:
            self.added.add(path)
            self.deleted.discard(path)
        elif was:
            self.deleted.add(path)
            self.added.discard(path)

    def batch(self) -> ChangeBatch:
        # A path deleted then re-created within one batch is a modification.
        modified = self.modified - self.added - self.deleted
        return ChangeBatch(
            tuple(sorted(self.added)),
            tuple(sorted(modified)),
            tuple(sorted(self.deleted)),
            self.index.generation,
        )


@dataclass(frozen=True)
class WatchTuning:
    """How the watcher polls (watchfiles' ``step``, ``debounce`` and ``rust_timeout``, in
    ms) and how it applies a large batch (``batch_size`` files at a time)."""

    step: int = 10
    debounce: int = 200
    rust_timeout: int = 200
    batch_size: int = 1000
    #: A chunk of more files than this is scanned in a worker thread.
    inline_limit: int = 16


class IndexWatcher:
    """Watches ``indexer.root`` and applies changes to ``index``.

    Start it in a running loop with ``start()`` (or ``await run()``), stop it with
    ``await stop()`` or the ``stop_event`` given to ``run``. Subscribers get a
    ``ChangeBatch`` after each applied batch; they must be quick (they are awaited
    in order) and their exceptions are logged, never propagated.
    """

    def __init__(
        self, indexer: RepoIndexer, index: RepoIndex, *, tuning: WatchTuning = WatchTuning()
    ) -> None:
        self.indexer = indexer
        self.index = index
        self.tuning = tuning
        self._subscribers: list[Subscriber] = []
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._ticks = 0
        self._tick_cond = asyncio.Condition()
        self._running = False
        self.batches_applied = 0
        self.restarts = 0
        self._apply_lock = asyncio.Lock()

    # -- subscribers --------------------------------------------------------------
    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(batch)`` (sync or async) after each change; returns an unsubscribe."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    async def _notify(self, batch: ChangeBatch) -> None:
        for callback in list(self._subscribers):
            try:
                outcome = callback(batch)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                log.exception("index subscriber %r failed", callback)

    # -- lifecycle ------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._running

    def start(self) -> asyncio.Task[None]:
        """Run the watcher as a task of the running loop (kept here, so not collected)."""
        if self._task is None or self._task.done():
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self.run(), name="agentls-index-watcher")
        return self._task

    async def stop(self, max_wait: float = 5.0) -> None:
        """Stop watching; cancels the task if the notifier does not return in time."""
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), max_wait)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def wait_ready(self, max_wait: float = 10.0) -> bool:
        """True once the notifier watches the tree (events from then on are seen)."""
        try:
            await asyncio.wait_for(self._ready.wait(), max_wait)
        except TimeoutError:
            return False
        return True

    async def run(self, stop_event: asyncio.Event | None = None) -> None:
        """Watch until ``stop_event`` (or ``stop()``) is set, or the task is cancelled.

        If the notifier dies (watchfiles raises on a file name that is not UTF-8, or
        inotify runs out of watches) it is restarted after a back-off, and the index
        is re-synchronised with a full listing, since events were lost meanwhile.
        """
        stop = stop_event or self._stop
        if stop_event is not None:
            self._stop = stop_event
        self._running = True
        failures = 0
        try:
            while not stop.is_set():
                started = time.monotonic()
                try:
                    await self._watch(stop)
                    return
                except Exception:
                    log.warning("file watcher failed; restarting it", exc_info=True)
                    self.restarts += 1
                    failures = 1 if time.monotonic() - started > 30 else failures + 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), min(10.0, 0.05 * 2**failures))
                if not stop.is_set():
                    await self.resync()
        finally:
            self._running = False
            self._ready.clear()
            async with self._tick_cond:
                self._tick_cond.notify_all()

    async def _watch(self, stop: asyncio.Event) -> None:
        async for changes in awatch(
            self.indexer.root,
            watch_filter=None,
            step=self.tuning.step,
            debounce=self.tuning.debounce,
            stop_event=stop,
            rust_timeout=self.tuning.rust_timeout,
            yield_on_timeout=True,
            ignore_permission_denied=True,
        ):
            self._ready.set()
            if changes:
                rels = self._relative(path for _change, path in changes)
                if rels:
                    await self.apply_paths(rels)
                continue
            async with self._tick_cond:
                self._ticks += 1
                self._tick_cond.notify_all()

    async def settle(self, max_wait: float = 10.0) -> bool:
        """Wait until every change made before this call is in the index.

        False when the watcher is not running or the filesystem did not go quiet in
        time (a long burst): the index may then still be catching up.
        """
        if not self._running:
            return False
        target = self._ticks + 2

        async def reached() -> None:
            async with self._tick_cond:
                await self._tick_cond.wait_for(lambda: self._ticks >= target or not self._running)

        try:
            await asyncio.wait_for(reached(), max_wait)
        except TimeoutError:
            return False
        return self._running

    @property
    def generation(self) -> int:
        return self.index.generation

    # -- applying changes --------------------------------------------------------------
    def _relative(self, paths: Iterable[str]) -> set[str]:
        root = self.indexer.real_root
        cut = len(root) + 1
        out: set[str] = set()
        for path in paths:
            if not path.startswith(root + os.sep):
                continue
            rel = path[cut:].replace(os.sep, "/")
            first = rel.partition("/")[0]
            if first == ".git":
                continue  # git's own churn (index.lock, objects) is never content
            out.add(rel)
        return out

    async def resync(self) -> ChangeBatch:
        """Re-list the whole tree and re-read what changed (size or mtime) since indexed."""
        return await self.apply_paths((), relist=True)

    async def apply_paths(self, rels: Iterable[str], *, relist: bool = False) -> ChangeBatch:
        """Bring ``rels`` (files or directories, relative) up to date in the index.

        Public so a front end can also push paths it knows changed (e.g. after a
        write it made) without waiting for the notifier. Calls are serialised; the
        index is only mutated here, on the loop, so worker threads may read it while
        a call is in progress.
        """
        async with self._apply_lock:
            return await self._apply_paths(sorted(set(rels)), relist)

    async def _apply_paths(self, todo: list[str], relist: bool) -> ChangeBatch:
        acc = _Accumulator(self.index)
        if relist or any(r.rpartition("/")[2] == GITIGNORE for r in todo):
            self.indexer.rules.invalidate()
            plan = await asyncio.to_thread(self._plan_relist, todo)
            self._apply(plan, acc)
        else:
            for i in range(0, len(todo), self.tuning.batch_size):
                chunk = todo[i : i + self.tuning.batch_size]
                if len(chunk) > self.tuning.inline_limit:
                    plan = await asyncio.to_thread(self._plan, chunk)
                else:
                    plan = self._plan(chunk)  # a few small reads: cheaper than a thread hop
                self._apply(plan, acc)
                await asyncio.sleep(0)  # let readers in between chunks of a burst
        batch = acc.batch()
        if batch:
            self.batches_applied += 1
            await self._notify(batch)
        return batch

    def _plan(self, rels: list[str]) -> _Plan:
        plan = _Plan()
        root = self.indexer.real_root
        rules = self.indexer.rules
        for rel in rels:
            try:
                st = os.lstat(os.path.join(root, rel))
            except OSError:
                plan.gone.append(rel)
                continue
            if stat.S_ISDIR(st.st_mode):
                if rules.ignored(rel, is_dir=True):
                    plan.gone.append(rel)
                    continue
                listed = walk_candidates(root, rules, rel)
                plan.dirs.append((rel, set(listed)))
                plan.scans.extend(self.indexer.scan_many(listed))
            elif rules.ignored(rel):
                plan.gone.append(rel)
            else:
                plan.scans.append(self.indexer.scan(rel))
        return plan

    def _plan_relist(self, rels: list[str]) -> _Plan:
        listed, _source = self.indexer.candidates()
        relist = set(listed)
        plan = _Plan(relist=relist)
        # Re-read only what is new, was reported changed, or differs in size or mtime.
        stale = {r for r in rels if r in relist}
        root = self.indexer.real_root
        for path in listed:
            info = self.index.get(path)
            if info is None:
                stale.add(path)
                continue
            try:
                st = os.stat(os.path.join(root, path))
            except OSError:
                stale.add(path)
                continue
            if st.st_size != info.size or st.st_mtime_ns != info.mtime_ns:
                stale.add(path)
        plan.scans = self.indexer.scan_many(sorted(stale))
        return plan

    def _apply(self, plan: _Plan, acc: _Accumulator) -> None:
        index = self.index
        if plan.relist is not None:
            for path in [*index.paths(), *index.other_paths]:
                if path not in plan.relist:
                    was = acc.before(path)
                    index.remove(path)
                    acc.after(path, was)
        for rel in plan.gone:
            for path in [rel, *index.known_under(rel)]:
                was = acc.before(path)
                index.remove(path)
                acc.after(path, was)
        for rel, listed in plan.dirs:
            for path in index.known_under(rel):
                if path not in listed:
                    was = acc.before(path)
                    index.remove(path)
                    acc.after(path, was)
        for scanned in plan.scans:
            was = acc.before(scanned.path)
            if scanned.info is None and scanned.skipped not in KEPT_AS_OTHER:
                index.remove(scanned.path)  # vanished or unreadable since it was listed
            else:
                apply_scans(index, [scanned])
            acc.after(scanned.path, was)
