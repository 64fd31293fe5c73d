"""Symbols per language, the live SymbolIndex (updates, cache) and the ranked repo map."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from idx_helpers import write_file

from agentls.indexer import IndexSettings, IndexWatcher, RepoIndexer
from agentls.indexer import symbols as symbols_module
from agentls.indexer.index import RepoIndex
from agentls.indexer.repomap import (
    MAX_DEFINERS,
    MapFocus,
    SymbolIndex,
    estimate_tokens,
    rank_files,
    render_map,
)
from agentls.indexer.symbols import extract

WAIT = 30.0

SAMPLES: dict[str, tuple[str, set[tuple[str, str]], str]] = {
    "Python": (
        "class Shop:\n    def checkout(self, cart):\n        return total(cart)\n\n"
        "def total(cart):\n    def inner():\n        pass\n    return 0\n",
        {("Shop", "class"), ("checkout", "method"), ("total", "function")},
        "total",
    ),
    "JavaScript": (
        "class Shop { checkout(cart) { return total(cart) } }\n"
        "function total(cart) { return 0 }\nconst price = (x) => x\n",
        {("Shop", "class"), ("checkout", "method"), ("total", "function"), ("price", "function")},
        "total",
    ),
    "TypeScript": (
        "interface Cart { items: number }\nexport class Shop { checkout(c: Cart) "
        "{ return total(c) } }\nfunction total(c: Cart): number { return 0 }\n"
        "type Id = string\nenum Color { Red }\n",
        {
            ("Cart", "interface"),
            ("Shop", "class"),
            ("checkout", "method"),
            ("total", "function"),
            ("Id", "type"),
            ("Color", "enum"),
        },
        "Cart",
    ),
    "Go": (
        "package shop\n\ntype Shop struct{}\n\nfunc (s *Shop) Checkout() int { return Total() }\n"
        "\nfunc Total() int { return 0 }\n",
        {("Shop", "type"), ("Checkout", "method"), ("Total", "function")},
        "Total",
    ),
    "Rust": (
        "struct Shop {}\ntrait Pay { fn pay(&self); }\nimpl Shop {\n    fn checkout(&self) -> u32 "
        "{ total() }\n}\nfn total() -> u32 { 0 }\nenum Color { Red }\n",
        {
            ("Shop", "struct"),
            ("Pay", "trait"),
            ("Shop", "impl"),
            ("checkout", "method"),
            ("total", "function"),
            ("Color", "enum"),
        },
        "total",
    ),
    "Java": (
        "class Shop {\n  Shop() {}\n  int checkout() { return Util.total(); }\n}\n"
        "interface Pay { void pay(); }\n",
        {
            ("Shop", "class"),
            ("Shop", "method"),
            ("checkout", "method"),
            ("Pay", "interface"),
            ("pay", "method"),
        },
        "total",
    ),
    "C": (
        "struct shop { int n; };\nstatic int total(struct shop *s) { return 0; }\n"
        "int checkout(void) { return total(0); }\n",
        {("shop", "struct"), ("total", "function"), ("checkout", "function")},
        "total",
    ),
    "C++": (
        "class Shop {\n public:\n  int checkout();\n};\nint Shop::checkout() { return total(); }\n"
        "int total() { return 0; }\n",
        {("Shop", "class"), ("checkout", "function"), ("total", "function")},
        "total",
    ),
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_each_language_finds_definitions_and_references(language: str) -> None:
    source, expected, referenced = SAMPLES[language]
    found = extract(source.encode(), language)
    assert {(d.name, d.kind) for d in found.definitions} == expected
    assert referenced in found.references
    first = found.definitions[0]
    assert first.signature == source.splitlines()[first.line - 1].strip()


def test_local_functions_are_not_part_of_the_interface() -> None:
    found = extract(SAMPLES["Python"][0].encode(), "Python")
    assert "inner" not in {d.name for d in found.definitions}


def _filler(root: Path, count: int) -> None:
    """``count`` files that reference each other: a dense graph of unrelated code."""
    for i in range(count):
        write_file(
            root,
            f"pkg/mod{i:04d}.py",
            f"from pkg import mod{(i + 1) % count:04d}\n\n"
            f"class Widget{i}:\n    def render_{i}(self, value):\n"
            f"        return helper_{(i + 1) % count}(value)\n\n"
            f"def helper_{i}(value):\n    return Widget{(i + 7) % count}().render_{(i + 7) % count}"
            f"(value)\n",
        )


def _symbols(root: Path, cache: Path | None = None) -> SymbolIndex:
    index = RepoIndexer(root, IndexSettings()).build()
    symbols = SymbolIndex(index, cache)
    symbols.start()
    assert symbols.wait_filled(WAIT)
    return symbols


def test_prompt_pulls_a_deep_file_it_names_into_the_map(tmp_path: Path) -> None:
    _filler(tmp_path, 300)
    write_file(
        tmp_path,
        "deep/down/in/the/tree/billing.py",
        "def reconcile_ledger(entries):\n    return sum(entries)\n",
    )
    files = _symbols(tmp_path).files()
    unfocused = render_map(files, MapFocus(prompt="tidy up the code"), 300)
    assert "reconcile_ledger" not in unfocused
    focused = render_map(files, MapFocus(prompt="reconcile_ledger drops entries; fix it"), 300)
    assert "deep/down/in/the/tree/billing.py:" in focused
    assert "1: def reconcile_ledger(entries):" in focused


def test_open_files_rank_higher(tmp_path: Path) -> None:
    _filler(tmp_path, 200)
    files = _symbols(tmp_path).files()
    opened = "pkg/mod0123.py"
    assert f"{opened}:" not in render_map(files, MapFocus(), 200)
    assert f"{opened}:" in render_map(files, MapFocus(open_paths=[opened]), 200)


def test_budget_holds_on_a_large_tree_and_the_map_is_byte_stable(tmp_path: Path) -> None:
    _filler(tmp_path, 2000)
    files = _symbols(tmp_path).files()
    for budget in (50, 400, 1500):
        text = render_map(files, MapFocus(prompt="render_5 is slow"), budget)
        assert 0 < estimate_tokens(text) <= budget
        assert render_map(files, MapFocus(prompt="render_5 is slow"), budget) == text
    assert render_map(files, MapFocus(), 0) == ""


def _ranked_by_dicts(
    files: dict[str, symbols_module.FileSymbols], focus: MapFocus
) -> list[tuple[str, float]]:
    """The ranking written plainly (paths in dicts of dicts), to compare the compact one with."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", focus.prompt))
    definers: dict[str, list[str]] = {}
    for path, symbols in files.items():
        for name in symbols.names():
            if path not in definers.setdefault(name, []):
                definers[name].append(path)
    edges: dict[str, dict[str, float]] = {}
    for path, symbols in files.items():
        for name, count in symbols.reference_counts():
            targets = definers.get(name, [])
            if not targets or len(targets) > MAX_DEFINERS:
                continue
            for target in targets:
                if target != path:
                    weight = count * (10.0 if name in words else 1.0) / len(targets)
                    edges.setdefault(path, {}).setdefault(target, 0.0)
                    edges[path][target] += weight
    nodes = sorted(files)
    personal = {p: 5.0 for p in focus.open_paths if p in files}
    total = sum(personal.values())
    base = {n: personal.get(n, 0.0) / total if total else 1 / len(nodes) for n in nodes}
    rank = dict(base)
    for _ in range(30):
        nxt = {n: 0.15 * base[n] for n in nodes}
        dangling = 0.0
        for n in nodes:
            out = edges.get(n, {})
            weight = sum(out.values())
            if weight <= 0:
                dangling += rank[n]
                continue
            for target, w in out.items():
                nxt[target] += 0.85 * rank[n] * w / weight
        nxt = {n: nxt[n] + 0.85 * dangling * base[n] for n in nodes}
        moved = sum(abs(nxt[n] - rank[n]) for n in nodes)
        rank = nxt
        if moved < 1e-6:
            break
    return sorted(((n, rank[n] + personal.get(n, 0.0)) for n in nodes), key=lambda i: (-i[1], i[0]))


