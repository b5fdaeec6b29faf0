#!/usr/bin/env python3
"""Lists the shipped C++ functions longer than N lines (default 100).

    python3 scripts/long_functions.py [--min N] [--count] [PATH...]

Without PATH it reads the shipped code of the source tree this script lives in (core/, cli/, crawler/,
classifier/, labeling/, labelsets/, repro/, reports/, campaign/, views/, web/, exec/ when present;
tests/ and bench/ are not shipped). Prints one line per function, longest first:
`file:line  length  name`, then a total; `--count` prints the total only. A function's length
counts the lines from its name to its closing brace. Exit status 0 (a listing, not a gate).

A heuristic, not a compiler: comments, string and character literals (raw strings and digit
separators included) and preprocessor lines are blanked first, then braces are matched. A brace
at namespace or class scope whose head has a parameter list (and no `=` outside parentheses)
opens a function; lambdas and local classes count as part of the function around them.
"""

import argparse
import bisect
import os
import re
import sys

SHIPPED = ["core", "cli", "crawler", "classifier", "labeling", "labelsets", "repro", "reports", "campaign",
           "views", "web", "exec"]
NOT_SHIPPED = {"tests", "bench", "node_modules", "build"}
EXTENSIONS = (".cpp", ".cc", ".cxx", ".h", ".hpp")
CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "try", "return"}
RAW_DELIMITER = re.compile(r'[^()\\\s]{0,16}')


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines kept),
    so that every brace left is code."""
    out = []
    i, n = 0, len(text)
    line_start = True  # only blanks since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
            continue
        if line_start and c == "#":  # preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c == '"':
            # A raw string: R"delim( ... )delim", after an encoding prefix or none.
            m = re.search(r"(?:u8|u|U|L)?R$", text[max(0, i - 3):i])
            before = i - len(m.group(0)) - 1 if m else -1
            if m and (before < 0 or not (text[before].isalnum() or text[before] == "_")):
                open_paren = text.find("(", i + 1)
                delim = text[i + 1:open_paren] if open_paren >= 0 else ""
                if open_paren >= 0 and RAW_DELIMITER.fullmatch(delim):
                    close = text.find(")" + delim + '"', open_paren + 1)
                    end = n if close < 0 else close + len(delim) + 2
                    out.append(re.sub(r"[^\n]", " ", text[i:end]))
                    i = end
                    continue
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(" " * (end - i))
            i = end
            continue
        if c == "'":
            # A digit separator (1'000'000, 0xFF'FF) follows a digit of a number token.
            k = i - 1
            while k >= 0 and (text[k].isalnum() or text[k] in "_'."):
                k -= 1
            if k + 1 < i and text[k + 1].isdigit():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(" " * (end - i))
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def top_level(head, char):
    """Whether `char` occurs in `head` outside parentheses, brackets and angle-free nesting."""
    depth = 0
    for c in head:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == char and depth == 0:
            return True
    return False


def function_name(head):
    """The (qualified) name before the head's first top-level '(' or None when the head does not
    open a function."""
    h = re.sub(r"\boperator\s*(\(\)|\[\]|[^\s(]+)", lambda m: "operator" + re.sub(r"\W", "_", m.group(1)), head)
    h = re.sub(r"\[\[.*?\]\]", " ", h)  # attributes
    if "(" not in h:
        return None
    if top_level(h.split("(", 1)[0], "="):
        return None
    before = h.split("(", 1)[0].rstrip()
    m = re.search(r"(~?[A-Za-z_]\w*(?:\s*<[^<>]*>)?(?:\s*::\s*~?[A-Za-z_]\w*(?:\s*<[^<>]*>)?)*)$", before)
    if not m:
        return None
    name = re.sub(r"\s+", "", m.group(1))
    op = re.search(r"\boperator\s*(\(\)|\[\]|[^\s(]+)", head)
    if op and name.endswith("operator" + re.sub(r"\W", "_", op.group(1))):
        name = name[: -len(op.group(1))] + op.group(1)
    first = re.match(r"\s*(\w+)", h)
    if first and first.group(1) in CONTROL:
        return None
    if name.split("::")[-1] in CONTROL:
        return None
    return name


def functions(path):
    """(line, name, length) of every function defined at namespace or class scope in `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        code = blank(f.read())
    found = []
    # stack of (kind, name, start_line): kind is "ns", "class", "function" or "block"
    stack = []
    head_start = 0  # index where the current statement's head starts
    lines_before = [0]  # the index where each line starts
    for idx, c in enumerate(code):
        if c == "\n":
            lines_before.append(idx + 1)
    def line_at(index):
        return bisect.bisect_right(lines_before, index)

    in_function = 0
    for idx, c in enumerate(code):
        if c == "{":
            head = code[head_start:idx]
            if in_function:
                stack.append(("block", None, 0))
            else:
                flat = " ".join(head.split())
                name = function_name(flat)
                if re.match(r"^(inline\s+)?namespace\b", flat) or re.match(r'^extern\b', flat):
                    stack.append(("ns", (re.findall(r"namespace\s+([\w:]+)", flat) or [""])[0], 0))
                elif name is None and re.search(r"\b(class|struct|union|enum)\b", flat):
                    m = re.search(r"\b(?:class|struct|union)\s+(?:\w+\s+)?([A-Za-z_]\w*(?:::\w+)*)\s*(?:final\s*)?(?::(?!:)|$)", flat)
                    stack.append(("class", m.group(1) if m else None, 0))
                elif name is not None:
                    scope = [s[1] for s in stack if s[0] == "class" and s[1]]
                    if "::" not in name and scope:
                        name = "::".join(scope + [name])
                    # the line of the name: the last occurrence of its last part in the head
                    short = name.split("::")[-1].split("<")[0]
                    at = head.rfind(short.lstrip("~")) if short else -1
                    start = line_at(head_start + at) if at >= 0 else line_at(idx)
                    stack.append(("function", name, start))
                    in_function += 1
                else:
                    stack.append(("block", None, 0))
            head_start = idx + 1
        elif c == "}":
            if stack:
                kind, name, start = stack.pop()
                if kind == "function":
                    in_function -= 1
                    found.append((start, name, line_at(idx) - start + 1))
            head_start = idx + 1
        elif c == ";":
            head_start = idx + 1
        elif c == ":" and not in_function:
            # `public:` / `private:` / `protected:` end a head inside a class
            tail = code[head_start:idx].strip()
            if tail in ("public", "private", "protected"):
                head_start = idx + 1
    return found


def shipped_files(root):
    for top in SHIPPED:
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in NOT_SHIPPED)
            for name in sorted(filenames):
                if name.endswith(EXTENSIONS):
                    yield os.path.join(dirpath, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min", type=int, default=100, help="list functions longer than this")
    parser.add_argument("--count", action="store_true", help="print the number only")
    parser.add_argument("paths", nargs="*", help="files or folders (default: the shipped code)")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = []
    if args.paths:
        for p in args.paths:
            if os.path.isdir(p):
                for dirpath, dirnames, filenames in os.walk(p):
                    dirnames[:] = sorted(d for d in dirnames if d not in NOT_SHIPPED)
                    files += [os.path.join(dirpath, f) for f in sorted(filenames)
                              if f.endswith(EXTENSIONS)]
            else:
                files.append(p)
    else:
        files = list(shipped_files(root))
    long_ones = []
    for path in files:
        shown = os.path.relpath(path, root) if not args.paths else path
        for line, name, length in functions(path):
            if length > args.min:
                long_ones.append((length, shown, line, name))
    long_ones.sort(key=lambda t: (-t[0], t[1], t[2]))
    if args.count:
        print(len(long_ones))
        return 0
    for length, shown, line, name in long_ones:
        print(f"{shown}:{line}  {length}  {name}")
    print(f"{len(long_ones)} functions over {args.min} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
