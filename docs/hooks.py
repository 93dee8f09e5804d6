"""MkDocs hook: publish the figures in ``results/`` and the changelog beside the pages.

The plots and reports live in ``results/`` (the commands that make them write there) and the
changelog at the repository's root; the site links them without keeping a second copy in ``docs/``.
Pages link the figures as ``../results/NAME`` (right when read in the repository); the site keeps
them under ``results/`` beside the pages, so those links are rewritten on the way in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = {".png", ".json", ".txt"}


def on_files(files: Files, config: Any) -> Files:
    for path in sorted((ROOT / "results").iterdir()):
        if path.suffix in PUBLISHED and path.is_file():
            files.append(File(f"results/{path.name}", str(ROOT), config["site_dir"], False))
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return markdown.replace("](../results/", "](results/")