def test_the_ranking_is_pagerank_over_the_reference_graph(tmp_path: Path) -> None:
    _filler(tmp_path, 120)
    write_file(tmp_path, "hub.py", "def shared_helper():\n    pass\n")
    for i in range(6):  # more definers than an edge may have: no edges for that name
        write_file(tmp_path, f"dup/d{i}.py", "def everywhere():\n    pass\n")
    write_file(tmp_path, "user.py", "shared_helper()\neverywhere()\nshared_helper()\n")
    files = _symbols(tmp_path).files()
    focus = MapFocus(open_paths=["user.py"])
    ranked = rank_files(files, focus)
    expected = _ranked_by_dicts(files, focus)
    assert [path for path, _ in ranked] == [path for path, _ in expected]
    assert [score for _, score in ranked] == pytest.approx([score for _, score in expected])
    # the file user.py refers to outranks the files nobody refers to
    order = [path for path, _ in ranked]
    assert order.index("hub.py") < order.index("dup/d0.py")


async def test_a_write_the_watcher_applies_is_found(tmp_path: Path) -> None:
    write_file(tmp_path, "src/app.py", "def main():\n    pass\n")
    indexer = RepoIndexer(tmp_path, IndexSettings())
    index = await indexer.abuild()
    symbols = SymbolIndex(index)
    symbols.start()
    assert symbols.wait_filled(WAIT)
    watcher = IndexWatcher(indexer, index)
    write_file(tmp_path, "src/late.py", "class LateComer:\n    def arrive(self):\n        main()\n")
    write_file(tmp_path, "src/app.py", "def main_renamed():\n    pass\n")
    await watcher.apply_paths(["src/late.py", "src/app.py"])
    [hit] = symbols.find_definitions("arrive", "method")
    assert (hit.path, hit.line, hit.text) == ("src/late.py", 2, "def arrive(self):")
    assert symbols.find_definitions("main") == []
    assert [h.path for h in symbols.find_definitions("main_renamed")] == ["src/app.py"]
    assert [(h.path, h.line) for h in symbols.find_references("main")] == [("src/late.py", 3)]
    (tmp_path / "src/late.py").unlink()
    await watcher.apply_paths(["src/late.py"])
    assert symbols.find_definitions("LateComer") == []


