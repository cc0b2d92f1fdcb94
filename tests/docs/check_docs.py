#!/usr/bin/env python3
"""Checks README.md and docs/*.md against the repository (ctest: docs_links).

* Every relative link, [text](path) or [text](path#anchor) or [text](#anchor),
  resolves to a file inside the repository, and an anchor into a Markdown
  file names one of its headings (GitHub's slugs). Links to http(s) pages
  are not followed; any other link that leaves the repository fails.
* The README's C++ example is a verbatim excerpt of
  tools/examples/bias_relu.cc, which runs as the example_bias_relu test.
* Each figure that `mxla demo` redraws (tools/demo_examples.cc) appears
  verbatim in docs/broadcasting.md.
* Every source file the pages name by its path from the top of the
  repository (`passes/fusion.h`, `tests/e2e/...py`) exists, so a file that
  moves or goes cannot leave the pages naming it.

Usage: check_docs.py SOURCE_DIR. Prints every failure, exits 1 if any.
"""
import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`+[^`]*`+")
SOURCE_PATH = re.compile(
    r"(?<![\w./-])((?:ir|hlo_text|semantics|interpreter|builder|passes|"
    r"codegen|runtime|driver|distributed|tools|python|tests|cmake|docs)/[\w./-]*\w\."
    r"(?:h|cc|py|def|sh|cmake|md|txt|inc|supp|in))\b")


def prose_lines(text):
    """(line number, line) outside fenced code, inline code removed."""
    in_code = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if not in_code:
            yield number, INLINE_CODE.sub("", line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    seen = {}
    result = set()
    for _, line in prose_lines_keep_code_spans(text):
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def prose_lines_keep_code_spans(text):
    in_code = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if not in_code:
            yield number, line


def check_links(root, path, errors):
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(root)
    for number, line in prose_lines(text):
        for match in LINK.finditer(line):
            target = match.group(1)
            if re.match(r"^https?://", target):
                continue
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                errors.append(f"{where}:{number}: link '{target}' is neither "
                              "http(s) nor a path in the repository")
                continue
            file_part, _, anchor = target.partition("#")
            if file_part.startswith("/"):
                errors.append(f"{where}:{number}: link '{target}' is an "
                              "absolute path; use a path relative to the file")
                continue
            resolved = (path.parent / file_part).resolve() if file_part \
                else path.resolve()
            if root not in resolved.parents and resolved != root:
                errors.append(f"{where}:{number}: link '{target}' leaves the "
                              "repository")
                continue
            if not resolved.exists():
                errors.append(f"{where}:{number}: link '{target}': "
                              f"{resolved.relative_to(root)} does not exist")
                continue
            if anchor and resolved.suffix == ".md":
                if anchor not in anchors(resolved.read_text(encoding="utf-8")):
                    errors.append(f"{where}:{number}: link '{target}': "
                                  f"{resolved.relative_to(root)} has no "
                                  f"heading '#{anchor}'")


def check_source_paths(root, path, errors):
    text = path.read_text(encoding="utf-8")
    for number, line in enumerate(text.split("\n"), 1):
        for match in SOURCE_PATH.finditer(line):
            if not (root / match.group(1)).exists():
                errors.append(f"{path.relative_to(root)}:{number}: names "
                              f"{match.group(1)}, which does not exist")


def fenced_blocks(text, language):
    blocks, block = [], None
    for line in text.split("\n"):
        if block is None and line.strip() == "```" + language:
            block = []
        elif block is not None and line.strip() == "```":
            blocks.append("\n".join(block) + "\n")
            block = None
        elif block is not None:
            block.append(line)
    return blocks


def check_readme_cpp_example(root, errors):
    blocks = fenced_blocks((root / "README.md").read_text(encoding="utf-8"),
                           "c++")
    source = (root / "tools/examples/bias_relu.cc").read_text(encoding="utf-8")
    if not blocks:
        errors.append("README.md: no ```c++ block (the C++ example)")
    elif blocks[0] not in source:
        errors.append("README.md: the first ```c++ block is not a verbatim "
                      "excerpt of tools/examples/bias_relu.cc")


def check_broadcasting_figures(root, errors):
    source = (root / "tools/demo_examples.cc").read_text(encoding="utf-8")
    doc = (root / "docs/broadcasting.md").read_text(encoding="utf-8")
    figures = re.findall(r'Figure\(R"\(\n(.*?)\)"', source, re.S)
    if not figures:
        errors.append("tools/demo_examples.cc: no Figure(R\"(...)\") found")
    for figure in figures:
        if figure not in doc:
            first = figure.split("\n")[0].strip()
            errors.append("docs/broadcasting.md lacks the demo's figure "
                          f"starting '{first}' (tools/demo_examples.cc), "
                          "character for character")


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    errors = []
    pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    for page in pages:
        check_links(root, page, errors)
        check_source_paths(root, page, errors)
    check_readme_cpp_example(root, errors)
    check_broadcasting_figures(root, errors)
    for error in errors:
        print(error, file=sys.stderr)
    print(f"check_docs: {len(pages)} pages, "
          f"{'ok' if not errors else f'{len(errors)} problems'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
