"""A conversation kept on disk: one append-only JSONL file per session
(``store``), one typed model per line (``entries``), and what a run writes
through, every human decision included (``recorder``).
"""
