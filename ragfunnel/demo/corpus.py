"""The shipped demo corpus: policy documents, their chunks, and the evaluation cases.

Documents are Markdown files with a YAML header under ``data/documents/``; every ``## `` section
is one chunk, whose id ``<document id>@<version>#<section slug>`` stays the same from run to run
(the cases' evidence names these ids). A second chunking (:func:`split_windows`, the re-chunked
run) cuts the same text into windows of sentences across section borders, with other ids. A document marked ``scanned`` has no text layer: its body
is what OCR reads from the page image. Reading only: nothing here traces or writes.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

DATA = Path(str(resources.files("ragfunnel.demo") / "data"))
CASES_PATH = DATA / "cases.yaml"

_FRONT = re.compile(r"\A---\n(.*?)\n---\n(.*)\Z", re.DOTALL)
_UMLAUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


class CorpusError(ValueError):
    """A shipped document is malformed (names the file and what is wrong)."""


@dataclass(frozen=True)
class Chunk:
    """One section of one document version: the unit the index stores and the cases cite."""

    id: str
    document_id: str
    file: str
    version: str
    heading: str
    text: str


@dataclass(frozen=True)
class Document:
    """One document version as the ingestion receives it."""

    id: str
    file: str
    title: str
    code: str
    version: str
    language: str
    scanned: bool
    body: str = field(repr=False)

    @property
    def text_layer(self) -> str:
        """The text a PDF reader gets: empty for a scanned page."""
        return "" if self.scanned else self.body


def slug(heading: str) -> str:
    """``"Error code FW-E1742"`` → ``"error-code-fw-e1742"`` (umlauts spelled out)."""
    text = unicodedata.normalize("NFKC", heading).lower().translate(_UMLAUT)
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def chunk_id(document_id: str, version: str, heading: str) -> str:
    """The stable id of a section."""
    return f"{document_id}@{version}#{slug(heading)}"


def split_sections(document: Document, text: str) -> list[Chunk]:
    """The ``## `` sections of ``text`` as chunks (text before the first heading is dropped)."""
    chunks: list[Chunk] = []
    for part in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        heading, _, body = part.partition("\n")
        body = " ".join(body.split())
        if body:
            chunks.append(
                Chunk(
                    id=chunk_id(document.id, document.version, heading.strip()),
                    document_id=document.id,
                    file=document.file,
                    version=document.version,
                    heading=heading.strip(),
                    text=body,
                )
            )
    return chunks


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ0-9\"(])")
WINDOW_SENTENCES = 3
"""Sentences per chunk of the second chunking."""


def split_windows(document: Document, text: str) -> list[Chunk]:
    """The second chunking: windows of :data:`WINDOW_SENTENCES` sentences over the whole text.

    Windows run across section borders (each is named after the section it starts in, for the
    reranker's heading feature); ids are ``<document id>@<version>~<n>``: none is a section id.
    """
    sentences: list[tuple[str, str]] = []
    for section in split_sections(document, text):
        sentences += [(section.heading, s) for s in _SENTENCE_END.split(section.text) if s]
    return [
        Chunk(
            id=f"{document.id}@{document.version}~{n}",
            document_id=document.id,
            file=document.file,
            version=document.version,
            heading=sentences[first][0],
            text=" ".join(s for _, s in sentences[first : first + WINDOW_SENTENCES]),
        )
        for n, first in enumerate(range(0, len(sentences), WINDOW_SENTENCES))
    ]


def read_document(path: Path) -> Document:
    """Parse one document file."""
    match = _FRONT.match(path.read_text(encoding="utf-8"))
    if match is None:
        raise CorpusError(f"{path}: line 1: expected a '---' YAML header")
    header = yaml.safe_load(match.group(1))
    missing = [k for k in ("id", "file", "title", "code", "version") if k not in header]
    if missing:
        raise CorpusError(f"{path}: header: missing field(s) {', '.join(missing)}")
    return Document(
        id=str(header["id"]),
        file=str(header["file"]),
        title=str(header["title"]),
        code=str(header["code"]),
        version=str(header["version"]),
        language=str(header.get("language", "en")),
        scanned=bool(header.get("scanned", False)),
        body=match.group(2),
    )


def load_documents(folder: Path | None = None) -> list[Document]:
    """Every document version, in file-name order (the ingestion order)."""
    folder = folder or DATA / "documents"
    return [read_document(p) for p in sorted(folder.glob("*.md"))]


def all_chunks(documents: list[Document]) -> list[Chunk]:
    """Every chunk the corpus can produce (scanned pages as OCR reads them)."""
    return [c for d in documents for c in split_sections(d, d.body)]
