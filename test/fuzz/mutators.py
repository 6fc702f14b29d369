"""Byte- and token-level mutations of MLIR text, shared by the fuzzers.

Byte mutations find what the parser does with damaged files (bad UTF-8, NULs, truncation);
token mutations keep the text lexically MLIR-like so the input gets past the lexer into the
parser, the verifiers and the passes, which is where strata's own Python code runs. Every
mutation draws from one `random.Random`, so a seed reproduces a whole run.
"""

from __future__ import annotations

import random
import re

TOKEN = re.compile(
    r"""
     (?P<string>"(?:[^"\\\n]|\\.)*")
    |(?P<comment>//[^\n]*)
    |(?P<ssa>%[\w.$#-]+)
    |(?P<symbol>@[\w.$-]+)
    |(?P<block>\^[\w.$-]+)
    |(?P<alias>[!#][\w.$-]+)
    |(?P<number>-?0x[0-9a-fA-F]+|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)
    |(?P<word>[A-Za-z_][\w.$]*)
    |(?P<space>\s+)
    |(?P<punct>->|::|.)
    """,
    re.VERBOSE | re.DOTALL,
)

INTERESTING_NUMBERS = [
    "0", "-1", "1", "2147483647", "-2147483648", "4294967296", "9223372036854775807",
    "-9223372036854775808", "18446744073709551616", "1e309", "-0.0", "0x7FC00000", "3.4e38", "1e-45",
    "99999999999999999999999999",
]
INTERESTING_WORDS = [
    "f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64", "index", "tensor", "memref", "vector",
    "none", "complex", "tuple", "func.func", "func.return", "func.call", "strata.softmax",
    "strata.gelu", "strata.layer_norm", "strata.rms_norm", "strata.linear", "strata.attention",
    "torch.vtensor", "torch.aten.mm", "torch.aten.softmax.int", "torch.constant.int", "dense",
    "dense_resource", "affine_map", "loc", "unknown", "private", "attributes", "true", "false",
]
INTERESTING_BYTES = [b"\x00", b"\xff", b"\xc3", b"\xe2\x80", b"{", b"}", b"(", b")", b"<", b">", b"%",
                     b"^", b"@", b"\"", b"\\", b"\n", b"// -----\n", b"#", b"!", b":"]
PUNCT = ["{", "}", "(", ")", "<", ">", "[", "]", ",", ":", "=", "->", "x", "?", "*"]


def tokenize(text: str) -> list[tuple[str, str]]:
    """Returns (kind, text) pairs whose texts concatenate back to `text`."""
    return [(m.lastgroup, m.group()) for m in TOKEN.finditer(text)]


class TokenPool:
    """Every token of the corpus by kind, so a token can be replaced by a plausible one."""

    def __init__(self, texts: list[str]):
        self.by_kind: dict[str, list[str]] = {}
        for text in texts:
            for kind, tok in tokenize(text):
                if kind not in ("space", "comment"):
                    self.by_kind.setdefault(kind, []).append(tok)
        self.lines = [line for text in texts for line in text.splitlines() if line.strip()]

    def pick(self, rng: random.Random, kind: str, fallback: str) -> str:
        pool = self.by_kind.get(kind)
        return rng.choice(pool) if pool else fallback


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(7)
        pos = rng.randrange(len(buf) + 1)
        if choice == 0 and buf:  # flip one bit
            pos = min(pos, len(buf) - 1)
            buf[pos] ^= 1 << rng.randrange(8)
        elif choice == 1 and buf:  # random byte
            buf[min(pos, len(buf) - 1)] = rng.randrange(256)
        elif choice == 2:  # insert an interesting byte sequence
            buf[pos:pos] = rng.choice(INTERESTING_BYTES)
        elif choice == 3 and buf:  # delete a range
            end = min(len(buf), pos + rng.randint(1, 32))
            del buf[pos:end]
        elif choice == 4 and buf:  # duplicate a range
            end = min(len(buf), pos + rng.randint(1, 64))
            buf[pos:pos] = buf[pos:end]
        elif choice == 5:  # truncate
            del buf[pos:]
        else:  # repeat one byte many times (deep nesting, long names)
            buf[pos:pos] = bytes([rng.choice(b"{(<[%x9")]) * rng.randint(8, 512)
    return bytes(buf)


def mutate_tokens(text: str, pool: TokenPool, rng: random.Random) -> str:
    tokens = [list(t) for t in tokenize(text)]
    solid = [i for i, (kind, _) in enumerate(tokens) if kind not in ("space",)]
    if not solid:
        return text
    for _ in range(rng.randint(1, 4)):
        i = rng.choice(solid)
        kind, tok = tokens[i]
        choice = rng.randrange(8)
        if choice == 0:  # delete
            tokens[i][1] = ""
        elif choice == 1:  # duplicate
            tokens[i][1] = tok + " " + tok
        elif choice == 2:  # same-kind token from anywhere in the corpus
            tokens[i][1] = pool.pick(rng, kind, tok)
        elif choice == 3:  # interesting number or word
            tokens[i][1] = rng.choice(INTERESTING_NUMBERS if kind == "number" else INTERESTING_WORDS)
        elif choice == 4:  # stray punctuation
            tokens[i][1] = tok + rng.choice(PUNCT)
        elif choice == 5:  # swap with another token of the same kind
            same = [j for j in solid if tokens[j][0] == kind]
            j = rng.choice(same)
            tokens[i][1], tokens[j][1] = tokens[j][1], tokens[i][1]
        elif choice == 6:  # uncomment: expected-* annotations and RUN lines become code
            tokens[i][1] = tok[2:] if kind == "comment" else tok
        else:  # a line from another corpus file, after this token
            tokens[i][1] = tok + "\n" + rng.choice(pool.lines) + "\n"
    return "".join(tok for _, tok in tokens)


def mutate(data: bytes, pool: TokenPool, rng: random.Random) -> tuple[str, bytes]:
    """One mutant of `data`: ('bytes' | 'tokens', new bytes)."""
    if rng.random() < 0.35:
        return "bytes", mutate_bytes(data, rng)
    text = data.decode("utf-8", errors="replace")
    return "tokens", mutate_tokens(text, pool, rng).encode()
