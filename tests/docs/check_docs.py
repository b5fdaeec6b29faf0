#!/usr/bin/env python3
"""Every `convfail ...` command and subcommand and every repository path that README.md,
ARCHITECTURE.md and docs/*.md name in code (backticks or fenced blocks) exists.

Usage: check_docs.py CONVFAIL REPO_ROOT DOC_ROOT
  CONVFAIL   the built binary (its --help lists the commands and each one's subcommands)
  REPO_ROOT  the checkout the paths are looked up in
  DOC_ROOT   where README.md, ARCHITECTURE.md and docs/ are read (REPO_ROOT, or a copy)
Prints one line per stale name (FILE:LINE: what) and exits 1 when there is any.

Commands: `convfail WORD [SUB]` (and the README's `cf WORD`): WORD must be a command; when it has
subcommands, SUB (a lower-case word) must be one of them. A list `WORD a|b|c` of a command with
subcommands must name only subcommands, and all of them (no summary that leaves some out).
Paths: a name whose first part is a folder of the repository (or of one of its top-level
folders: `runner/runner.js` is exec's); a
name without a file extension may be a file stem (`classifier/issue_output` for .h and .cpp).
Placeholders (<...>, *, $, ~, NNNN, UPPER-CASE parts), build outputs (build/) and installed
packages (node_modules/) are not checked.
"""
import pathlib
import re
import subprocess
import sys

CONVFAIL, REPO, DOCS = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])


def help_words(*args):
    """The command names listed in `convfail ARGS --help` (sections other than Options)."""
    out = subprocess.run([CONVFAIL, *args, "--help"], capture_output=True, text=True).stdout
    words, section = [], False
    for line in out.splitlines():
        if re.fullmatch(r"[A-Z][A-Za-z ]*:", line.strip()) and not line.startswith(" "):
            section = line.strip() not in ("Options:", "POSITIONALS:", "OPTIONS:", "Positionals:")
            continue
        m = re.match(r"  ([a-z][a-z0-9_-]*)\s", line + " ")
        if section and m:
            words.append(m.group(1))
    return words


COMMANDS = set(help_words())
SUBCOMMANDS = {c: set(help_words(c)) for c in COMMANDS}
TOP = sorted(p.name for p in REPO.iterdir() if p.is_dir() and not p.name.startswith(".")
             and not p.name.startswith("build"))
SECOND = {}  # a folder one level under a top-level folder -> its paths
for t in TOP:
    for p in (REPO / t).iterdir():
        if p.is_dir():
            SECOND.setdefault(p.name, []).append(p)

problems = []


def stale(where, what):
    problems.append(f"{where}: {what}")


def code_spans(text):
    """(line number, code) of every fenced block line and backtick span."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            yield n, line
        else:
            for m in re.finditer(r"`([^`]+)`", line):
                yield n, m.group(1)


def check_commands(where, code):
    end = r"(?=$|[\s,;:)`'\"])"  # a whole word, not the start of "study.db"
    for m in re.finditer(r"(?:^|[\s(;|&])(?:convfail|cf)((?:\s+--?[a-z-]+(?:\s+[^\s-][^\s]*)?)*)"
                         r"\s+([a-z][a-z0-9-]*)" + end + r"(?:\s+([a-z][a-z0-9|-]*)" + end + ")?", code):
        word, sub = m.group(2), m.group(3)
        if word not in COMMANDS:
            stale(where, f"no command `convfail {word}`")
            continue
        if sub and SUBCOMMANDS[word]:
            for s in sub.split("|"):
                if s not in SUBCOMMANDS[word]:
                    stale(where, f"no subcommand `convfail {word} {s}`")
    # `test run|status|...` lists: only subcommands, and every one of them.
    for m in re.finditer(r"(?:^|\s)([a-z]+) ([a-z-]+(?:\|[a-z-]+)+)(?=$|[\s,.;:)])", code):
        word, subs = m.group(1), m.group(2).split("|")
        if word not in COMMANDS or not SUBCOMMANDS[word]:
            continue
        for s in subs:
            if s not in SUBCOMMANDS[word]:
                stale(where, f"no subcommand `convfail {word} {s}`")
        missing = sorted(SUBCOMMANDS[word] - set(subs))
        if missing:
            stale(where, f"`{m.group(0).strip()}` leaves out {', '.join(missing)}")


def exists(path):
    parts = path.rstrip("/").split("/")
    first = parts[0]
    roots = []
    if (REPO / first).is_dir() or (REPO / first).is_file():
        roots.append(REPO / first)
    roots += SECOND.get(parts[0], [])
    if not roots:
        return None  # not a repository path (a bundle's folder, an output)
    for r in roots:
        p = r.joinpath(*parts[1:]) if len(parts) > 1 else r
        if p.exists() or (not p.suffix and any(p.with_name(p.name + e).exists() for e in (".h", ".cpp", ".py", ".sh"))):
            return True
    return False


def check_paths(where, code):
    for token in re.findall(r"[A-Za-z0-9_.@<>*$~{}-]+(?:/[A-Za-z0-9_.@<>*$~{}-]*)+", code):
        if re.search(r"[<>*$~{}]|NNNN|^\.|^build|://|node_modules", token) or re.search(r"(^|/)[A-Z][A-Z_]+(/|$|\.)", token):
            continue
        if token.startswith("/"):
            continue  # a system path (/etc, /usr/bin/python3) or an API route
        found = exists(token)
        if found is False:
            stale(where, f"no `{token}` in the repository")


docs = [DOCS / "README.md", DOCS / "ARCHITECTURE.md"] + sorted((DOCS / "docs").glob("*.md"))
for doc in docs:
    if doc.name == "commands.md":
        continue  # generated from --help (core_commands_doc.sh)
    rel = doc.relative_to(DOCS)
    for n, code in code_spans(doc.read_text()):
        where = f"{rel}:{n}"
        check_commands(where, code)
        check_paths(where, code)
for p in problems:
    print(p)
print(f"check_docs: {len(docs)} files, {len(COMMANDS)} commands, {len(problems)} stale names",
      file=sys.stderr)
sys.exit(1 if problems else 0)