def test_cache_skips_parsing_unchanged_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _filler(tmp_path, 20)
    cache = tmp_path / ".agentls" / "symbols.json"
    first = _symbols(tmp_path, cache).files()
    assert cache.is_file()
    write_file(tmp_path, "pkg/mod0003.py", "def changed_here():\n    pass\n")
    parsed: list[str] = []
    real = symbols_module.extract

    def counting(source: bytes, grammar: str) -> symbols_module.FileSymbols:
        parsed.append(source.decode())
        return real(source, grammar)

    monkeypatch.setattr("agentls.indexer.repomap.extract", counting)
    second = _symbols(tmp_path, cache).files()
    assert parsed == ["def changed_here():\n    pass\n"]
    assert {p: s for p, s in second.items() if p != "pkg/mod0003.py"} == {
        p: s for p, s in first.items() if p != "pkg/mod0003.py"
    }


def test_unreadable_cache_is_ignored(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", "def alpha():\n    pass\n")
    cache = tmp_path / "symbols.json"
    cache.write_text("{not json")
    assert [h.name for h in _symbols(tmp_path, cache).find_definitions("alpha")] == ["alpha"]


async def test_catching_up_after_a_save_looks_at_the_saved_files_only(tmp_path: Path) -> None:
    write_file(tmp_path, "src/app.py", "def main():\n    pass\n")
    (tmp_path / "logo.bin").write_bytes(b"\x00\x01binary")  # recorded apart at build time
    for n in range(30):
        write_file(tmp_path, f"pkg/m{n}.py", f"def f{n}():\n    pass\n")
    indexer = RepoIndexer(tmp_path, IndexSettings())
    index = await indexer.abuild()
    symbols = SymbolIndex(index)
    symbols.start()
    assert symbols.wait_filled(WAIT)
    watcher = IndexWatcher(indexer, index)
    before = index.generation
    write_file(tmp_path, "src/app.py", "def main_renamed():\n    pass\n")
    (tmp_path / "pkg/m3.py").unlink()
    await watcher.apply_paths(["src/app.py", "pkg/m3.py"])
    assert sorted(index.changed_since(before) or []) == ["pkg/m3.py", "src/app.py"]
    assert index.changed_since(index.generation) == []
    looked_at: list[str] = []
    real_get = index.get

    def counting_get(path: str) -> object:
        looked_at.append(path)
        return real_get(path)

    index.get = counting_get  # type: ignore[method-assign]
    assert [h.path for h in symbols.find_definitions("main_renamed")] == ["src/app.py"]
    assert symbols.find_definitions("f3") == []
    assert sorted(looked_at) == ["pkg/m3.py", "src/app.py"]


def test_a_bulk_load_is_not_in_the_change_log(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", "def alpha():\n    pass\n")
    info = RepoIndexer(tmp_path, IndexSettings()).build().get("a.py")
    assert info is not None
    index = RepoIndex(tmp_path)
    index.load([info], None)
    assert index.generation == 1
    assert index.changed_since(0) is None  # the follower must scan every file
    index.remove("a.py")
    assert index.changed_since(1) == ["a.py"]
