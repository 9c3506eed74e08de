#!/usr/bin/env python3
"""Function length check (run by ctest as `function_length`).

Fails when a function outside tests is longer than 100 lines, or longer than
60 lines without a comment containing "long:" directly above it that gives
the reason (for example `// long: one switch over the record types.`).

Usage: scripts/check_function_length.py SOURCE_DIR [--list N]
       scripts/check_function_length.py --self-test
  --list N     print every function of N lines or more (for planning a
               split), longest first, and exit 0.
  --self-test  check the heuristic on made-up sources (ctest
               `function_length_self_test`).

Heuristic (a brace matcher, not a C++ parser):
- Files: *.cc, *.c and *.h below the module folders (MODULES), except tests:
  names containing `_test` and anything under a `testing/` folder.
- Comments, string and character literals (raw strings too) and preprocessor
  lines are blanked first, keeping line numbers; a ' after a digit is a
  digit separator.
- Braces are matched. A `{` opened at namespace, class or `extern "C"` scope
  starts a function when the text before it (since the last `;`, `{` or `}`)
  ends in `)` plus qualifiers (const, override, noexcept, final, `-> T`) or
  holds a constructor's `) :` initializer list, and does not start with a
  control keyword (a member's brace initializer in that list is skipped).
  A function's interior (lambdas, local classes) belongs to
  the function; other blocks (enum bodies, brace initializers) are skipped.
- A function's length runs from the first line of its signature (template
  line included) to its closing brace, inclusive: blank lines and comments
  inside count.
- The reason is searched in the run of `//` comment lines that ends on the
  line just above the signature.
"""
import os
import re
import sys

MODULES = ["bench", "cc", "cli", "fuzz", "lab", "parsers", "proto", "replay",
           "reports"]
HARD_LIMIT = 100
SOFT_LIMIT = 60
MARKER = "long:"
# Known offenders allowed for now, as "path:function": functions in files
# other work is changing at the same time, to be split there. An entry is
# reported on each run; one that no longer occurs is reported, not failed.
KNOWN = set()

CONTAINER = re.compile(r"\b(namespace|class|struct|union)\b[^()=]*$|"
                       r'^extern\s+"C"\s*$', re.S)
ACCESS = re.compile(r"^\s*(public|private|protected)\s*:(?!:)")
CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|return|try)\b")
QUALIFIED_END = re.compile(
    r"\)\s*(const|override|final|noexcept|mutable|&|&&|\s)*"
    r"(->\s*[\w:<>,\s*&]+)?$", re.S)
INIT_LIST = re.compile(r"\)\s*:\s*[\w:]+\s*[({]", re.S)


def is_test(path):
    base = os.path.basename(path)
    return "_test" in base or "/testing/" in path.replace(os.sep, "/")


