#!/usr/bin/env python3
"""The kernel source hash that the committed PTX records (its first line).

    scripts/source_hash.py [KERNELS_DIR]     print the hash of KERNELS_DIR (default: kernels/)
    scripts/source_hash.py --strip FILE      print FILE's `.rs` text as the hash sees it

The hash covers the code, not its comments: a `.rs` file is hashed with its comments removed
(line, block and doc comments, block comments nested) outside string and char literals, and
with every run of whitespace outside literals made one space, so that editing or reflowing
comments leaves the hash (and the PTX) as it is. Other files (Cargo.toml, linkwrap.sh,
.cargo/nvptx.toml) are hashed byte for byte. The hash is sha256 over `sha256sum`-style lines
(`<hex>  <path>`) of those files, sorted by path. build.rs computes the same hash
(scripts/source_hash.rs holds its normalisation; tests/source_hash.rs checks that they agree).
"""
import hashlib
import os
import sys

# Rust's Pattern_White_Space.
WHITESPACE = frozenset(" \t\n\x0b\x0c\r\x85\u200e\u200f\u2028\u2029")
FIXED_FILES = ["Cargo.toml", "linkwrap.sh", ".cargo/nvptx.toml"]


def is_ident(c):
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z") or ("0" <= c <= "9")


def strip(src):
    """`src` without comments, whitespace runs outside literals as one space, trimmed."""
    out = []
    space = False  # whitespace or a comment seen since the last token character
    i, n = 0, len(src)

    def emit(text):
        nonlocal space
        if space and out:
            out.append(" ")
        space = False
        out.append(text)

    while i < n:
        c = src[i]
        if c in WHITESPACE:
            space = True
            i += 1
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                i += 1
            space = True
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            space = True
        elif c == '"':
            j = quoted_end(src, i, '"')
            emit(src[i:j])
            i = j
        elif c == "'":
            # A char literal ('x', '\n', '\u{..}') or a lifetime / label ('a, 'static).
            if i + 1 < n and src[i + 1] == "\\":
                j = quoted_end(src, i, "'")
            elif i + 2 < n and src[i + 2] == "'":
                j = i + 3
            else:
                j = i + 1
            emit(src[i:j])
            i = j
        elif is_ident(c):
            j = i
            while j < n and is_ident(src[j]):
                j += 1
            word = src[i:j]
            if word in ("r", "br", "cr") and j < n and src[j] in '#"':
                k = j
                while k < n and src[k] == "#":
                    k += 1
                if k < n and src[k] == '"':
                    close = '"' + "#" * (k - j)
                    end = src.find(close, k + 1)
                    j = n if end < 0 else end + len(close)
            elif word in ("b", "c") and j < n and src[j] == '"':
                j = quoted_end(src, j, '"')
            elif word == "b" and j < n and src[j] == "'":
                j = quoted_end(src, j, "'")
            emit(src[i:j])
            i = j
        else:
            emit(c)
            i += 1
    return "".join(out)


def quoted_end(src, i, quote):
    """Index just past the literal opened by the `quote` at `i` (backslash escapes)."""
    j, n = i + 1, len(src)
    while j < n and src[j] != quote:
        j += 2 if src[j] == "\\" else 1
    return min(j + 1, n)


def file_digest(kernels, rel):
    path = os.path.join(kernels, rel)
    if rel.endswith(".rs"):
        with open(path, encoding="utf-8", newline="") as f:
            data = strip(f.read()).encode("utf-8")
    else:
        with open(path, "rb") as f:
            data = f.read()
    return hashlib.sha256(data).hexdigest()


def source_hash(kernels):
    files = list(FIXED_FILES)
    for dirpath, _, names in os.walk(os.path.join(kernels, "src")):
        rel_dir = os.path.relpath(dirpath, kernels).replace(os.sep, "/")
        files += [f"{rel_dir}/{name}" for name in names]
    files.sort(key=lambda p: p.encode("utf-8"))
    lines = "".join(f"{file_digest(kernels, rel)}  {rel}\n" for rel in files)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def main(args):
    if len(args) == 2 and args[0] == "--strip":
        with open(args[1], encoding="utf-8", newline="") as f:
            sys.stdout.write(strip(f.read()))
        return 0
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    kernels = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels")
    print(source_hash(kernels))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
