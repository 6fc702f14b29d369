"""`--split-input-file`: cases separated by `// -----` lines, processed one by one.

Each chunk keeps its line numbers in the whole file: it is padded with the newlines of the
chunks before it, so the parser itself reports the right `file:line:col`.
"""

import re
from dataclasses import dataclass

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Chunk:
    text: str  # padded: line N of the chunk is line N of the file
    first_line: int
    last_line: int


def split(text: str, enabled: bool) -> list[Chunk]:
    if not enabled:
        return [Chunk(text, 1, text.count("\n") + 1)]
    chunks, start = [], 0
    for match in list(SPLIT_MARKER.finditer(text)) + [None]:
        end = match.start() if match else len(text)
        first_line = text.count("\n", 0, start) + 1
        body = text[start:end]
        chunks.append(Chunk("\n" * (first_line - 1) + body, first_line, first_line + body.count("\n")))
        start = match.end() if match else end
    return chunks
