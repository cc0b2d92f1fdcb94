#!/usr/bin/env python3
"""Finds function bodies over a line limit in mxla's sources (not tests).

A body is a brace block opened by a `) ... {` header that is not an if, for,
while, switch or catch, and is not inside another body; its length is the
count of lines strictly between its braces. Comments and string literals are
blanked first so their braces do not count.

  long_functions.py ROOT [--limit N]            lists every long body
  long_functions.py ROOT --check KEPT           fails unless the long bodies
                                                are exactly those in KEPT

KEPT names one body per line as `path function  # why it stays whole`.
"""
import argparse
import os
import re
import sys

SOURCE_FOLDERS_SKIPPED = ('tests', 'python', '.git')


def blank_comments_and_strings(text):
    keep_lines = lambda m: '\n' * m.group(0).count('\n')
    text = re.sub(r'/\*.*?\*/', keep_lines, text, flags=re.S)
    text = re.sub(r'R"(\w*)\(.*?\)\1"', lambda m: '""' + keep_lines(m),
                  text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r"'(\\.|[^'\\\n])'", "' '", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def function_name(header):
    names = re.findall(r'([~\w:]+)\s*\(', header)
    names = [n for n in names if n not in ('if', 'for', 'while', 'switch')]
    return names[0] if names else 'lambda'


def long_bodies(path, limit):
    text = blank_comments_and_strings(open(path, errors='replace').read())
    found, stack, line = [], [], 1
    for i, c in enumerate(text):
        if c == '\n':
            line += 1
        elif c == '{':
            header = re.split(r'[;{}]', text[max(0, i - 1000):i])[-1]
            is_body = (re.search(r'\)[\s\w:<>&*,\->]*$', header) and
                       not re.search(r'\b(if|for|while|switch|catch)\s*\(',
                                     header))
            inside_body = any(entry[0] for entry in stack)
            stack.append((bool(is_body) and not inside_body, line, header))
        elif c == '}' and stack:
            is_body, first, header = stack.pop()
            length = line - first - 1
            if is_body and length > limit:
                found.append((length, first, function_name(header)))
    return found


def scan(root, limit):
    results = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(s for s in subfolders
                               if s not in SOURCE_FOLDERS_SKIPPED and
                               not s.startswith('build'))
        for name in sorted(files):
            if name.endswith(('.cc', '.h')):
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, root)
                for length, line, function in long_bodies(path, limit):
                    results.append((length, relative, line, function))
    return sorted(results, reverse=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('root')
    parser.add_argument('--limit', type=int, default=60)
    parser.add_argument('--check', metavar='KEPT')
    args = parser.parse_args()
    results = scan(args.root, args.limit)
    if not args.check:
        for length, path, line, function in results:
            print(f'{length:4d} {path}:{line} {function}')
        print(f'{len(results)} bodies over {args.limit} lines', file=sys.stderr)
        return 0
    kept = set()
    for number, entry in enumerate(open(args.check), 1):
        fields = entry.split('#')[0].split()
        if fields and len(fields) != 2:
            print(f'{args.check}:{number}: expected `path function  # why`')
            return 1
        if fields:
            kept.add(tuple(fields))
    found = {(path, function) for _, path, _, function in results}
    for length, path, line, function in results:
        if (path, function) not in kept:
            print(f'{path}:{line}: {function} is {length} lines, over '
                  f'{args.limit}: split it, or list it in {args.check} '
                  f'with the reason it stays whole')
    for path, function in sorted(kept - found):
        print(f'{args.check}: {path} {function} is no longer over '
              f'{args.limit} lines: remove the entry')
    return 0 if found == kept else 1


if __name__ == '__main__':
    sys.exit(main())