def blank(text):
    """Returns text with comments, literals and preprocessor lines replaced by
    spaces (newlines kept), so that braces in them do not count."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A preprocessor line, with its backslash continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (
                i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            paren = text.find("(", i + 2)
            delim = text[i + 2:paren]
            j = text.find(")" + delim + '"', paren)
            j = n if j < 0 else j + len(delim) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c == "'" and i > 0 and text[i - 1].isdigit():
            out.append(c)  # a digit separator: 1'000'000
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(header):
    paren = header.find("(")
    m = re.search(r"([~\w:]+(?:operator\s*\S+?)?)\s*(<[^()]*>)?\s*$",
                  header[:paren])
    return m.group(1) if m else header[:paren].strip()


def functions(path):
    """Yields (name, first line, last line) for every function in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    code = blank(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for i, c in enumerate(code):
        line_of[i] = line
        if c == "\n":
            line += 1
    line_of[len(code)] = line

    scopes = []  # "container" or "skip" (non-function block at container scope)
    header_start = 0
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in ";":
            header_start = i + 1
        elif c == "}":
            if scopes:
                scopes.pop()
            header_start = i + 1
        elif c == "{":
            header = code[header_start:i]
            stripped = ACCESS.sub("", header).strip()
            offset = header.find(stripped) if stripped else 0
            if INIT_LIST.search(stripped) and re.search(r"[\w>]\s*$", stripped):
                # A member's brace initializer inside an initializer list.
                i = matching_brace(code, i) + 1
                continue
            if CONTAINER.search(stripped) or stripped.startswith("extern"):
                scopes.append("container")
                header_start = i + 1
            elif (stripped and not CONTROL.match(stripped) and "(" in stripped
                  and "=" not in stripped.split("(")[0]
                  and (QUALIFIED_END.search(stripped)
                       or INIT_LIST.search(stripped))):
                end = matching_brace(code, i)
                yield (function_name(stripped),
                       line_of[header_start + offset], line_of[end])
                i = end + 1
                header_start = i
                continue
            else:
                end = matching_brace(code, i)
                i = end + 1
                continue
        i += 1


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def has_reason(lines, first_line):
    """True when the // comments ending just above first_line say MARKER."""
    k = first_line - 2  # index of the line above the signature
    while k >= 0 and lines[k].strip().startswith("//"):
        if MARKER in lines[k]:
            return True
        k -= 1
    return False


def source_files(root):
    for module in MODULES:
        for dirpath, _, names in os.walk(os.path.join(root, module)):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                if name.endswith((".cc", ".c", ".h")) and not is_test(path):
                    yield path


def self_test():
    """Runs functions() on a made-up file; returns the failed checks."""
    import tempfile
    body = lambda n: "".join(f"  x += {i};\n" for i in range(n))
    source = (
        "namespace a {\nnamespace {\n"
        "constexpr int kBig = 1'000'000;  // a digit separator\n"
        "const char* kRaw = R\"(}{ \" } )\";\n"
        "struct S {\n  int Inline() const { return 1; }\n};\n"
        "enum class E { kA, kB };\n"
        "}  // namespace\n"
        "// long: a reason.\nint Marked(int x) {\n" + body(60) + "  return x;\n}\n"
        "int Plain(int x) {\n" + body(60) + "  return x;\n}\n"
        "S::S(int v)\n    : v_(v), w_{v} {\n  Helper([&] { return '}'; });\n}\n"
        "}  // namespace a\n")
    with tempfile.NamedTemporaryFile("w", suffix=".cc", delete=False) as f:
        f.write(source)
    found = {name: last - first + 1 for name, first, last in functions(f.name)}
    lines = source.split("\n")
    first_of = {name: first for name, first, _ in functions(f.name)}
    os.unlink(f.name)
    checks = [
        ("Inline found, 1 line", found.get("Inline") == 1),
        ("Marked found, 63 lines", found.get("Marked") == 63),
        ("Plain found, 63 lines", found.get("Plain") == 63),
        ("constructor with initializer list found", found.get("S::S") == 4),
        ("enum and initializers are not functions", len(found) == 4),
        ("Marked has its reason", has_reason(lines, first_of["Marked"])),
        ("Plain has none", not has_reason(lines, first_of["Plain"])),
    ]
    return [what for what, ok in checks if not ok]


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        failed = self_test()
        for what in failed:
            print(f"self-test failed: {what}")
        return 1 if failed else 0
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    list_from = int(argv[3]) if len(argv) > 3 and argv[2] == "--list" else None
    rows, failures, known_seen = [], [], set()
    for path in sorted(source_files(root)):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        rel = os.path.relpath(path, root)
        for name, first, last in functions(path):
            length = last - first + 1
            rows.append((length, rel, first, name))
            if f"{rel}:{name}" in KNOWN and length > SOFT_LIMIT:
                known_seen.add(f"{rel}:{name}")
                print(f"{rel}:{first}: {name} is {length} lines "
                      f"(known, allowed for now)")
                continue
            if length > HARD_LIMIT:
                failures.append(f"{rel}:{first}: {name} is {length} lines "
                                f"(limit {HARD_LIMIT})")
            elif length > SOFT_LIMIT and not has_reason(lines, first):
                failures.append(f"{rel}:{first}: {name} is {length} lines; "
                                f"split it, or say why above it in a "
                                f"'// {MARKER} ...' comment")
    if list_from is not None:
        for length, rel, first, name in sorted(rows, reverse=True):
            if length >= list_from:
                print(f"{length:4d} {rel}:{first} {name}")
        return 0
    for entry in sorted(KNOWN - known_seen):
        print(f"{entry}: in KNOWN but no longer too long; remove the entry")
    for failure in failures:
        print(failure)
    print(f"{len(rows)} functions checked, {len(failures)} too long")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
