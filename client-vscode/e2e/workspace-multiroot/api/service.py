def health() -> str:
    return "ok"
